"""Many encounters at once, as flat arrays: what the metric families compute their count columns from.

Every metric is a ratio of sums of per-encounter counts (:mod:`admitdx.metrics.ratios`). Counting
one encounter at a time costs a Python dict of a few hundred keys per encounter and system (50k
of them for 10k encounters × 5 systems). Here every label, prediction item and match pair of a
whole batch sits in one flat array tagged with its encounter's index, so that each count column
is one ``bincount`` over the batch.

:class:`LabelBatch` depends on the labels alone (evidence tracks, explicitness, condition
membership): a scoring run builds it once and shares it by every system. :class:`AnswerBatch`
holds one system's items and match pairs against it. Both remember derived arrays (a track's
label mask, a condition set's memberships), so families that share them compute them once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from admitdx.contracts import PredictionItem, Reference
from admitdx.errors import InputError
from admitdx.ontology.codesets import ConditionSet


def check_pairs(pairs: Sequence[tuple[int, int]], n_pred: int, n_ref: int, instance_id: str = "?") -> None:
    """Pairs must be in range and one-to-one: a prediction or label used twice would inflate m."""
    preds = [p for p, _ in pairs]
    refs = [r for _, r in pairs]
    bad = [(p, r) for p, r in pairs if not (0 <= p < n_pred and 0 <= r < n_ref)]
    if bad:
        raise InputError(
            f"match pair {bad[0]} is out of range ({n_pred} predictions, {n_ref} references)",
            table="matches",
            row=None,
            column=f"pairs of {instance_id}",
            hint="the matches were made for other predictions or another dataset; rerun `admitdx match`",
        )
    if len(set(preds)) != len(preds) or len(set(refs)) != len(refs):
        raise InputError(
            f"match pairs of {instance_id} are not one-to-one: {list(pairs)}",
            table="matches",
            column="pairs",
            hint="each prediction and each reference may appear in at most one pair",
        )


def count_per_encounter(encounter: np.ndarray, n: int, weights: np.ndarray | None = None) -> np.ndarray:
    """(n,) float counts: how many entries (or how much ``weights``) each encounter has."""
    if weights is None:
        return np.bincount(encounter, minlength=n).astype(np.float64)
    return np.bincount(encounter, weights=weights.astype(np.float64), minlength=n)


def any_per_encounter(encounter: np.ndarray, n: int, flags: np.ndarray) -> np.ndarray:
    """(n × k) bool: does any entry of the encounter have flag j (``flags`` is entries × k)?"""
    out = np.zeros((n, flags.shape[1]), dtype=bool)
    for j in range(flags.shape[1]):
        out[:, j] = np.bincount(encounter[flags[:, j]], minlength=n) > 0
    return out


class LabelBatch:
    """The reference labels of a sequence of encounters, flattened in encounter order."""

    def __init__(self, references: Sequence[Sequence[Reference]]) -> None:
        self.n = len(references)
        self.n_labels = np.fromiter((len(r) for r in references), dtype=np.int64, count=self.n)
        self.offset = np.cumsum(self.n_labels) - self.n_labels  # index of each encounter's first label
        self.encounter = np.repeat(np.arange(self.n, dtype=np.int64), self.n_labels)
        self.labels: list[Reference] = [r for refs in references for r in refs]
        self.evidence = np.array([r.evidence_class for r in self.labels], dtype=object)
        self.explicit = np.array([r.explicit is True for r in self.labels], dtype=bool)
        self.implicit = np.array([r.explicit is False for r in self.labels], dtype=bool)
        self.partial = self.evidence == "partial"
        self._classes: dict[frozenset[str] | None, np.ndarray] = {}
        self._members: dict[ConditionSet, np.ndarray] = {}  # condition sets hash by identity
        self._recorded: dict[tuple[ConditionSet, frozenset[str] | None], np.ndarray] = {}

    def in_classes(self, classes: frozenset[str] | None) -> np.ndarray:
        """(labels,) bool: is the label's evidence class among ``classes`` (None: every label)?"""
        if classes not in self._classes:
            mask = np.full(len(self.labels), classes is None, dtype=bool)
            for name in sorted(classes or ()):
                mask |= self.evidence == name
            self._classes[classes] = mask
        return self._classes[classes]

    def members(self, conditions: ConditionSet) -> np.ndarray:
        """(labels × conditions) bool: which conditions each label belongs to (by code, else text)."""
        if conditions not in self._members:
            names = [conditions.of_reference(r) for r in self.labels]
            self._members[conditions] = _membership(names, conditions)
        return self._members[conditions]

    def recorded(self, conditions: ConditionSet, classes: frozenset[str] | None) -> np.ndarray:
        """(encounters × conditions) bool: a label of the condition among the encounter's labels in
        ``classes``."""
        key = (conditions, classes)
        if key not in self._recorded:
            on = self.in_classes(classes)
            self._recorded[key] = any_per_encounter(self.encounter[on], self.n, self.members(conditions)[on])
        return self._recorded[key]


