"""Tiny hand-made dataset + predictions directories for the matching tests (written with the contracts)."""

from __future__ import annotations

from pathlib import Path

from tests.predict_manifests import write_predict_manifest

from admitdx.contracts import (
    INSTANCES_FILE,
    PREDICTIONS_FILE,
    Instance,
    Prediction,
    PredictionItem,
    Reference,
)
from admitdx.jsonl import write_jsonl

#: instance id → (references as (text, ICD-10 code), predictions)
CASES: dict[str, tuple[list[tuple[str, str]], list[str]]] = {
    "e1": (
        [("Congestive heart failure, unspecified", "I509"), ("Atrial fibrillation", "I4891")],
        ["CHF", "AFib", "pneumonia"],
    ),
    "e2": ([("Pneumonia, unspecified organism", "J189")], ["Pneumonia, unspecified organism"]),
    "e3": ([("Acute kidney failure, unspecified", "N179")], ["hip fracture"]),
    "e4": ([("Sepsis, unspecified organism", "A419")], []),
    # Same texts as e2: the cache answers it without recomputing.
    "e5": ([("Pneumonia, unspecified organism", "J189")], ["Pneumonia, unspecified organism"]),
}


def write_case_dirs(root: Path, cases: dict = CASES, system: str = "sys") -> tuple[Path, Path]:
    """Write ``root/dataset`` and ``root/pred`` for ``cases``; return both paths."""
    dataset, pred = root / "dataset", root / "pred"
    dataset.mkdir(parents=True, exist_ok=True)
    pred.mkdir(parents=True, exist_ok=True)
    instances = [
        Instance(
            id=iid, subject_id=n, task="earlydx", split="test", sections={}, text="",
            references=[Reference(text=t, code=c, code_system="ICD-10-CM") for t, c in refs],
        )
        for n, (iid, (refs, _)) in enumerate(cases.items())
    ]  # fmt: skip
    predictions = [
        Prediction(instance_id=iid, system=system, items=[PredictionItem(text=t) for t in preds])
        for iid, (_, preds) in cases.items()
    ]
    write_jsonl(dataset / INSTANCES_FILE, (i.to_dict() for i in instances))
    write_jsonl(pred / PREDICTIONS_FILE, (p.to_dict() for p in predictions))
    write_predict_manifest(pred, instances)
    return dataset, pred
