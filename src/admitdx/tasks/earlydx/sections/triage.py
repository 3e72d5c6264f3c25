"""Triage vitals with acuity (§3.2 ii), in the authors' order: temperature, heart rate,
respiratory rate, SpO2, blood pressure, ESI acuity. Taken at ED arrival (see chief_complaint).
Fields not recorded are left out rather than printed as None."""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.earlydx.params import EarlyDxParams
from admitdx.tasks.earlydx.sections.base import Section, num, require

_FIELDS = ("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp", "acuity")
_SHOWN = (("T", "temperature"), ("HR", "heartrate"), ("RR", "resprate"), ("SpO2 ", "o2sat"))


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
    parts = [f"{label}{num(v[f])}" for label, f in _SHOWN if v[f] is not None]
    if v["sbp"] is not None or v["dbp"] is not None:
        parts.append(f"BP{num(v['sbp'])}/{num(v['dbp'])}")
    if v["acuity"] is not None:
        parts.append(f"acuity {num(v['acuity'])}")
    return " ".join(parts)


SECTION = Section("triage", "Triage", _sql, _render)
