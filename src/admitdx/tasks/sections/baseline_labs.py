"""Baseline labs (the authors' builder; the paper folds them into baseline measurements): the
latest creatinine (itemid 50912) and haemoglobin (51222) before t0 — or, with
``baseline_labs_before="ed-arrival"``, before this ED visit began, so that the value is a true
pre-encounter baseline rather than the ED draw itself. Not moved by the window W: a baseline is by
definition prior."""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, num, require
from admitdx.tasks.sections.lab_rows import BASELINE_ITEMS
from admitdx.tasks.sections.lab_rows import TABLE as LAB_ROWS
from admitdx.tasks.sections.options import SectionOptions

ITEMS = BASELINE_ITEMS


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "hosp.labevents"):
        return None
    cols = ", ".join(
        f"{name} := any_value(valuenum) FILTER (WHERE itemid = {item})" for name, item in ITEMS.items()
    )
    return f"""
        WITH b AS (
            SELECT stay_id, itemid, valuenum FROM {LAB_ROWS} WHERE baseline
            QUALIFY row_number() OVER (PARTITION BY stay_id, itemid
                                       ORDER BY charttime DESC, labevent_id DESC) = 1
        )
        SELECT stay_id, struct_pack({cols}) AS v FROM b GROUP BY stay_id
    """


def _render(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    if v is None:
        return None
    return ", ".join(f"{name} {num(v[name])}" for name in ITEMS)


SECTION = Section("baseline_labs", "Baseline labs (prior)", _sql, _render)
