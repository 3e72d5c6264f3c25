"""The records that flow between stages, and their on-disk names (contract version 2).

Field names are stable: every stage reads and writes these and nothing else. Instances come from a
task builder, predictions from a system, matches from a matcher. All are JSON lines on disk.
Files written under version 1 load unchanged: a field a file lacks takes its default, and a key a
reader does not know is ignored. Fields added in version 2 are written only when set, so a record
that uses none of them is byte-identical to its version-1 form.

=================  ====================================  =========================================
record.field       type                                  meaning (version added)
=================  ====================================  =========================================
Instance.id        str                                   unique within the dataset (1)
.subject_id        int                                   the patient: split and bootstrap unit (1)
.task              str                                   the registered task that built it (1)
.split             str                                   train / val / test (1)
.sections          {name: str | None}                    the evidence fields, in input order (1)
.text              str                                   the serialized input a system reads (1)
.references        [Reference]                           gold diagnoses of a ``diagnoses`` task (1)
.target            str | {name: str} | None              gold answer of a ``category`` or ``text``
                                                         task; named texts for multi-part
                                                         answers (2)
.meta              {str: any}                            demographics etc.; a task declares the
                                                         fields that leak a target (1)
.history           str | None                            prior history, apart from acute evidence (1)
.hadm_id/.stay_id  int | None                            MIMIC keys (1)
.t0                str | None                            the prediction time (1)
Prediction.items   [PredictionItem]                      ranked diagnoses (``diagnoses`` tasks) (1)
.answer            str | {name: str} | None              the category or text (other tasks) (2)
.rationale/.raw    str | None                            reasoning; the unparsed model output (1)
.parse_error       str | None                            set when the output could not be read (1)
PredictionItem     text, score, status, confidence       one diagnosis (1)
.code              str | None                            a code the system itself assigned (2)
Match.pairs        [(prediction index, reference index)] one-to-one pairs (1)
=================  ====================================  =========================================

Dataset directory (a builder's ``--out``)::

    instances.jsonl   one Instance per line (+ instances.parquet, same rows)
    manifest.json     inputs, parameters, counts (see runs.py)

Predictions directory (``admitdx predict --out``)::

    predictions.jsonl one Prediction per line, appended as each completes
    manifest.json
    matches/<matcher>.jsonl   one Match per line (written by ``admitdx match``)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import MISSING, asdict, dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any, Literal, TypeVar

from admitdx.errors import InputError, UsageError
from admitdx.jsonl import read_jsonl, read_jsonl_numbered

CONTRACT_VERSION = 2

INSTANCES_FILE = "instances.jsonl"
PREDICTIONS_FILE = "predictions.jsonl"
MATCHES_DIR = "matches"
RESULTS_FILE = "results.json"  # what `admitdx score` writes

EvidenceClass = Literal["supported", "partial", "unsupported"]
Status = Literal["confirmed", "suspected"]
T = TypeVar("T")


@cache
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


def _from_dict(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """Keep only the dataclass's own fields, so newer files with extra keys still load."""
    names = _field_names(cls)
    return {k: v for k, v in data.items() if k in names}


@cache
def _layout(cls: type) -> tuple[frozenset[str], frozenset[str], dict[str, Any]] | None:
    """For :func:`_fast`: (every field name; the fields a record must carry — those without a
    plain default; every field with its default, None for the others, in field order). None for a
    class that :func:`_fast` cannot build (one with a ``__post_init__`` or slots)."""
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        return None
    needed = frozenset(f.name for f in fields(cls) if f.default is MISSING)
    template = {f.name: None if f.default is MISSING else f.default for f in fields(cls)}
    return _field_names(cls), needed, template


def _fast(cls: type[T], data: dict[str, Any]) -> T | None:
    """``cls(**data)`` without the frozen dataclass's per-field ``__setattr__`` calls, for a
    well-formed record: only the class's own fields, every field without a plain default among
    them (what the writers write). None for any other record, which the generic reader then takes
    with its own checks and errors (an unknown key ignored, a missing field a TypeError). The
    attributes are set in field order, as ``__init__`` sets them (``vars`` gives the same dict).
    Loading a dataset of 10k instances is a third faster."""
    layout = _layout(cls)
    if layout is None:
        return None
    names, needed, template = layout
    if not needed <= data.keys() <= names:
        return None
    obj = object.__new__(cls)
    state = obj.__dict__
    state.update(template)
    state.update(data)
    return obj


