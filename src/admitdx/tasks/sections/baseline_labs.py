"""Baseline labs (the authors' builder; the paper folds them into baseline measurements): the
latest creatinine (itemid 50912) and haemoglobin (51222) before t0 — or, with
``baseline_labs_before="ed-arrival"``, before this ED visit began, so that the value is a true
pre-encounter baseline rather than the ED draw itself. Not moved by the window W: a baseline is by
definition prior. Dated by its charttime whatever ``timestamps`` says (it was drawn before t0);
``baseline_time`` "both" also asks the ``timestamps`` time to precede t0, as the EarlyDx authors do
(under storetime a result drawn before t0 and stored after it is then no baseline).

``tie_order`` "pandas" picks among results charted at the same time as the EarlyDx authors do: the
last row after pandas' unstable sort by charttime of the patient's results in labevents order."""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, num, require
from admitdx.tasks.sections.lab_rows import BASELINE_ITEMS
from admitdx.tasks.sections.lab_rows import TABLE as LAB_ROWS
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.sections.pandas_order import pandas_order
from admitdx.tasks.sections.pandas_print import column_kinds, pandas_str
from admitdx.tasks.sections.source_order import SOURCE_ROW

ITEMS = BASELINE_ITEMS


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "hosp.labevents"):
        return None
    if p.tie_order == "pandas":
        row = "struct_pack(itemid := itemid, t := charttime, valuenum := valuenum)"
        return f"""
            SELECT stay_id, struct_pack(rows := list({row} ORDER BY {SOURCE_ROW}){_kind(p, src)}) AS v
            FROM {LAB_ROWS} WHERE baseline GROUP BY stay_id
        """
    cols = ", ".join(
        f"{name} := any_value(valuenum) FILTER (WHERE itemid = {i}), {name}_row := bool_or(itemid = {i})"
        for name, i in ITEMS.items()
    )
    return f"""
        WITH b AS (
            SELECT stay_id, itemid, valuenum FROM {LAB_ROWS} WHERE baseline
            QUALIFY row_number() OVER (PARTITION BY stay_id, itemid
                                       ORDER BY charttime DESC, labevent_id DESC) = 1
        )
        SELECT stay_id, struct_pack({cols}{_kind(p, src)}) AS v FROM b GROUP BY stay_id
    """


def _kind(p: SectionOptions, src: MimicSource) -> str:
    """``field_format`` "pandas": how pandas prints valuenum ("1.3", a missing one "nan"; the
    authors take the latest result even without a value)."""
    if p.field_format != "pandas":
        return ""
    return f", kind := '{column_kinds(src, 'hosp.labevents', ('valuenum',))['valuenum']}'"


def _latest_as_pandas(v: dict[str, Any]) -> dict[str, Any]:
    """The rows (file order) reduced to what the SQL gives otherwise: each item's last row after
    pandas' sort by charttime (``b1.sort_values("charttime").iloc[-1]``)."""
    out = {k: x for k, x in v.items() if k != "rows"}
    for name, item in ITEMS.items():
        rows = [r for r in v["rows"] if r["itemid"] == item]
        last = rows[pandas_order([r["t"] for r in rows])[-1]] if rows else None
        out[name], out[f"{name}_row"] = (last["valuenum"] if last else None), last is not None
    return out


def _render(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    if v is None:
        return None
    if "rows" in v:
        v = _latest_as_pandas(v)
    if p.field_format == "pandas":
        return ", ".join(
            f"{name} {pandas_str(v[name], v['kind']) if v[name + '_row'] else 'None'}" for name in ITEMS
        )
    return ", ".join(f"{name} {num(v[name])}" for name in ITEMS)


SECTION = Section("baseline_labs", "Baseline labs (prior)", _sql, _render)
