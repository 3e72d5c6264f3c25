"""``admitdx score --log-samples``: ``samples.jsonl`` beside ``results.json``, one line per system and
evaluated instance, readable without the dataset: the reference texts (or the target), the
prediction texts (or the answer), the matched pairs as text, and the instance's metrics from
``per_instance.jsonl`` (like lm-evaluation-harness's ``--log_samples``).

These lines quote MIMIC-derived text: they stay with the user's data, as the dataset does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from admitdx.contracts import Instance, Prediction, load_predictions
from admitdx.jsonl import read_jsonl, write_jsonl

SAMPLES_FILE = "samples.jsonl"


def write_samples(
    out_dir: Path,
    instances: Sequence[Instance],
    systems: dict[str, Path],
    per_instance: Path,
) -> Path:
    """Join ``per_instance.jsonl`` (system, instance_id, counts, pair indices) with the instances and
    each system's predictions (``systems``: name → predictions directory) into ``samples.jsonl``."""
    by_id = {i.id: i for i in instances}
    predictions = {name: {p.instance_id: p for p in load_predictions(d)} for name, d in systems.items()}
    path = Path(out_dir) / SAMPLES_FILE
    write_jsonl(path, _samples(read_jsonl(per_instance), by_id, predictions))
    return path


def _samples(
    records: Iterator[dict[str, Any]],
    instances: dict[str, Instance],
    predictions: dict[str, dict[str, Prediction]],
) -> Iterator[dict[str, Any]]:
    for record in records:
        inst = instances[record["instance_id"]]
        pred = predictions[record["system"]].get(inst.id)
        refs = [r.text for r in inst.references]
        items = [it.text for it in pred.items] if pred else []
        sample: dict[str, Any] = {
            "system": record["system"],
            "instance_id": inst.id,
            "subject_id": inst.subject_id,
        }
        if inst.target is not None or (pred is not None and pred.answer is not None):
            sample["target"] = inst.target
            sample["answer"] = pred.answer if pred else None
        if refs or items:
            sample["references"] = refs
            sample["predictions"] = items
        if "pairs" in record:
            sample["matched"] = [[items[p], refs[r]] for p, r in record["pairs"]]
        sample["raw"] = pred.raw if pred else None
        sample["parse_error"] = pred.parse_error if pred else None
        sample["metrics"] = {
            k: v for k, v in record.items() if k not in ("system", "instance_id", "subject_id", "pairs")
        }
        yield sample
