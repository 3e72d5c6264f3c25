"""The records that flow between stages, and their on-disk names (contract version 1).

Field names are stable: every stage reads and writes these and nothing else. Instances come from a
task builder, predictions from a system, matches from a matcher. All are JSON lines on disk.

Dataset directory (a builder's ``--out``)::

    instances.jsonl   one Instance per line (+ instances.parquet, same rows)
    manifest.json     inputs, parameters, counts (see runs.py)

Predictions directory (``admitdx predict --out``)::

    predictions.jsonl one Prediction per line, appended as each completes
    manifest.json
    matches/<matcher>.jsonl   one Match per line (written by ``admitdx match``)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any, Literal

from admitdx.errors import UsageError
from admitdx.jsonl import read_jsonl

CONTRACT_VERSION = 1

INSTANCES_FILE = "instances.jsonl"
PREDICTIONS_FILE = "predictions.jsonl"
MATCHES_DIR = "matches"

EvidenceClass = Literal["supported", "partial", "unsupported"]
Status = Literal["confirmed", "suspected"]


@cache
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


def _from_dict(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """Keep only the dataclass's own fields, so newer files with extra keys still load."""
    names = _field_names(cls)
    return {k: v for k, v in data.items() if k in names}


@dataclass(frozen=True)
class Reference:
    """One gold diagnosis label of an instance.

    ``text`` is the label as scored (the ED title by default, or the dictionary long title with
    ``--label-text dictionary``); both spellings are kept. ``evidence_class`` is filled by an
    auditor; ``explicit`` says whether the label is named in the input text.
    """

    text: str
    code: str | None = None
    code_system: str | None = None  # "ICD-9-CM" or "ICD-10-CM"
    seq_num: int | None = None
    ed_title: str | None = None
    dictionary_title: str | None = None
    explicit: bool | None = None
    evidence_class: EvidenceClass | None = None
    evidence_quote: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reference:
        return cls(**_from_dict(cls, data))


@dataclass(frozen=True)
class Instance:
    """One encounter to diagnose.

    ``sections`` holds the acute evidence by name (text, or None when absent) in the order the task
    serializes them; ``history`` is prior history, kept apart from acute evidence on purpose
    (EarlyDx appendix N). ``text`` is the serialized input a system reads.
    """

    id: str
    subject_id: int
    task: str
    split: str
    sections: dict[str, str | None]
    text: str
    references: list[Reference]
    meta: dict[str, Any] = field(default_factory=dict)
    history: str | None = None
    hadm_id: int | None = None
    stay_id: int | None = None
    t0: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Instance:
        kw = _from_dict(cls, data)
        kw["references"] = [Reference.from_dict(r) for r in data.get("references", [])]
        return cls(**kw)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PredictionItem:
    """One predicted diagnosis, in the system's own rank order."""

    text: str
    score: float | None = None
    status: Status | None = None
    confidence: float | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PredictionItem:
        return cls(**_from_dict(cls, data))


@dataclass(frozen=True)
class Prediction:
    """A system's output for one instance. ``raw`` keeps the unparsed model output; a failed parse
    has ``parse_error`` set and empty ``items`` (it is counted, never dropped)."""

    instance_id: str
    system: str
    items: list[PredictionItem]
    rationale: str | None = None
    raw: str | None = None
    parse_error: str | None = None
    usage: dict[str, Any] | None = None
    latency_s: float | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Prediction:
        kw = _from_dict(cls, data)
        kw["items"] = [PredictionItem.from_dict(i) for i in data.get("items", [])]
        return cls(**kw)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Match:
    """One-to-one pairs (prediction index, reference index) found by a matcher for one instance."""

    instance_id: str
    system: str
    matcher: str
    pairs: list[tuple[int, int]]
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        kw = _from_dict(cls, data)
        kw["pairs"] = [tuple(p) for p in data.get("pairs", [])]
        return cls(**kw)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["pairs"] = [list(p) for p in self.pairs]
        return d


def load_instances(dataset_dir: Path, split: str | None = None) -> list[Instance]:
    """Read a dataset directory's instances, optionally one split ("train" or "test")."""
    path = Path(dataset_dir) / INSTANCES_FILE
    if not path.exists():
        raise UsageError(
            f"{dataset_dir} is not a dataset directory (no {INSTANCES_FILE})",
            hint="build one first, e.g. `admitdx build earlydx --mimic DIR --out DIR`",
        )
    return [
        inst
        for inst in (Instance.from_dict(d) for d in read_jsonl(path))
        if split is None or inst.split == split
    ]


def load_predictions(predictions_dir: Path) -> list[Prediction]:
    return [Prediction.from_dict(d) for d in read_jsonl(Path(predictions_dir) / PREDICTIONS_FILE)]
