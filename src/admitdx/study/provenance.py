"""Where a study's leaderboard came from, so that a table taken into a paper can be traced back:
the admitdx version, the study file's SHA-256, each task run's dataset fingerprint, seeds and dates,
and each system's model identity (name, server dialect, quantisation where its name says it).

Read from the stages' own manifests and results.json; nothing here is measured again. Paths are
left out (the file's name only) and dates are days, so the same study run elsewhere, or again the
same day, writes the same leaderboard bytes.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from admitdx import __version__
from admitdx.runs import read_manifest, sha256_file

if TYPE_CHECKING:
    from admitdx.study.scored import Scored

#: Quantisation as model and GGUF file names spell it (llama.cpp's Q4_K_M, Q8_0, IQ3_XS, F16; AWQ,
#: GPTQ, FP8, INT4/INT8 in Hugging Face ids).
QUANTISATION = re.compile(
    r"(?<![a-z0-9])(i?q\d(?:_[a-z0-9]+)*|b?f16|fp8|fp16|awq|gptq|int[48])(?![a-z0-9])", re.I
)


def study_provenance(study_file: Path | None, scored: list[Scored]) -> dict[str, Any]:
    """The ``provenance`` block of leaderboard.json (also its page footer and LaTeX comment)."""
    systems: dict[str, dict[str, Any]] = {}
    runs = []
    for s in scored:
        predicted = []
        for entry in s.results["systems"]:
            manifest = read_manifest(Path(entry["predictions_dir"])) or {}
            systems.setdefault(entry["name"], model_identity(manifest.get("inputs") or {}))
            predicted.append(_day(manifest))
        score = read_manifest(s.report_dir) or {}
        built = read_manifest(Path(s.results["dataset"])) or {}
        runs.append({
            "name": s.name, "task": s.task,
            "dataset_sha256": (score.get("inputs") or {}).get("dataset"),
            "seeds": _seeds(s),
            "dates": {"built": _day(built), "predicted": sorted({d for d in predicted if d}),
                      "scored": _day(score)},
        })  # fmt: skip
    return {
        "admitdx_version": __version__,
        "study_file": {"name": study_file.name, "sha256": sha256_file(study_file)} if study_file else None,
        "runs": runs,
        "systems": systems,
    }


def model_identity(inputs: dict[str, Any]) -> dict[str, Any]:
    """A system's kind and, for a model that answers over a server, its name, revision, the server's
    dialect and the quantisation its name states (None where nothing says it)."""
    system = inputs.get("system") or {}
    llm = (inputs.get("system_inputs") or {}).get("llm")
    if not llm:
        return {"kind": system.get("kind")}
    model = str(llm.get("model") or "")
    found = QUANTISATION.search(model)
    return {
        "kind": system.get("kind"),
        "model": model or None,
        "model_revision": llm.get("model_revision"),
        "server": llm.get("server", "auto"),
        "local_server": bool((inputs.get("system_inputs") or {}).get("local_server")),
        "quantisation": found.group(1).upper() if found else None,
    }


def _seeds(s: Scored) -> dict[str, Any]:
    """The run's seeds: its build's (every build parameter named like a seed) and scoring's bootstrap."""
    params = dataclasses.asdict(s.params) if dataclasses.is_dataclass(s.params) else {}
    seeds = {f"build.{k}": v for k, v in params.items() if "seed" in k}
    recorded = s.results.get("params") or {}
    return {
        **seeds,
        "bootstrap.seed": recorded.get("seed"),
        "bootstrap.replicates": recorded.get("n_bootstrap"),
    }


def _day(manifest: dict[str, Any]) -> str | None:
    created = manifest.get("created")
    return str(created)[:10] if created else None
