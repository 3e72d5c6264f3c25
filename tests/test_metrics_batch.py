"""Counting a whole batch at once equals counting each encounter alone, and bad pairs name their encounter.

The per-encounter functions are a batch of one, so the hand-computed tests of each family check the
counting rules; what only a batch of many can get wrong is the flattening: which labels, items and
pairs belong to which encounter (offsets), and which encounter an error names.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from admitdx.contracts import PredictionItem, Reference
from admitdx.errors import InputError
from admitdx.metrics.batch import AnswerBatch, LabelBatch
from admitdx.metrics.earlydx import TRACKS, track_columns, track_counts
from admitdx.metrics.graded import graded_columns, graded_counts
from admitdx.metrics.timecritical import (
    condition_columns,
    condition_counts,
    per_condition_columns,
    per_condition_counts,
)

CODES = ["I214", "A419", "I269", "J189", "N390", "K922", "R079", "E119", "I10", None]
LABEL_TEXTS = ["stroke", "pneumonia", "chest pain", "old stroke"]
ITEM_TEXTS = ["Sepsis", "NSTEMI", "Pneumonia", "UTI", "history of stroke", "Syncope", "PE", "Fall"]
CLASSES = ["supported", "partial", "unsupported"]


def random_encounters(
    n: int, seed: int
) -> list[tuple[list[Reference], list[PredictionItem], list[tuple[int, int]]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        refs = [
            Reference(
                text=rng.choice(LABEL_TEXTS),
                code=rng.choice(CODES),
                code_system="ICD-10-CM",
                evidence_class=rng.choice(CLASSES),
                explicit=rng.choice([True, False, None]),
            )
            for _ in range(rng.randint(0, 4))
        ]
        items = [
            PredictionItem(text=rng.choice(ITEM_TEXTS), status=rng.choice(["suspected", None, None]))
            for _ in range(rng.randint(0, 5))
        ]
        k = rng.randint(0, min(len(refs), len(items)))
        pairs = list(zip(rng.sample(range(len(items)), k), rng.sample(range(len(refs)), k), strict=True))
        out.append((refs, items, pairs))
    return out


def test_batch_counts_equal_counts_of_each_encounter_alone() -> None:
    encounters = random_encounters(120, seed=3)
    labels = LabelBatch([refs for refs, _, _ in encounters])
    answers = AnswerBatch(
        labels, [items for _, items, _ in encounters], [pairs for _, _, pairs in encounters]
    )
    checked = 0
    for skip_empty in (True, False):
        for track in TRACKS:
            batch = track_counts(answers, track, skip_empty=skip_empty)
            alone = [track_columns(len(i), r, p, track, skip_empty=skip_empty) for r, i, p in encounters]
            checked += _assert_same(batch, alone)
            batch = graded_counts(answers, track, time_critical_track="supported", skip_empty=skip_empty)
            alone = [
                graded_columns(i, r, p, track, time_critical_track="supported", skip_empty=skip_empty)
                for r, i, p in encounters
            ]
            checked += _assert_same(batch, alone)
    for track in ("all", "supported_partial"):
        checked += _assert_same(
            condition_counts(answers, track=track),
            [condition_columns(i, r, p, track=track) for r, i, p in encounters],
        )
        checked += _assert_same(
            per_condition_counts(answers, track),
            [per_condition_columns(i, r, p, track) for r, i, p in encounters],
        )
    assert checked == 396  # columns compared; many of them are not all zero (below)
    flags = condition_counts(answers)
    assert flags["tc.flagged"].sum() > 10 and flags["tc.recorded"].sum() > 10 and flags["tc.tp"].sum() > 0
    assert graded_counts(answers, "all")["tc_graded.soft"].sum() > 0


def _assert_same(batch: dict[str, np.ndarray], alone: list[dict[str, float]]) -> int:
    assert list(batch) == list(alone[0])
    for key, column in batch.items():
        assert column.tolist() == [row[key] for row in alone], key
    return len(batch)


def test_a_paired_label_flags_its_condition_in_its_own_encounter_only() -> None:
    """Encounter 1's item "chest pain" is paired with its NSTEMI label; encounter 0 has an NSTEMI label
    and an unpaired item: only encounter 1 flags an MI, and both record one."""
    mi = Reference(text="NSTEMI", code="I214", code_system="ICD-10-CM", evidence_class="supported")
    labels = LabelBatch([[mi], [Reference(text="x", evidence_class="partial"), mi], []])
    items = [[PredictionItem(text="chest pain")], [PredictionItem(text="chest pain")], []]
    counts = condition_counts(AnswerBatch(labels, items, [[], [(0, 1)], []]))
    assert counts["tc.myocardial infarction.recorded"].tolist() == [1.0, 1.0, 0.0]
    assert counts["tc.myocardial infarction.flagged"].tolist() == [0.0, 1.0, 0.0]
    assert counts["tc.myocardial infarction.tp"].tolist() == [0.0, 1.0, 0.0]


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        ([[(0, 0)], [(0, 0)], [(1, 0), (0, 0)]], "e2 are not one-to-one"),
        ([[(0, 0)], [(-1, 0)], [(0, 0)]], "pairs of e1"),  # -1 must not be read as encounter 0's index 1
        ([[(0, 0)], [(0, 0)], [(2, 0)]], r"\(2, 0\) is out of range"),
    ],
)
def test_bad_pairs_name_the_first_encounter_that_has_them(pairs: list, message: str) -> None:
    refs = [Reference(text="a", evidence_class="supported")]
    labels = LabelBatch([refs, refs, refs])
    items = [[PredictionItem(text="a"), PredictionItem(text="b")]] * 3
    with pytest.raises(InputError, match=message):
        AnswerBatch(labels, items, pairs, ["e0", "e1", "e2"])