class AnswerBatch:
    """One system's prediction items and match pairs for the encounters of a :class:`LabelBatch`.

    ``items[i]`` and ``pairs[i]`` belong to encounter i; pairs are (prediction index, reference
    index) within the encounter and are checked with :func:`check_pairs` (the first offending
    encounter is named, by ``ids`` when given).
    """

    def __init__(
        self,
        labels: LabelBatch,
        items: Sequence[Sequence[PredictionItem]],
        pairs: Sequence[Sequence[tuple[int, int]]],
        ids: Sequence[str] | None = None,
    ) -> None:
        flat = [item for xs in items for item in xs]
        self._build(
            labels,
            [len(x) for x in items],
            [item.text for item in flat],
            [item.status == "suspected" for item in flat],
            pairs,
            ids,
        )

    @classmethod
    def from_flat(
        cls,
        labels: LabelBatch,
        n_pred: Sequence[int],
        texts: list[str],
        suspected: Sequence[bool],
        pairs: Sequence[Sequence[Sequence[int]]],
        ids: Sequence[str] | None = None,
    ) -> AnswerBatch:
        """The same batch from items already flattened in encounter order: ``n_pred[i]`` items of
        encounter i, with their texts and suspected flags (the scorer reads prediction lines into
        these without building an object per item)."""
        batch = cls.__new__(cls)
        batch._build(labels, n_pred, texts, suspected, pairs, ids)
        return batch

    def _build(
        self,
        labels: LabelBatch,
        n_pred: Sequence[int],
        texts: list[str],
        suspected: Sequence[bool],
        pairs: Sequence[Sequence[Sequence[int]]],
        ids: Sequence[str] | None,
    ) -> None:
        n = labels.n
        self.labels = labels
        self.n_pred = np.fromiter(n_pred, dtype=np.int64, count=n)
        self.item_encounter = np.repeat(np.arange(n, dtype=np.int64), self.n_pred)
        self.texts = texts
        self.suspected = np.fromiter(suspected, dtype=bool, count=len(texts))
        n_pairs = np.fromiter(map(len, pairs), dtype=np.int64, count=n)
        self.pair_encounter = np.repeat(np.arange(n, dtype=np.int64), n_pairs)
        flat_pairs = np.array([pair for ps in pairs for pair in ps], dtype=np.int64).reshape(-1, 2)
        self.pair_pred, pair_ref = flat_pairs[:, 0], flat_pairs[:, 1]
        self._check(pairs, pair_ref, ids)
        self.pair_item = (np.cumsum(self.n_pred) - self.n_pred)[self.pair_encounter] + self.pair_pred
        self.pair_label = labels.offset[self.pair_encounter] + pair_ref
        self._flagged: dict[tuple[ConditionSet, bool], np.ndarray] = {}
        self._named: dict[ConditionSet, np.ndarray] = {}
        self._text_codes: tuple[list[str], np.ndarray] | None = None

    def _check(
        self, pairs: Sequence[Sequence[Sequence[int]]], pair_ref: np.ndarray, ids: Sequence[str] | None
    ) -> None:
        """Find the first encounter whose pairs are out of range or not one-to-one, and let
        :func:`check_pairs` say what is wrong with it."""
        enc = self.pair_encounter
        bad = (self.pair_pred < 0) | (self.pair_pred >= self.n_pred[enc])
        bad |= (pair_ref < 0) | (pair_ref >= self.labels.n_labels[enc])
        for column in (self.pair_pred, pair_ref):
            low = int(column.min(initial=0))
            span = int(column.max(initial=0)) - low + 1
            keyed = enc * span + (column - low)  # one key per (encounter, index), negatives included
            _, inverse, counts = np.unique(keyed, return_inverse=True, return_counts=True)
            bad |= counts[inverse] > 1  # an index used twice in one encounter
        for i in np.unique(enc[bad]).tolist():
            check_pairs(
                [(p, r) for p, r in pairs[i]],
                int(self.n_pred[i]),
                int(self.labels.n_labels[i]),
                ids[i] if ids else "?",
            )

    def flagged(self, conditions: ConditionSet, *, firm_only: bool = False) -> np.ndarray:
        """(encounters × conditions) bool: an item names the condition, by its text or by the label
        it is paired with; ``firm_only`` counts only items not marked suspected."""
        key = (conditions, firm_only)
        if key not in self._flagged:
            named = self._item_conditions(conditions)
            if firm_only:
                named = named & ~self.suspected[:, None]
            self._flagged[key] = any_per_encounter(self.item_encounter, self.labels.n, named)
        return self._flagged[key]

    def _item_conditions(self, conditions: ConditionSet) -> np.ndarray:
        """(items × conditions) bool: conditions an item names by text, or through its paired label."""
        if conditions not in self._named:
            if self._text_codes is None:
                vocabulary = {t: k for k, t in enumerate(dict.fromkeys(self.texts))}  # first-seen order
                codes = np.fromiter(map(vocabulary.__getitem__, self.texts), np.int64, len(self.texts))
                self._text_codes = (list(vocabulary), codes)
            vocabulary_texts, codes = self._text_codes
            named = _membership([conditions.named_in(t) for t in vocabulary_texts], conditions)[codes]
            named[self.pair_item] |= self.labels.members(conditions)[self.pair_label]
            self._named[conditions] = named
        return self._named[conditions]


def _membership(sets: Sequence[frozenset[str]], conditions: ConditionSet) -> np.ndarray:
    """(len(sets) × conditions) bool from condition-name sets; each distinct set is looked at once
    (most labels and items name no condition)."""
    distinct: dict[frozenset[str], int] = {}
    index = np.array([distinct.setdefault(names, len(distinct)) for names in sets], dtype=np.int64)
    rows = np.array([[c in names for c in conditions.names] for names in distinct], dtype=bool)
    return rows.reshape(len(distinct), len(conditions))[index]


def one_encounter(
    references: Sequence[Reference],
    items: Sequence[PredictionItem],
    pairs: Sequence[tuple[int, int]],
    instance_id: str = "?",
) -> AnswerBatch:
    """A batch of a single encounter: the per-encounter functions of each family are this plus
    :func:`first_row`, so there is one implementation of every count."""
    return AnswerBatch(LabelBatch([references]), [items], [pairs], [instance_id])


def first_row(columns: dict[str, np.ndarray]) -> dict[str, float]:
    """The counts of a batch's first encounter, as ``{column: value}``."""
    return {k: float(v[0]) for k, v in columns.items()}
