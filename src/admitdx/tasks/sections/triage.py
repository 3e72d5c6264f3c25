"""Triage vitals with acuity (§3.2 ii), in the authors' order: temperature, heart rate,
respiratory rate, SpO2, blood pressure, ESI acuity. Taken at ED arrival (see chief_complaint).
Fields not recorded are left out rather than printed as None; fields a task does not select
(``SectionOptions.triage_fields``) are never shown, so a task can hide the acuity it predicts."""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, num, require
from admitdx.tasks.sections.options import TRIAGE_FIELDS, SectionOptions

_FIELDS = TRIAGE_FIELDS
_SHOWN = (("T", "temperature"), ("HR", "heartrate"), ("RR", "resprate"), ("SpO2 ", "o2sat"))


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
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


def _render(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    if v is None:
        return None
    v = {f: (v[f] if f in p.triage_fields else None) for f in _FIELDS}
    parts = [f"{label}{num(v[f])}" for label, f in _SHOWN if v[f] is not None]
    if v["sbp"] is not None or v["dbp"] is not None:
        parts.append(f"BP{num(v['sbp'])}/{num(v['dbp'])}")
    if v["acuity"] is not None:
        parts.append(f"acuity {num(v['acuity'])}")
    return " ".join(parts) or None


SECTION = Section("triage", "Triage", _sql, _render)
