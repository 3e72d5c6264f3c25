"""Chief complaint (§3.2 ii): the triage nurse's free text.

Triage carries no timestamp; MIMIC documents it as taken at ED arrival, so it counts as charted at
``edstays.intime`` and is kept when the patient arrived at or before the cutoff (the EarlyDx authors
keep it whenever: ``ed_arrival_cutoff``).
"""

from __future__ import annotations

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, require
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.sections.pandas_print import NA_SQL


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "ed.triage"):
        return None
    if p.field_format == "pandas":  # as written; what pandas reads as missing is "None" for them
        text, present = "t.chiefcomplaint", f"t.chiefcomplaint NOT IN ('', {NA_SQL})"
    else:
        text, present = "trim(t.chiefcomplaint)", "nullif(trim(t.chiefcomplaint), '') IS NOT NULL"
    return f"""
        SELECT c.stay_id, any_value({text}) AS v
        FROM cohort c JOIN ed.triage t ON t.stay_id = c.stay_id
        WHERE {arrival_by_cutoff(p)} AND {present}
        GROUP BY c.stay_id
    """


def arrival_by_cutoff(p: SectionOptions) -> str:
    """The condition on triage: ED arrival by the cutoff, or none (``ed_arrival_cutoff`` False, the
    EarlyDx authors', who show triage even when the patient arrived after t0)."""
    return "c.ed_intime <= c.cutoff" if p.ed_arrival_cutoff else "TRUE"


def _render(v: str | None, p: SectionOptions) -> str | None:
    return v or None


SECTION = Section("chief_complaint", "Chief complaint", _sql, _render)
