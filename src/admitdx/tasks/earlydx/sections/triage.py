"""Triage vitals with acuity (§3.2 ii), in the authors' order: temperature, heart rate,
respiratory rate, SpO2, blood pressure, ESI acuity. Taken at ED arrival (see chief_complaint)."""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.earlydx.params import EarlyDxParams
from admitdx.tasks.earlydx.sections.base import Section, num, require

_FIELDS = ("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp", "acuity")


def _sql(p: EarlyDxParams, src: MimicSource) -> str | None:
    if not require(src, "ed.triage"):
        return None
    cols = ", ".join(f"{f} := TRY_CAST(any_value(t.{f}) AS DOUBLE)" for f in _FIELDS)
    present = " OR ".join(f"t.{f} IS NOT NULL" for f in _FIELDS)
    return f"""
        SELECT c.stay_id, struct_pack({cols}) AS v
        FROM cohort c JOIN ed.triage t ON t.stay_id = c.stay_id
        WHERE c.ed_intime <= c.cutoff AND ({present})
        GROUP BY c.stay_id
    """


def _render(v: dict[str, Any] | None, p: EarlyDxParams) -> str | None:
    if v is None:
        return None
    return (
        f"T{num(v['temperature'])} HR{num(v['heartrate'])} RR{num(v['resprate'])} "
        f"SpO2 {num(v['o2sat'])} BP{num(v['sbp'])}/{num(v['dbp'])} acuity {num(v['acuity'])}"
    )


SECTION = Section("triage", "Triage", _sql, _render)
