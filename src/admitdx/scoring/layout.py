"""Predictions made on another serialization layout of the same dataset (EarlyDx ``--layout``).

``predict`` records ``inputs_sha256`` — the ids, splits and texts systems read — and scoring
refuses other inputs (:mod:`admitdx.provenance`). When the recorded fingerprint is that of *this*
dataset re-serialized in its other layout, the refusal can say exactly that, and a user who wants
to compare layouts on one gold set (``--allow-other-layout``) may score them, recorded in the
results. The authors' evaluator refuses a mismatched ``input_variant`` the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from admitdx.contracts import Instance
from admitdx.errors import UsageError
from admitdx.provenance import inputs_sha256
from admitdx.runs import read_manifest
from admitdx.tasks.earlydx.serialize import LAYOUTS, layout_of, relayout

ALLOW_FLAG = "--allow-other-layout"


def predicted_layout(instances: Sequence[Instance], predictions_dir: Path) -> str | None:
    """The layout the predictions were made on when it is another layout of these instances, else
    None (same inputs, unknown provenance, another task, or simply other inputs)."""
    recorded = (((read_manifest(predictions_dir) or {}).get("inputs") or {}).get("dataset") or {}).get(
        "inputs_sha256"
    )
    if not recorded or not instances or any(i.task != "earlydx" for i in instances):
        return None
    if recorded == inputs_sha256(instances):
        return None
    current = layout_of(instances[0].text)
    for layout in LAYOUTS:
        if layout != current and inputs_sha256([relayout(i, layout) for i in instances]) == recorded:
            return layout
    return None


def check_layout(
    instances: Sequence[Instance], predictions_dir: Path, *, allow_other_layout: bool
) -> dict[str, Any] | None:
    """None when the predictions were not made on another layout of these instances; else raise,
    or with ``allow_other_layout`` return the provenance record the results carry."""
    layout = predicted_layout(instances, predictions_dir)
    if layout is None:
        return None
    current = layout_of(instances[0].text)
    if not allow_other_layout:
        raise UsageError(
            f"the predictions in {predictions_dir} were made on the {layout!r} layout of this dataset, "
            f"which is serialized in the {current!r} layout",
            hint=f"score them against a build with --layout {layout}, or pass {ALLOW_FLAG} to score "
            "them on this gold set anyway (recorded in the results)",
        )
    return {
        "dataset": "other layout",
        "predicted_layout": layout,
        "scored_layout": current,
        "allowed_by": ALLOW_FLAG,
    }
