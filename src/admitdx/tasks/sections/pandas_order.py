"""The row order pandas' ``DataFrame.sort_values(column)`` gives, for reproducing the EarlyDx authors.

Their builder picks "the last OMR row" and orders lab results after ``sort_values`` with pandas'
default ``kind="quicksort"``, which is not stable: among rows with equal keys (same-day OMR values,
lab results charted at the same minute, every abnormal result) the order is what numpy's introsort
leaves, neither file order nor any column's. Arrays of up to 16 rows are insertion-sorted (stable);
longer ones are partitioned, so the pick depends on how many rows the patient has and in which order
the file lists them.

:func:`pandas_order` makes the same library call on the same values in the same row order: pandas'
``nargsort`` (``pandas/core/sorting.py``) reduced to what a single datetime, boolean or integer
column takes — missing keys set aside and put last, the rest ``np.argsort(kind="quicksort")`` on the
dtype pandas holds them in (datetime64; bool; int64, or float64 when the column has a gap: numpy
sorts each dtype with its own kernel, SIMD ones included, so the dtype decides the order of ties), a
descending sort done by reversing before and after. Checked equal to pandas 3.1.1 / numpy 2.4.6 on
the real demo and the tie fixture (``tests/test_earlydx_byte_reproduction.py``,
``tests/test_earlydx_ties.py``); another numpy may sort ties differently, as it would
for the authors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def pandas_order(keys: Sequence[Any], *, ascending: bool = True) -> list[int]:
    """Positions of ``keys`` (datetimes, dates, booleans or integers; None missing) in sort_values'
    order."""
    if not keys:
        return []
    missing = np.array([k is None for k in keys])
    present = [k for k in keys if k is not None]
    if present and isinstance(present[0], bool):
        values = np.array(present, dtype=bool)
    elif present and isinstance(present[0], int):  # an integer column; a gap makes it float64
        values = np.array(present, dtype="float64" if len(present) < len(keys) else "int64")
    else:
        values = np.array(present, dtype="datetime64[us]")
    idx = np.arange(len(keys))[~missing]
    if not ascending:
        values, idx = values[::-1], idx[::-1]
    order = idx[values.argsort(kind="quicksort")]
    if not ascending:
        order = order[::-1]
    return [int(i) for i in order] + [int(i) for i in np.nonzero(missing)[0]]
