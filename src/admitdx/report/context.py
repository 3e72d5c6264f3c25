"""What a report says around the numbers: system descriptions and caveats, section coverage, and
judge-agreement results found beside the predictions."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from admitdx.contracts import Instance
from admitdx.runs import read_manifest

CAVEAT_PHRASES = ("proves the path", "not clinical skill")
CAVEAT = "This system shows that the pipeline runs end to end; its scores say nothing about clinical skill."
COVERAGE_FILE = "coverage.csv"


def system_description(predictions_dir: Path) -> str | None:
    """How the system describes itself: a description in the predictions' manifest, else the
    registry's description of the system kind the manifest names (None without a manifest)."""
    manifest = read_manifest(predictions_dir) or {}
    system = (manifest.get("inputs") or {}).get("system") or {}
    if not isinstance(system, dict):
        return None
    if system.get("description"):
        return str(system["description"])
    if not system.get("kind"):
        return None
    from admitdx.systems import registered  # imports every system's dependencies: only when needed

    spec = registered().get(system["kind"])
    return spec.description if spec else None


def caveat_for(description: str | None) -> str | None:
    """A caveat line when a system's own description says it proves the path, not clinical skill."""
    if description and any(p in description.lower() for p in CAVEAT_PHRASES):
        return CAVEAT
    return None


def section_coverage(dataset_dir: Path, instances: Sequence[Instance]) -> dict[str, float]:
    """Share of encounters in which each evidence section is present (EarlyDx figure 3).

    Read from the dataset's ``coverage.csv`` (columns ``section`` and ``fraction``) when the
    builder wrote one; otherwise counted from the evaluated instances (non-empty section text).
    """
    path = Path(dataset_dir) / COVERAGE_FILE
    if path.exists():
        with path.open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        if rows and {"section", "fraction"} <= set(rows[0]):
            return {r["section"]: float(r["fraction"]) for r in rows}
    names: list[str] = []
    for inst in instances:
        names += [n for n in inst.sections if n not in names]
    n = len(instances) or 1
    return {s: sum(bool(i.sections.get(s)) for i in instances) / n for s in names}


def find_agreement(prediction_dirs: Sequence[Path]) -> list[dict[str, Any]]:
    """Judge-agreement results (``agreement*.json``) written by ``admitdx agree`` beside the predictions."""
    found: list[dict[str, Any]] = []
    seen: set[Path] = set()
    for d in prediction_dirs:
        for path in sorted(Path(d).glob("**/agreement*.json")):
            if path.resolve() in seen:
                continue
            seen.add(path.resolve())
            data = json.loads(path.read_text(encoding="utf-8"))
            found.append({"source": str(path), "result": data})
    return found
