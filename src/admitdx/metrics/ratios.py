"""Metrics as ratios of column sums, evaluated on plain sums or on a matrix of bootstrap sums.

A :class:`Ratio` names a numerator and a denominator, each a linear combination of per-encounter
count columns. Keeping every metric in this form is what lets one matrix product evaluate all of
them on all bootstrap replicates at once (see :mod:`admitdx.metrics.bootstrap`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Ratio:
    """``Σ num / Σ den`` where each side is ``{column: coefficient}``.

    ``empty`` is the value when the denominator sums to zero (no predictions, no references on a
    track): ``None`` means "undefined" and is reported as such rather than invented.
    """

    name: str
    num: Mapping[str, float]
    den: Mapping[str, float]
    empty: float | None = None

    def columns(self) -> set[str]:
        return set(self.num) | set(self.den)


def f1_ratio(name: str, tp: str, n_pred: str, n_ref: str) -> Ratio:
    """Micro F1 = 2·TP / (|Ŷ| + |Y|): the harmonic mean of pooled precision and recall."""
    return Ratio(name, {tp: 2.0}, {n_pred: 1.0, n_ref: 1.0})


def column_matrix(
    rows: Sequence[Mapping[str, float]], columns: Iterable[str]
) -> tuple[list[str], np.ndarray]:
    """Stack per-encounter rows into an (encounters × columns) float array; absent keys are 0.

    Rows that all have the same keys in the same order (what the metric families produce) are
    stacked in one step; anything else goes key by key.
    """
    names = sorted(set(columns))
    keys = tuple(rows[0]) if rows else ()
    if rows and all(tuple(r) == keys for r in rows):
        full = np.array([list(r.values()) for r in rows], dtype=np.float64)
        position = {k: j for j, k in enumerate(keys)}
        out = np.zeros((len(rows), len(names)), dtype=np.float64)
        for j, c in enumerate(names):
            if c in position:
                out[:, j] = full[:, position[c]]
        return names, out
    index = {c: j for j, c in enumerate(names)}
    out = np.zeros((len(rows), len(names)), dtype=np.float64)
    for i, row in enumerate(rows):
        for key, value in row.items():
            j = index.get(key)
            if j is not None:
                out[i, j] = value
    return names, out


def stack_columns(
    columns: Mapping[str, np.ndarray], wanted: Iterable[str], n_rows: int
) -> tuple[list[str], np.ndarray]:
    """The column-wise counterpart of :func:`column_matrix`: ``{column: (rows,) array}`` stacked into
    an (rows × columns) float array with the wanted columns in sorted order; absent ones are 0."""
    names = sorted(set(wanted))
    zeros = np.zeros(n_rows, dtype=np.float64)
    matrix = np.empty((n_rows, len(names)), dtype=np.float64)
    for j, c in enumerate(names):
        matrix[:, j] = columns.get(c, zeros)
    return names, matrix


def evaluate(ratios: Sequence[Ratio], names: Sequence[str], sums: np.ndarray) -> dict[str, np.ndarray]:
    """Evaluate ratios on column sums.

    ``sums`` is shape (columns,) for a point estimate or (replicates, columns) for the bootstrap.
    Returns one array per ratio (a 0-d array for point estimates); NaN where the denominator is 0
    and the ratio has no ``empty`` value.
    """
    index = {c: j for j, c in enumerate(names)}
    out: dict[str, np.ndarray] = {}
    for r in ratios:
        num = sum(
            (coef * sums[..., index[c]] for c, coef in r.num.items() if c in index), np.zeros(sums.shape[:-1])
        )
        den = sum(
            (coef * sums[..., index[c]] for c, coef in r.den.items() if c in index), np.zeros(sums.shape[:-1])
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(
                den > 0, num / np.where(den > 0, den, 1.0), np.nan if r.empty is None else r.empty
            )
        out[r.name] = value
    return out


def point_estimates(ratios: Sequence[Ratio], rows: Sequence[Mapping[str, float]]) -> dict[str, float | None]:
    """Each ratio over all rows; ``None`` where undefined."""
    cols = set().union(*(r.columns() for r in ratios)) if ratios else set()
    names, matrix = column_matrix(rows, cols)
    values = evaluate(ratios, names, matrix.sum(axis=0))
    return {k: (None if np.isnan(v) else float(v)) for k, v in values.items()}