def _without_unset_v2(record: dict[str, Any], v2_fields: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if not (k in v2_fields and v is None)}


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
        fast = _fast(cls, data)
        return cls(**_from_dict(cls, data)) if fast is None else fast


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
    target: str | dict[str, str] | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Instance:
        references = [Reference.from_dict(r) for r in data.get("references", [])]
        fast = _fast(cls, data)
        if fast is None:
            return cls(**{**_from_dict(cls, data), "references": references})
        fast.__dict__["references"] = references
        return fast

    def to_dict(self) -> dict[str, Any]:
        return _without_unset_v2(asdict(self), ("target",))


@dataclass(frozen=True)
class PredictionItem:
    """One predicted diagnosis, in the system's own rank order; ``code`` when the system itself
    assigned one (a classifier over codes, or an LLM answer mapped to codes as its last step)."""

    text: str
    score: float | None = None
    status: Status | None = None
    confidence: float | None = None
    code: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PredictionItem:
        return cls(**_from_dict(cls, data))


@dataclass(frozen=True)
class Prediction:
    """A system's output for one instance: ``items`` for a diagnosis task, ``answer`` for a
    category or text task. ``raw`` keeps the unparsed model output; a failed parse has
    ``parse_error`` set and no items or answer (it is counted, never dropped)."""

    instance_id: str
    system: str
    items: list[PredictionItem]
    rationale: str | None = None
    raw: str | None = None
    parse_error: str | None = None
    usage: dict[str, Any] | None = None
    latency_s: float | None = None
    answer: str | dict[str, str] | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Prediction:
        kw = _from_dict(cls, data)
        kw["items"] = [PredictionItem.from_dict(i) for i in data.get("items", [])]
        return cls(**kw)

    def to_dict(self) -> dict[str, Any]:
        d = _without_unset_v2(asdict(self), ("answer",))
        d["items"] = [_without_unset_v2(item, ("code",)) for item in d["items"]]
        return d


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
    """Read a dataset directory's instances, optionally one split ("train", "val" or "test")."""
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
    path = Path(predictions_dir) / PREDICTIONS_FILE
    if not path.is_file():
        raise UsageError(
            f"{predictions_dir} holds no predictions ({PREDICTIONS_FILE} is missing)",
            hint=f"run `admitdx predict --dataset DIR --system NAME --out {predictions_dir}` first",
        )
    return [Prediction.from_dict(d) for _, d in prediction_records(path)]


def prediction_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) of a predictions file, each checked for what :class:`Prediction`
    needs — an instance id (a string), a system, a list of items each an object with a text — so
    a damaged line is an InputError naming file and line, never a TypeError in whatever reads it
    next. ``items`` is filled in ([]) where a line has none. The checks are inline: scoring runs
    this loop once per prediction line (5·10^4 for 10k encounters × 5 systems)."""
    for line, record in read_jsonl_numbered(path):
        instance_id = record.get("instance_id")
        items = record.setdefault("items", [])
        if type(instance_id) is not str or "system" not in record or type(items) is not list:
            _refuse_prediction(record, path, line)
        for item in items:
            if type(item) is not dict or "text" not in item:
                _refuse_prediction(record, path, line)
        yield line, record


def _refuse_prediction(record: dict[str, Any], path: Path, line: int) -> None:
    """Say what :class:`Prediction` misses in a line."""
    missing = [k for k in ("instance_id", "system") if k not in record]
    items = record["items"]
    if missing:
        problem = "no " + " and no ".join(missing)
    elif not isinstance(record["instance_id"], str):
        problem = "its instance_id is not a string"
    elif not isinstance(items, list):
        problem = "its items are not a list"
    else:
        k = next(k for k, item in enumerate(items) if not (isinstance(item, dict) and "text" in item))
        problem = f"item {k} is not an object with a text"
    raise InputError(
        f"not a prediction: {problem}",
        table=str(path),
        row=line,
        hint="the file was edited or damaged; restore it, or rerun `admitdx predict`",
    )
