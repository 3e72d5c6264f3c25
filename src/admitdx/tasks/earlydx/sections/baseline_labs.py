"""Baseline labs (the authors' builder; the paper folds them into baseline measurements): the
latest creatinine (itemid 50912) and haemoglobin (51222) before t0 — or, with
``baseline_labs_before="ed-arrival"``, before this ED visit began, so that the value is a true
pre-encounter baseline rather than the ED draw itself. Not moved by the window W: a baseline is by
definition prior."""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.earlydx.params import EarlyDxParams
from admitdx.tasks.earlydx.sections.base import Section, num, require

ITEMS = {"creatinine": 50912, "hemoglobin": 51222}


def _sql(p: EarlyDxParams, src: MimicSource) -> str | None:
    if not require(src, "hosp.labevents"):
        return None
    before = "c.t0" if p.baseline_labs_before == "t0" else "c.ed_intime"
    cols = ", ".join(
        f"{name} := any_value(valuenum) FILTER (WHERE itemid = {item})" for name, item in ITEMS.items()
    )
    return f"""
        WITH b AS (
            SELECT c.stay_id, l.itemid, TRY_CAST(l.valuenum AS DOUBLE) AS valuenum
            FROM cohort c JOIN hosp.labevents l ON l.subject_id = c.subject_id
            WHERE l.itemid IN ({", ".join(str(i) for i in ITEMS.values())})
              AND CAST(l.charttime AS TIMESTAMP) < {before} AND l.valuenum IS NOT NULL
            QUALIFY row_number() OVER (PARTITION BY c.stay_id, l.itemid
                                       ORDER BY l.charttime DESC, l.labevent_id DESC) = 1
        )
        SELECT stay_id, struct_pack({cols}) AS v FROM b GROUP BY stay_id
    """


def _render(v: dict[str, Any] | None, p: EarlyDxParams) -> str | None:
    if v is None:
        return None
    return ", ".join(f"{name} {num(v[name])}" for name in ITEMS)


SECTION = Section("baseline_labs", "Baseline labs (prior)", _sql, _render)
