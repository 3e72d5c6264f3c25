"""The lab line as the EarlyDx authors' builder prints it (``lab_format`` "authors").

Their code (github.com/jimmylihui/EarlyDx, pipeline/build_planA.py at b79ac61) takes the
admission's results in labevents order, keeps those charted by the cutoff, sorts them by charttime,
keeps the first result of each itemid, sorts again by "abnormal" descending — both with pandas'
default unstable sort, reproduced by :func:`~admitdx.tasks.sections.pandas_order.pandas_order` —
and prints ``label value*`` joined by "; ", cut at 700 characters wherever that falls, with the
number of distinct results in the header: "Initial labs (35): Red Blood Cells 3.51*; …". A value
pandas reads as missing (empty, "nan", "None", "NA", …) or containing "___" (MIMIC's
de-identification) prints the numeric value with ``:g``, else "?".

The section's text is "(N) line", which ``count_in_header`` moves into the header; an admission
with results but none by the cutoff gives "(0) " (they print "Initial labs (0): "), one with no
result at all None ("Initial labs (0): None").
"""

from __future__ import annotations

from typing import Any

from admitdx.tasks.sections.base import num
from admitdx.tasks.sections.lab_rows import TABLE as LAB_ROWS
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.sections.pandas_order import pandas_order
from admitdx.tasks.sections.source_order import SOURCE_ROW

#: Strings pandas.read_csv reads as missing by default (its documented ``na_values``).
PANDAS_NA = frozenset({
    "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
    "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})  # fmt: skip


def authors_sql(p: SectionOptions, label: str, join_items: str) -> str:
    return f"""
        SELECT f.stay_id,
               struct_pack(rows := list(struct_pack(itemid := f.itemid, label := {label}, value, valuenum,
                                                    abnormal, t := f.charttime)
                                        ORDER BY f.{SOURCE_ROW}) FILTER (WHERE f.in_admission)) AS v
        FROM {LAB_ROWS} f {join_items}
        WHERE f.of_admission
        GROUP BY f.stay_id
    """


def pandas_value(value: str | None, valuenum: float | None) -> str:
    """Their ``labval``: the value as written, else the number, else "?"."""
    if value is None or value in PANDAS_NA or value == "" or "___" in value:
        return num(valuenum) if valuenum is not None else "?"
    return value


def authors_render(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    """``v["rows"]``: the admission's results in the window, in file order (None: none)."""
    if v is None:
        return None
    rows = v["rows"] or []
    by_time = [rows[i] for i in pandas_order([r["t"] for r in rows])]
    seen: set[int] = set()
    first = []
    for r in by_time:
        if r["itemid"] not in seen:
            seen.add(r["itemid"])
            first.append(r)
    ordered = [first[i] for i in pandas_order([bool(r["abnormal"]) for r in first], ascending=False)]
    line = "; ".join(
        f"{r['label']} {pandas_value(r['value'], r['valuenum'])}{'*' if r['abnormal'] else ''}"
        for r in ordered
    )
    return f"({len(ordered)}) {line[: p.lab_char_budget]}"
