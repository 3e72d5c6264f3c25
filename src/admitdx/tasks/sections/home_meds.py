"""Home medications (§3.2 iv): distinct ``ed.medrecon`` names reconciled at or before the cutoff,
at most ``home_meds_max`` (12, the authors'), alphabetical so the cap is deterministic; the count
of all names is shown when the list is cut."""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, require
from admitdx.tasks.sections.options import SectionOptions


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "ed.medrecon"):
        return None
    return f"""
        SELECT c.stay_id,
               struct_pack(n := count(DISTINCT trim(m.name)),
                           names := list_slice(list_sort(list_distinct(list(trim(m.name)))),
                                               1, {int(p.home_meds_max)})) AS v
        FROM cohort c JOIN ed.medrecon m ON m.stay_id = c.stay_id
        WHERE coalesce(CAST(m.charttime AS TIMESTAMP), c.ed_intime) <= c.cutoff
          AND nullif(trim(m.name), '') IS NOT NULL
        GROUP BY c.stay_id
    """


def _render(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    if not v or not v["names"]:
        return None
    more = f" (+{v['n'] - len(v['names'])} more)" if v["n"] > len(v["names"]) else ""
    return "; ".join(v["names"]) + more


SECTION = Section("home_meds", "Home meds", _sql, _render)
