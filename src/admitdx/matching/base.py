"""What every matcher is: (predictions, references) of one instance in, one-to-one pairs out.

EarlyDx (section 3.5) scores free-text diagnoses by a one-to-one matching between the predicted
set and the reference set: each prediction can account for at most one reference and vice versa,
so listing "NSTEMI" and "myocardial infarction" for one reference earns one match, not two. Every
matcher here returns the matched **pairs** (prediction index, reference index), never only their
count, because recall at k, explicit/implicit recall and per-condition recall all need to know
*which* prediction matched *which* reference.

:func:`assign_one_to_one` is the shared assignment step: given which (prediction, reference)
pairs are acceptable and how good each is, it finds the largest one-to-one set made of the
system's earliest predictions, so that recall at k read off the pairs equals recall of the list
truncated to k (EarlyDx appendix A); quality (similarity) decides which reference each takes.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

Pair = tuple[int, int]


@dataclass(frozen=True)
class MatchTask:
    """One instance's texts as a matcher sees them.

    ``reference_codes`` holds, per reference, its ``(code, code_system)`` (either may be None);
    only code-based matchers read it.
    """

    instance_id: str
    system: str
    predictions: list[str]
    references: list[str]
    reference_codes: list[tuple[str | None, str | None]] = field(default_factory=list)


@dataclass(frozen=True)
class MatchOutcome:
    """A matcher's answer for one task: validated one-to-one pairs plus matcher-specific details."""

    pairs: list[Pair]
    details: dict[str, Any] = field(default_factory=dict)


class Matcher(ABC):
    """A named, parameterised way of pairing predictions with references.

    Subclasses set ``name`` and implement :meth:`match`; they may override :meth:`match_many` to
    batch work (embedding every text of many instances at once). ``uses_codes`` says whether the
    reference codes enter the cache key; ``cacheable`` is False for matchers whose answer depends
    on something other than the texts (the manual matcher reads a reviewer's file).
    """

    name: str = ""
    uses_codes: bool = False
    cacheable: bool = True

    @abstractmethod
    def params(self) -> dict[str, Any]:
        """Every setting that can change the pairs (it enters the cache key and the summary)."""

    @abstractmethod
    def match(self, task: MatchTask) -> MatchOutcome:
        """Pair one instance's predictions with its references."""

    def match_many(self, tasks: Sequence[MatchTask]) -> list[MatchOutcome]:
        """Match several instances; the default runs them one by one."""
        return [self.match(t) for t in tasks]

    def summarize(self, outcomes: Sequence[MatchOutcome]) -> dict[str, Any]:
        """Matcher-specific totals for the run summary (e.g. unmapped share); none by default."""
        return {}

    def close(self) -> None:  # noqa: B027 (optional hook, deliberately not abstract)
        """Release what the matcher holds (a local model server); nothing by default."""

    def cache_key(self, task: MatchTask) -> str:
        """Content hash of (matcher name + params, prediction texts, reference texts[, codes])."""
        payload: dict[str, Any] = {
            "matcher": self.name,
            "params": self.params(),
            "predictions": task.predictions,
            "references": task.references,
        }
        if self.uses_codes:
            payload["reference_codes"] = [list(c) for c in task.reference_codes]
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def check_one_to_one(pairs: Sequence[Sequence[int]], n_predictions: int, n_references: int) -> list[Pair]:
    """Return ``pairs`` as sorted tuples, or raise ValueError if any is out of range or repeated."""
    seen_p: set[int] = set()
    seen_r: set[int] = set()
    out: list[Pair] = []
    for raw in pairs:
        p, r = int(raw[0]), int(raw[1])
        if not (0 <= p < n_predictions and 0 <= r < n_references):
            raise ValueError(f"pair ({p}, {r}) out of range for {n_predictions} x {n_references}")
        if p in seen_p or r in seen_r:
            raise ValueError(f"pair ({p}, {r}) reuses a prediction or reference")
        seen_p.add(p)
        seen_r.add(r)
        out.append((p, r))
    return sorted(out)


def assign_one_to_one(acceptable: np.ndarray, quality: np.ndarray | None = None) -> list[Pair]:
    """Largest one-to-one set of acceptable pairs, using the earliest predictions (Hungarian).

    Which predictions are matched: the rank-greedy choice — go down the system's list and keep a
    prediction whenever it can be added to those kept without losing one (the sets of jointly
    matchable predictions form a transversal matroid, so this greedy choice is a maximum matching
    overall *and*, for every k, among the top-k predictions). Hence recall at k computed from these
    pairs equals recall after truncating the list to k and matching again, and the matched count
    is the maximum, as in EarlyDx's one-to-one matching. Which reference each kept prediction takes
    is then chosen to maximise the total ``quality`` (e.g. cosine similarity, in [0, 1]).

    Implementation: a maximum-weight assignment where pair (i, r) weighs ``(n_p - i) + q[i, r] / c``
    with ``c = min(n_p, n_r) + 1``. The rank parts are distinct positive integers, so a max-weight
    matching of a matroid picks the rank-greedy set; the quality part sums to less than 1 and can
    only break ties between assignments with that same set.
    ``acceptable`` is a boolean (n_predictions x n_references) matrix.
    """
    acceptable = np.asarray(acceptable, dtype=bool)
    n_p, n_r = acceptable.shape if acceptable.ndim == 2 else (0, 0)
    if n_p == 0 or n_r == 0 or not acceptable.any():
        return []
    q = np.zeros(acceptable.shape) if quality is None else np.clip(np.asarray(quality, float), 0.0, 1.0)
    rank_weight = (n_p - np.arange(n_p))[:, None].astype(float)
    weight = np.where(acceptable, rank_weight + q / (min(n_p, n_r) + 1), 0.0)
    rows, cols = linear_sum_assignment(weight, maximize=True)
    return sorted((int(p), int(r)) for p, r in zip(rows, cols, strict=True) if acceptable[p, r])
