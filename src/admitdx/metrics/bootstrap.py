"""Patient-level bootstrap: 95 % intervals and paired p-values for ratio metrics.

Encounters of one patient are correlated (same comorbidities, same coding habits), so the
resampling unit is the **patient** (``subject_id``), not the encounter: each replicate draws
patients with replacement and takes all their encounters. Because every metric is a ratio of
column sums (:mod:`admitdx.metrics.ratios`), a replicate's sums are a weighted sum of per-patient
sums, and all replicates are one matrix product ``W @ S`` (W: replicates × patients, the number of
times each patient was drawn; S: patients × columns).

Which patients are resampled (the *universe*): by default, as the authors' evaluator does, the
patients that contribute to the metric's track — those with at least one encounter scored on it
(:func:`universe`); a patient with no supported label is not a draw of the supported track. The
universe of earlier admitdx releases, every patient of the evaluated split for every metric, is
``bootstrap_universe="split"``. Point values do not depend on it; intervals and p-values do.

Intervals are percentile intervals (2.5th, 97.5th by default). The paired test draws the *same*
patients for both systems and reports the two-sided bootstrap p-value with the add-one
correction, ``p = min(1, 2 · (1 + min(#(Δ ≤ 0), #(Δ ≥ 0))) / (B + 1))`` over the B replicate
differences Δ = B − A: a finite resample cannot show that a difference never reverses, so p is
never 0 (at least 2 / (B + 1)). Replicates in which a metric is undefined (e.g. no reference on a
track drawn) are left out of that metric.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from admitdx.metrics.ratios import Ratio, evaluate

N_BOOTSTRAP = 1000
CONFIDENCE = 0.95
SEED = 20260101


def subject_sums(
    subjects: Sequence[int], matrix: np.ndarray, order: Sequence[int] | None = None
) -> np.ndarray:
    """Sum encounter rows per patient; rows follow ``order`` (default: sorted unique subjects).

    A patient in ``order`` with no encounter here gets a zero row, which keeps two systems aligned
    for the paired test.
    """
    order_arr = np.unique(np.asarray(subjects)) if order is None else np.asarray(order)
    position = {s: i for i, s in enumerate(order_arr.tolist())}
    rows = np.fromiter((position[s] for s in subjects), dtype=np.int64, count=len(subjects))
    out = np.zeros((len(order_arr), matrix.shape[1]), dtype=np.float64)
    np.add.at(out, rows, matrix)
    return out


def resample_weights(n_subjects: int, n_boot: int = N_BOOTSTRAP, seed: int = SEED) -> np.ndarray:
    """(n_boot × n_subjects) draw counts: row b says how often each patient is in replicate b."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_subjects, size=(n_boot, n_subjects))
    flat = draws + (np.arange(n_boot, dtype=np.int64) * n_subjects)[:, None]
    counts = np.bincount(flat.ravel(), minlength=n_boot * n_subjects)
    return counts.reshape(n_boot, n_subjects).astype(np.float64)


def universe(
    subjects: Sequence[int], contributes: np.ndarray, n_boot: int = N_BOOTSTRAP, seed: int = SEED
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The resampling universe of one track: (which encounters contribute, the distinct patients
    among them in column order, their draw counts). Depends on the labels only, so every system of
    a run is drawn alike and paired tests stay paired."""
    mask = np.asarray(contributes, dtype=bool)
    order = np.unique(np.asarray(subjects)[mask])
    if not order.size:  # nobody on the track: every replicate is undefined, no interval
        return mask, order, np.zeros((n_boot, 0))
    return mask, order, resample_weights(len(order), n_boot, seed)


def replicate_values(
    ratios: Sequence[Ratio], names: Sequence[str], per_subject: np.ndarray, weights: np.ndarray
) -> dict[str, np.ndarray]:
    """Each ratio on each replicate: one matrix product, then the ratios row-wise."""
    return evaluate(ratios, names, weights @ per_subject)


def intervals(
    replicates: dict[str, np.ndarray], confidence: float = CONFIDENCE
) -> dict[str, tuple[float, float] | None]:
    """Percentile interval of each metric's replicates (None when it was never defined)."""
    lo_q, hi_q = 100 * (1 - confidence) / 2, 100 * (1 + confidence) / 2
    out: dict[str, tuple[float, float] | None] = {}
    for name, values in replicates.items():
        finite = values[np.isfinite(values)]
        out[name] = (
            (float(np.percentile(finite, lo_q)), float(np.percentile(finite, hi_q))) if finite.size else None
        )
    return out


def paired_p_values(
    replicates_a: dict[str, np.ndarray], replicates_b: dict[str, np.ndarray]
) -> dict[str, float | None]:
    """Two-sided paired bootstrap p-value of B − A per metric (same resampled patients for both),
    add-one corrected so that it is never 0 (module docstring)."""
    out: dict[str, float | None] = {}
    for name, a in replicates_a.items():
        diff = replicates_b[name] - a
        diff = diff[np.isfinite(diff)]
        if not diff.size:
            out[name] = None
            continue
        tail = min(int(np.sum(diff <= 0)), int(np.sum(diff >= 0)))
        out[name] = float(min(1.0, 2 * (1 + tail) / (diff.size + 1)))
    return out
