"""The lab line as the EarlyDx authors' builder prints it (``lab_format`` "authors").

Their code (github.com/jimmylihui/EarlyDx, pipeline/build_planA.py at b79ac61) takes the
admission's results in labevents order (``lab_scope`` "admission"; under "ed-stay" the stay's),
keeps those charted by the cutoff, sorts them by charttime, keeps the first result of each itemid,
sorts again by "abnormal" descending — both with pandas' default unstable sort, reproduced by
:func:`~admitdx.tasks.sections.pandas_order.pandas_order` — and prints ``label value*`` joined by
"; ", cut at 700 characters wherever that falls, with the number of distinct results in the header:
"Initial labs (35): Red Blood Cells 3.51*; …". The value prints as pandas prints the column
(``pandas_print``: as written in MIMIC, "78.0" from an all-numeric one); one pandas reads as
missing (empty, "NA", "None", …) or containing "___" (MIMIC's
de-identification) prints the numeric value with ``:g``, else "?".

The section's text is "(N) line", which ``field_format`` "pandas" moves into the header; an admission
with results but none by the cutoff gives "(0) " (they print "Initial labs (0): "), one with no
result at all None ("Initial labs (0): None").
"""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import num
from admitdx.tasks.sections.lab_rows import SCOPE_COLUMN
from admitdx.tasks.sections.lab_rows import TABLE as LAB_ROWS
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.sections.pandas_order import pandas_order
from admitdx.tasks.sections.pandas_print import Kind, column_kinds, pandas_str
from admitdx.tasks.sections.source_order import SOURCE_ROW


def authors_sql(p: SectionOptions, src: MimicSource, label: str, join_items: str) -> str:
    kind = column_kinds(src, "hosp.labevents", ("value",))["value"]
    scope = SCOPE_COLUMN[p.lab_scope]
    return f"""
        SELECT f.stay_id,
               struct_pack(kind := '{kind}',
                           rows := list(struct_pack(itemid := f.itemid, label := {label}, value, valuenum,
                                                    abnormal, t := f.charttime)
                                        ORDER BY f.{SOURCE_ROW}) FILTER (WHERE f.{scope})) AS v
        FROM {LAB_ROWS} f {join_items}
        WHERE f.of_admission OR f.{scope}
        GROUP BY f.stay_id
    """


def pandas_value(value: str | None, valuenum: float | None, kind: Kind) -> str:
    """Their ``labval``: the value as pandas prints it, else the number, else "?"."""
    text = pandas_str(value, kind)
    if text in ("", "nan") or "___" in text:
        return num(valuenum) if valuenum is not None else "?"
    return text


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
        f"{r['label']} {pandas_value(r['value'], r['valuenum'], v['kind'])}{'*' if r['abnormal'] else ''}"
        for r in ordered
    )
    return f"({len(ordered)}) {line[: p.lab_char_budget]}"
