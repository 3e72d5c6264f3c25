"""What a report says around the numbers: system descriptions and caveats, section coverage, and
judge-agreement results found beside the predictions."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from admitdx.contracts import MATCHES_DIR, Instance
from admitdx.runs import read_manifest

COVERAGE_FILE = "coverage.csv"


def _manifest_inputs(predictions_dir: Path) -> dict[str, Any]:
    inputs = (read_manifest(predictions_dir) or {}).get("inputs")
    return inputs if isinstance(inputs, dict) else {}


def system_entry(predictions_dir: Path) -> dict[str, Any]:
    """The ``system`` record (name, kind, options) of the predictions' manifest; {} without one."""
    system = _manifest_inputs(predictions_dir).get("system")
    return system if isinstance(system, dict) else {}


def _registration(predictions_dir: Path) -> Any:
    kind = system_entry(predictions_dir).get("kind")
    if not kind:
        return None
    from admitdx.systems import registered  # imports every system's dependencies: only when needed

    return registered().get(kind)


def system_description(predictions_dir: Path) -> str | None:
    """How the system describes itself: a description in the predictions' manifest, else the
    registry's description of the system kind the manifest names (None without a manifest)."""
    system = system_entry(predictions_dir)
    if system.get("description"):
        return str(system["description"])
    spec = _registration(predictions_dir)
    return spec.description if spec else None


def caveat_for(predictions_dir: Path) -> str | None:
    """The caveat the system's registration attaches to this run (e.g. a toy local model)."""
    spec = _registration(predictions_dir)
    return spec.caveat(_manifest_inputs(predictions_dir)) if spec and spec.caveat else None


def section_coverage(dataset_dir: Path, instances: Sequence[Instance]) -> dict[str, float]:
    """Share of encounters in which each evidence section is present (EarlyDx figure 3).

    Read from the dataset's ``coverage.csv`` when the builder wrote one (column ``section`` and
    ``dataset_fraction``, the share among the dataset's encounters, or ``fraction``); otherwise
    counted from the evaluated instances (non-empty section text).
    """
    path = Path(dataset_dir) / COVERAGE_FILE
    if path.exists():
        with path.open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        column = next((c for c in ("dataset_fraction", "fraction") if rows and c in rows[0]), None)
        if column and "section" in rows[0]:
            return {r["section"]: float(r[column]) for r in rows}
    names: list[str] = []
    for inst in instances:
        names += [n for n in inst.sections if n not in names]
    n = len(instances) or 1
    return {s: sum(bool(i.sections.get(s)) for i in instances) / n for s in names}


def absent_sections(dataset_dir: Path) -> list[str]:
    """Sections no encounter can have: the builder's ``sections_absent_source`` (its source module
    is not in the MIMIC root, e.g. ECG or notes in the open demo), or, for a derived dataset such
    as an audited copy whose manifest does not carry it, the sections present in no cohort stay of
    ``coverage.csv``. A report shows these as absent rather than as a measured 0 %."""
    outputs = (read_manifest(Path(dataset_dir)) or {}).get("outputs")
    if isinstance(outputs, dict) and isinstance(outputs.get("sections_absent_source"), list):
        return [str(s) for s in outputs["sections_absent_source"]]
    path = Path(dataset_dir) / COVERAGE_FILE
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return [r["section"] for r in rows if r.get("cohort_present") == "0"]


def find_agreement(prediction_dirs: Sequence[Path]) -> list[dict[str, Any]]:
    """Judge-agreement results written by ``admitdx agree`` (``matches/agreement_A_vs_B.json``)."""
    found: list[dict[str, Any]] = []
    seen: set[Path] = set()
    for d in prediction_dirs:
        for path in sorted(Path(d).glob(f"{MATCHES_DIR}/agreement_*.json")):
            if path.resolve() in seen:
                continue
            seen.add(path.resolve())
            data = json.loads(path.read_text(encoding="utf-8"))
            found.append({"source": str(path), "result": data})
    return found
