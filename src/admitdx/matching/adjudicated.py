"""The adjudicated pair set: (prediction, reference) pairs a clinician labelled same or different.

A matcher is judged on it as a binary classifier of pairs: a pair counts as "matched" when the
matcher pairs the one prediction with the one reference. Precision is the share of matched pairs
labelled ``same``, recall the share of ``same`` pairs matched, agreement the share of pairs on
which the matcher and the label agree. These three are what a report prints next to the matcher's
name, and what :mod:`admitdx.matching.guard_calibration` chooses a threshold on.

The file is JSON lines, one pair per line, with the keys ``prediction``, ``reference``,
``reference_icd_code`` (may be empty), ``reference_icd_version`` (9, 10 or empty), ``label``
(``same`` or ``different``), ``class`` (what kind of pair: abbreviation, hypo/hyper, …) and
``reason``. It was written by someone who had not read the matchers' code, before the guarded
matcher existed (``tests/data/blind/pairs/``); the held-out half is never used for tuning.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from admitdx.errors import InputError
from admitdx.matching.base import Matcher, MatchTask

LABELS = ("same", "different")
REQUIRED = ("prediction", "reference", "label")


@dataclass(frozen=True)
class AdjudicatedPair:
    prediction: str
    reference: str
    code: str | None
    code_system: str | None
    same: bool
    kind: str
    reason: str
    pair_id: str = ""


def _system(version: object) -> str | None:
    text = str(version or "").strip()
    return {"9": "ICD-9-CM", "10": "ICD-10-CM"}.get(text)


def _records(path: Path) -> Iterator[tuple[int, dict]]:
    """Each non-empty line's row number and JSON object; a line that is not one is an InputError."""
    with Path(path).open(encoding="utf-8") as f:
        for row, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as e:
                raise InputError(f"not JSON ({e})", table=str(path), row=row) from None
            if not isinstance(record, dict):
                raise InputError("a line must be a JSON object", table=str(path), row=row)
            yield row, record


def read_pairs(path: Path) -> list[AdjudicatedPair]:
    """Read an adjudicated pair file; a bad line is an InputError naming file, row and key."""
    pairs: list[AdjudicatedPair] = []
    for row, record in _records(path):
        for key in REQUIRED:
            if not isinstance(record.get(key), str) or not record[key].strip():
                raise InputError(f"missing or empty {key!r}", table=str(path), column=key, row=row)
        if record["label"] not in LABELS:
            raise InputError(
                f"label must be 'same' or 'different', not {record['label']!r}",
                table=str(path), column="label", row=row,
            )  # fmt: skip
        code = str(record.get("reference_icd_code") or "").strip() or None
        pairs.append(
            AdjudicatedPair(
                prediction=record["prediction"],
                reference=record["reference"],
                code=code,
                code_system=_system(record.get("reference_icd_version")) if code else None,
                same=record["label"] == "same",
                kind=str(record.get("class") or ""),
                reason=str(record.get("reason") or ""),
                pair_id=str(record.get("id") or ""),
            )
        )
    if not pairs:
        raise InputError("no pairs in the file", table=str(path))
    return pairs


def read_second_labels(path: Path, pairs: Sequence[AdjudicatedPair]) -> list[bool]:
    """A second labeller's verdicts on ``pairs``, in their order: a JSON-lines file of ``{"id", "label"}``
    written blind (without the first labels). Each of ``pairs`` must be labelled once; other ids are
    ignored, as a labeller labels a whole file and a measurement may keep only its unseen pairs."""
    labels: dict[str, bool] = {}
    for row, record in _records(path):
        if record.get("label") not in LABELS:
            raise InputError("label must be 'same' or 'different'", table=str(path), column="label", row=row)
        if (key := str(record.get("id") or "")) in labels:
            raise InputError(f"id {key!r} labelled twice", table=str(path), column="id", row=row)
        labels[key] = record["label"] == "same"
    if missing := [p.pair_id for p in pairs if p.pair_id not in labels]:
        raise InputError(
            f"{len(missing)} pairs not labelled, the first {missing[0]!r}", table=str(path), column="id"
        )
    return [labels[p.pair_id] for p in pairs]


def majority(*labellings: Sequence[bool]) -> list[bool]:
    """Each pair's majority label over an odd number of labellings (the adjudicated label)."""
    if len(labellings) % 2 == 0:
        raise ValueError("a majority needs an odd number of labellings")
    return [2 * sum(votes) > len(votes) for votes in zip(*labellings, strict=True)]


def pair_tasks(pairs: Sequence[AdjudicatedPair]) -> list[MatchTask]:
    """One single-pair match task per adjudicated pair (the reference's code travels with it)."""
    return [
        MatchTask(
            instance_id=f"pair-{i}",
            system="adjudicated",
            predictions=[p.prediction],
            references=[p.reference],
            reference_codes=[(p.code, p.code_system)],
        )
        for i, p in enumerate(pairs)
    ]


@dataclass(frozen=True)
class PairScores:
    """How a matcher's verdicts compare with the labels."""

    n_pairs: int
    n_same: int
    matched: int
    true_matches: int
    precision: float
    recall: float
    agreement: float

    @classmethod
    def of(cls, truth: Sequence[bool], matched: Sequence[bool]) -> PairScores:
        tp = sum(1 for t, m in zip(truth, matched, strict=True) if t and m)
        n_matched = sum(1 for m in matched if m)
        n_same = sum(1 for t in truth if t)
        agree = sum(1 for t, m in zip(truth, matched, strict=True) if t == m)
        return cls(
            n_pairs=len(truth),
            n_same=n_same,
            matched=n_matched,
            true_matches=tp,
            precision=round(tp / n_matched, 4) if n_matched else 1.0,
            recall=round(tp / n_same, 4) if n_same else 0.0,
            agreement=round(agree / len(truth), 4) if truth else 0.0,
        )


def matcher_verdicts(matcher: Matcher, pairs: Sequence[AdjudicatedPair]) -> list[bool]:
    """Whether ``matcher`` pairs each adjudicated prediction with its reference."""
    return [bool(o.pairs) for o in matcher.match_many(pair_tasks(pairs))]


def score_matcher(matcher: Matcher, pairs: Sequence[AdjudicatedPair]) -> PairScores:
    """Precision, recall and agreement of ``matcher`` on the adjudicated ``pairs``."""
    return PairScores.of([p.same for p in pairs], matcher_verdicts(matcher, pairs))
