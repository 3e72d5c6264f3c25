"""Triage vitals with acuity (§3.2 ii), in the authors' order: temperature, heart rate,
respiratory rate, SpO2, blood pressure, ESI acuity. Taken at ED arrival (see chief_complaint).
Fields not recorded are left out rather than printed as None; fields a task does not select
(``SectionOptions.triage_fields``) are never shown, so a task can hide the acuity it predicts.
Under ``field_format`` "pandas" (the EarlyDx authors') every field of a triage row is printed as
pandas prints it, "nan" where missing."""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, num, require
from admitdx.tasks.sections.chief_complaint import arrival_by_cutoff
from admitdx.tasks.sections.options import TRIAGE_FIELDS, SectionOptions
from admitdx.tasks.sections.pandas_print import column_kinds, kinds_sql, pandas_str

_FIELDS = TRIAGE_FIELDS
_SHOWN = (("T", "temperature"), ("HR", "heartrate"), ("RR", "resprate"), ("SpO2 ", "o2sat"))


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "ed.triage"):
        return None
    cols = ", ".join(f"{f} := TRY_CAST(any_value(t.{f}) AS DOUBLE)" for f in _FIELDS)
    if p.field_format == "pandas":  # every row, recorded or not, and how pandas prints each column
        cols += f", kinds := {kinds_sql(column_kinds(src, 'ed.triage', _FIELDS))}"
        present = "TRUE"
    else:
        present = " OR ".join(f"t.{f} IS NOT NULL" for f in _FIELDS)
    return f"""
        SELECT c.stay_id, struct_pack({cols}) AS v
        FROM cohort c JOIN ed.triage t ON t.stay_id = c.stay_id
        WHERE {arrival_by_cutoff(p)} AND ({present})
        GROUP BY c.stay_id
    """


def _render(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    if v is None:
        return None
    if p.field_format == "pandas":
        return _as_pandas(v, p)
    v = {f: (v[f] if f in p.triage_fields else None) for f in _FIELDS}
    parts = [f"{label}{num(v[f])}" for label, f in _SHOWN if v[f] is not None]
    if v["sbp"] is not None or v["dbp"] is not None:
        parts.append(f"BP{num(v['sbp'])}/{num(v['dbp'])}")
    if v["acuity"] is not None:
        parts.append(f"acuity {num(v['acuity'])}")
    return " ".join(parts) or None


def _as_pandas(v: dict[str, Any], p: SectionOptions) -> str:
    """The EarlyDx authors' ``f"T{t.temperature} HR{t.heartrate} … BP{t.sbp}/{t.dbp} acuity{t.acuity}"``
    ("T98.3 HR105 … acuity3", "Tnan HRnan …")."""

    def value(f: str) -> str:
        return pandas_str(v[f], v["kinds"][f])

    parts = [f"{label.strip()}{value(f)}" for label, f in _SHOWN if f in p.triage_fields]
    if "sbp" in p.triage_fields or "dbp" in p.triage_fields:
        parts.append(f"BP{value('sbp')}/{value('dbp')}")
    if "acuity" in p.triage_fields:
        parts.append(f"acuity{value('acuity')}")
    return " ".join(parts)


SECTION = Section("triage", "Triage", _sql, _render)
