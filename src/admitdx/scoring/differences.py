"""Each system's difference with the highest-scoring system of a run, per headline metric, with its
paired patient-bootstrap interval: ``differences.json`` beside ``results.json``.

Paired: the replicates of both systems come from the same resampled patients (the run's one weight
matrix, :mod:`admitdx.metrics.bootstrap`), so each replicate difference compares like with like and
the interval is that of the difference, not two overlapping intervals read by eye. A difference is
*marked* only where its interval excludes 0. "Highest" is by point value (ties: the first system
in the run's order); the leaderboard shows it for its primary metrics, which are all
higher-is-better, and calls it the best. A separate file so that results.json keeps its bytes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

DIFFERENCES_FILE = "differences.json"


def differences(
    systems: Sequence[dict[str, Any]],
    replicates: dict[str, dict[str, np.ndarray]],
    metrics: Sequence[str],
    confidence: float,
) -> dict[str, Any]:
    """``{metric: {"best": name, "systems": {name: {"difference", "ci", "excludes_zero"}}}}`` for every
    metric in ``metrics`` that at least one system has a value for; ``systems`` are results.json's
    entries in run order, ``replicates`` their headline replicates by system name."""
    lo_q, hi_q = 100 * (1 - confidence) / 2, 100 * (1 + confidence) / 2
    out: dict[str, Any] = {}
    for metric in metrics:
        values = {s["name"]: (s["metrics"].get(metric) or {}).get("value") for s in systems}
        scored = [name for name, v in values.items() if v is not None]
        if not scored:
            continue
        best = max(scored, key=lambda name: values[name])  # max keeps the first of equal values
        rows: dict[str, Any] = {}
        for name in scored:
            row: dict[str, Any] = {
                "difference": values[name] - values[best],
                "ci": None,
                "excludes_zero": False,
            }
            if name != best and metric in replicates[name] and metric in replicates[best]:
                diff = replicates[name][metric] - replicates[best][metric]
                diff = diff[np.isfinite(diff)]
                if diff.size:
                    lo, hi = float(np.percentile(diff, lo_q)), float(np.percentile(diff, hi_q))
                    row |= {"ci": [lo, hi], "excludes_zero": lo > 0 or hi < 0}
            rows[name] = row
        out[metric] = {"best": best, "systems": rows}
    return out


def write_differences(out_dir: Path, content: dict[str, Any], n_bootstrap: int, confidence: float) -> Path:
    path = Path(out_dir) / DIFFERENCES_FILE
    record = {"n_bootstrap": n_bootstrap, "confidence": confidence, "paired": "patients", "metrics": content}
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
