"""The manifest `admitdx predict` writes beside its predictions, for runs a test writes by hand.

`match` and `score` refuse predictions without one (issue 26: with it deleted, another build's
predictions were scored with exit 0), so a hand-made run records, as `predict` does, the
fingerprints of the dataset it was made on (:mod:`admitdx.provenance`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from admitdx.contracts import Instance
from admitdx.jsonl import encode_jsonl
from admitdx.provenance import inputs_sha256
from admitdx.runs import write_manifest


def write_predict_manifest(run: Path, instances: Sequence[Instance]) -> None:
    """A complete run's manifest for predictions made on the dataset of ``instances`` (the bytes
    ``write_jsonl`` gives them, so the dataset may be written before or after)."""
    dataset = {
        "instances_sha256": hashlib.sha256(encode_jsonl([i.to_dict() for i in instances])).hexdigest(),
        "inputs_sha256": inputs_sha256(instances),
    }
    write_manifest(run, stage="predict", inputs={"dataset": dataset}, outputs={"complete": True})
