"""Patient-level bootstrap: resampling patients, interval and p-value arithmetic, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from admitdx.metrics.bootstrap import (
    intervals,
    paired_p_values,
    replicate_values,
    resample_weights,
    subject_sums,
)
from admitdx.metrics.ratios import Ratio

PRECISION = Ratio("precision", {"tp": 1.0}, {"n_pred": 1.0})
NAMES = ["n_pred", "tp"]


def test_encounters_of_one_patient_are_summed_together() -> None:
    # patient 7 has two encounters, patient 3 one; rows come out in sorted subject order
    matrix = np.array([[2.0, 1.0], [4.0, 4.0], [1.0, 0.0]])
    sums = subject_sums([7, 3, 7], matrix)
    assert sums.tolist() == [[4.0, 4.0], [3.0, 1.0]]
    aligned = subject_sums([3], matrix[1:2], order=[3, 7])
    assert aligned.tolist() == [[4.0, 4.0], [0.0, 0.0]]


def test_replicates_by_hand() -> None:
    per_subject = np.array([[4.0, 4.0], [3.0, 1.0]])  # patient A: 4/4 right, patient B: 1/3
    weights = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    values = replicate_values([PRECISION], NAMES, per_subject, weights)["precision"]
    assert values.tolist() == pytest.approx([1.0, 1 / 3, 5 / 7])


def test_weights_draw_patients_with_replacement_reproducibly() -> None:
    w = resample_weights(50, n_boot=200, seed=1)
    assert w.shape == (200, 50) and (w.sum(axis=1) == 50).all()
    assert np.array_equal(w, resample_weights(50, n_boot=200, seed=1))
    assert not np.array_equal(w, resample_weights(50, n_boot=200, seed=2))
    assert abs(w.mean() - 1.0) < 1e-12


def test_interval_is_percentiles_and_skips_undefined_replicates() -> None:
    reps = {"m": np.arange(101, dtype=float), "undefined": np.full(5, np.nan)}
    out = intervals(reps, confidence=0.9)
    assert out["m"] == pytest.approx((5.0, 95.0))
    assert out["undefined"] is None
    with_nan = intervals({"m": np.array([np.nan, 1.0, 1.0])})
    assert with_nan["m"] == (1.0, 1.0)


def test_interval_contains_the_point_and_narrows_with_more_patients() -> None:
    rng = np.random.default_rng(0)

    def width(n: int) -> float:
        rows = np.column_stack([np.full(n, 2.0), rng.integers(0, 3, n).astype(float)])
        subjects = np.arange(n)
        reps = replicate_values([PRECISION], NAMES, subject_sums(subjects, rows), resample_weights(n, 400))
        lo, hi = intervals(reps)["precision"]
        point = rows[:, 1].sum() / rows[:, 0].sum()
        assert lo <= point <= hi
        return hi - lo

    assert width(1000) < width(40)


def test_paired_p_values() -> None:
    a = {"m": np.array([0.5, 0.6, 0.4, 0.5])}
    assert paired_p_values(a, a)["m"] == 1.0
    better = {"m": a["m"] + 0.1}
    # add-one corrected, (1 + count) / (B + 1) per tail: never 0 (issue 14)
    assert paired_p_values(a, better)["m"] == pytest.approx(2 * (1 + 0) / (4 + 1))
    mixed = {"m": a["m"] + np.array([0.1, 0.1, 0.1, -0.1])}
    assert paired_p_values(a, mixed)["m"] == pytest.approx(2 * (1 + 1) / (4 + 1))
    assert paired_p_values({"m": np.array([np.nan])}, {"m": np.array([1.0])})["m"] is None
