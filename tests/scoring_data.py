"""A tiny hand-built dataset, predictions and exact-match pairs for the scoring and report tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from admitdx.contracts import Instance, Match, Prediction, PredictionItem, Reference
from admitdx.jsonl import write_jsonl
from predict_manifests import write_predict_manifest


def ref(
    text: str, cls: str | None, code: str | None = None, explicit: bool | None = None, seq: int = 1
) -> Reference:
    system = None if code is None else ("ICD-10-CM" if code[0].isalpha() else "ICD-9-CM")
    return Reference(
        text=text, code=code, code_system=system, evidence_class=cls, explicit=explicit, seq_num=seq
    )


def instances(audited: bool = True) -> list[Instance]:
    """Six test encounters of four patients (two patients have two), plus one training encounter."""
    c = (lambda x: x) if audited else (lambda x: None)
    rows = [
        (
            "e1",
            1,
            [
                ref("NSTEMI", c("supported"), "I214", True, 1),
                ref("Hypertension", c("partial"), "I10", False, 2),
            ],
            {
                "age": 71,
                "sex": "M",
                "race": "WHITE",
                "language": "ENGLISH",
                "acuity": 2,
                "arrival": "AMBULANCE",
            },
        ),
        (
            "e2",
            1,
            [
                ref("Sepsis", c("supported"), "A419", False, 1),
                ref("Pneumonia", c("supported"), "J189", True, 2),
                ref("Diabetes", c("unsupported"), "E119", None, 3),
            ],
            {
                "age": 72,
                "sex": "M",
                "race": "WHITE",
                "language": "ENGLISH",
                "acuity": 1,
                "arrival": "AMBULANCE",
            },
        ),
        (
            "e3",
            2,
            [ref("Hip fracture", c("supported"), "S72001A", True, 1)],
            {
                "age": 88,
                "sex": "F",
                "race": "BLACK/AFRICAN AMERICAN",
                "language": "?",
                "acuity": 3,
                "arrival": "WALK IN",
            },
        ),
        (
            "e4",
            3,
            [ref("COPD", c("partial"), "J449", False, 1)],
            {
                "age": 55,
                "sex": "F",
                "race": "ASIAN - CHINESE",
                "language": "SPANISH",
                "acuity": 3,
                "arrival": "WALK IN",
            },
        ),
        (
            "e5",
            4,
            [
                ref("Pulmonary embolism", c("supported"), "I269", False, 1),
                ref("Atrial fibrillation", c("partial"), "I4891", True, 2),
            ],
            {
                "age": 40,
                "sex": "M",
                "race": "HISPANIC/LATINO",
                "language": "ENGLISH",
                "acuity": 2,
                "arrival": "AMBULANCE",
            },
        ),
        (
            "e6",
            4,
            [ref("Urinary tract infection", c("supported"), "N390", True, 1)],
            {
                "age": 41,
                "sex": "M",
                "race": "HISPANIC/LATINO",
                "language": "ENGLISH",
                "acuity": 4,
                "arrival": "WALK IN",
            },
        ),
    ]
    out = [
        Instance(
            id=i,
            subject_id=s,
            task="earlydx",
            split="test",
            sections={
                "triage": "chief complaint",
                "labs": "troponin" if i in {"e1", "e2"} else None,
                "ecg": None,
            },
            text="x",
            references=refs,
            meta=meta,
        )
        for i, s, refs, meta in rows
    ]
    out.append(
        Instance(
            id="t1",
            subject_id=9,
            task="earlydx",
            split="train",
            sections={},
            text="x",
            references=[ref("NSTEMI", c("supported"), "I214")],
            meta={},
        )
    )
    return out


def write_dataset(root: Path, insts: list[Instance]) -> Path:
    write_jsonl(root / "instances.jsonl", (i.to_dict() for i in insts))
    return root


def write_system(
    root: Path,
    name: str,
    insts: list[Instance],
    choose: Callable[[Instance], list[tuple[str, int | None]]],
    *,
    parse_error_ids: frozenset = frozenset(),
    suspected: Callable[[Instance, int], bool] = lambda i, k: False,
) -> Path:
    """Predictions: ``choose`` returns (text, matched reference index or None) per item, in rank order;
    the pairs written are exactly those indices (an exact-match matcher by hand)."""
    d = root / name
    preds, matches = [], []
    for inst in insts:
        if inst.split != "test":
            continue
        chosen = [] if inst.id in parse_error_ids else choose(inst)
        items = [
            PredictionItem(text=t, status="suspected" if suspected(inst, k) else None)
            for k, (t, _) in enumerate(chosen)
        ]
        preds.append(
            Prediction(
                instance_id=inst.id,
                system=name,
                items=items,
                raw="...",
                parse_error="bad JSON" if inst.id in parse_error_ids else None,
            ).to_dict()
        )
        pairs = [(k, j) for k, (_, j) in enumerate(chosen) if j is not None]
        matches.append(Match(instance_id=inst.id, system=name, matcher="exact", pairs=pairs).to_dict())
    write_jsonl(d / "predictions.jsonl", preds)
    write_jsonl(d / "matches" / "exact.jsonl", matches)
    write_predict_manifest(d, insts)
    return d


def oracle(classes: set[str] | None) -> Callable[[Instance], list[tuple[str, int | None]]]:
    """Copy the references of the given evidence classes (None: all), each paired with itself."""
    return lambda inst: [
        (r.text, j) for j, r in enumerate(inst.references) if classes is None or r.evidence_class in classes
    ]
