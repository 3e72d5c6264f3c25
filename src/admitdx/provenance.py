"""Cross-stage provenance: predictions are matched and scored only against the dataset they were
made on.

``predict`` records two fingerprints of its dataset: ``instances_sha256`` (the whole file, labels
included) and ``inputs_sha256`` (what systems could see: each instance's id, split and text).
``match`` and ``score`` compare them with the dataset they are given. Different inputs are always
refused — predictions made on a 6-hour-window build must not be scored against the 0-hour build.
A change that touches labels only (the same predictions scored against two audits of one build)
is allowed with an explicit flag, and the stage records that the flag was used.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from admitdx.contracts import INSTANCES_FILE, Instance
from admitdx.errors import UsageError
from admitdx.runs import read_manifest, sha256_file, sha256_text

ALLOW_FLAG = "--allow-label-change"


def inputs_sha256(instances: Sequence[Instance]) -> str:
    """What systems could read of a dataset: ids, splits and input texts, not labels or targets."""
    return sha256_text(json.dumps([[i.id, i.split, i.text] for i in instances], ensure_ascii=False))


def dataset_fingerprints(dataset_dir: Path, instances: Sequence[Instance]) -> dict[str, str]:
    return {
        "instances_sha256": sha256_file(Path(dataset_dir) / INSTANCES_FILE),
        "inputs_sha256": inputs_sha256(instances),
    }


def check_predictions_dataset(
    dataset_dir: Path,
    instances: Sequence[Instance],
    predictions_dir: Path,
    *,
    allow_label_change: bool,
) -> dict[str, Any]:
    """How the predictions relate to this dataset: ``{"dataset": "same" | "labels changed" |
    "unknown"}``; raises when they were made on other inputs, or on other labels without the flag.

    "unknown": hand-written predictions without a manifest; scored, and said so in the results.
    """
    manifest = read_manifest(predictions_dir)
    recorded = ((manifest or {}).get("inputs") or {}).get("dataset") or {}
    if not recorded.get("instances_sha256"):
        return {"dataset": "unknown", "note": f"{predictions_dir} has no predict manifest"}
    now = dataset_fingerprints(dataset_dir, instances)
    if recorded["instances_sha256"] == now["instances_sha256"]:
        return {"dataset": "same"}
    where = (
        f"{Path(predictions_dir) / 'manifest.json'} records dataset {recorded['instances_sha256'][:12]}…, "
        f"{Path(dataset_dir) / INSTANCES_FILE} is {now['instances_sha256'][:12]}…"
    )
    if recorded.get("inputs_sha256") != now["inputs_sha256"]:
        raise UsageError(
            f"the predictions in {predictions_dir} were made on another dataset ({where}); "
            "their inputs differ, so their scores would describe a different benchmark",
            hint="match and score them against the dataset they were predicted on, or predict again",
        )
    if not allow_label_change:
        raise UsageError(
            f"the predictions in {predictions_dir} were made on the same inputs with other labels ({where})",
            hint=f"pass {ALLOW_FLAG} to score them against these labels (e.g. another audit); it is recorded",
        )
    return {"dataset": "labels changed", "allowed_by": ALLOW_FLAG, **now}
