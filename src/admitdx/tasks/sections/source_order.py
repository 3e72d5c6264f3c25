"""Rows numbered in the order their source table lists them — the order the authors' pandas
builder keeps when it takes "the first 12", "the first 8" or "the last" row without sorting.

EarlyDx's parameters offer that order as the alternative to admitdx's explicit sort where the paper
states no rule (``home_meds_order``, ``omr_same_day``, ``echo_rows``, ``prior_dx_order``). DuckDB
numbers the rows with ``row_number() OVER ()``: an empty window is evaluated by a streaming
operator that keeps the scan's order, whatever the thread count or ``preserve_insertion_order``
(the EarlyDx builder turns that setting off). The number is a position in *this copy* of the
table: the same rows in another file order (a re-sorted CSV, a Parquet conversion) give another
selection, which is why none of these orders is a default.
"""

from __future__ import annotations

#: The column :func:`numbered` adds.
SOURCE_ROW = "source_row"


def numbered(table: str) -> str:
    """A subquery over ``table`` (a qualified view name) with ``source_row``: 1, 2, … in file order."""
    return f"(SELECT *, row_number() OVER () AS {SOURCE_ROW} FROM {table})"
