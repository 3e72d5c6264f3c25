"""How far a run's matcher can be trusted: its precision and recall on the adjudicated pair set,
and how many of the pairs it accepted are not string-identical (the ones a reader should audit).

The guarded matcher carries its calibration record in every match summary. For the other offline
matchers, ``bench/bench_matcher_agreement.py --record`` measures them on the adjudicated set with
their default parameters and writes ``data/adjudicated_scores.json``; a run whose matcher parameters
differ from the measured ones is said to be unmeasured rather than given numbers that are not its
own. :func:`matcher_quality` is what scoring copies into results.json and every report prints.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from admitdx.contracts import MATCHES_DIR

SCORES_FILE = Path(str(resources.files("admitdx.matching") / "data" / "adjudicated_scores.json"))


def recorded_scores(path: Path = SCORES_FILE) -> dict[str, Any]:
    """Matcher name → {params, precision, recall, agreement, set_version} as the bench recorded them."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _summary(directory: Path, label: str) -> dict[str, Any] | None:
    path = Path(directory) / MATCHES_DIR / f"{label}.summary.json"
    if not path.exists():
        return None
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return None
    return loaded if isinstance(loaded, dict) else None


def matcher_quality(label: str, directories: Sequence[Path]) -> dict[str, Any]:
    """The matcher of ``matches/<label>.jsonl`` in each predictions directory: its precision and recall
    on the adjudicated set (None when not measured with these parameters) and the accepted
    non-identical pairs per system (None where the matcher does not count them)."""
    summaries = {Path(d).name: _summary(d, label) for d in directories}
    first = next((s for s in summaries.values() if s), None) or {}
    name = first.get("matcher", label)
    measured = first.get("calibration")
    if measured is None:
        recorded = recorded_scores().get(name)
        same_params = (
            recorded and {k: first.get("params", {}).get(k) for k in recorded["params"]} == recorded["params"]
        )
        measured = recorded if same_params else None
    quality: dict[str, Any] = {
        "matcher": name,
        "precision": measured.get("precision") if measured else None,
        "recall": measured.get("recall") if measured else None,
        "agreement": measured.get("agreement") if measured else None,
        "set_version": measured.get("set_version") if measured else None,
        "accepted_non_identical": {
            system: (s or {}).get("accepted_non_identical") for system, s in summaries.items()
        },
    }
    if measured and "thresholds" in measured:
        quality["thresholds"] = measured["thresholds"]
        quality["precision_floor"] = measured.get("precision_floor")
    return quality


def quality_line(quality: dict[str, Any] | None) -> str:
    """One sentence for a report: the matcher, its precision and recall, the non-identical pairs."""
    if not quality:
        return ""
    name = quality["matcher"]
    if quality.get("precision") is None:
        measured = "not measured on the adjudicated pair set with these parameters"
    else:
        measured = (
            f"precision {quality['precision']:.3f}, recall {quality['recall']:.3f} on the adjudicated "
            f"pair set {quality['set_version']}"
        )
    counts = {k: v for k, v in (quality.get("accepted_non_identical") or {}).items() if v is not None}
    pairs = (
        "; accepted pairs not identical in wording: " + ", ".join(f"{k} {v}" for k, v in counts.items())
        if counts
        else ""
    )
    return f"matcher {name}: {measured}{pairs}"
