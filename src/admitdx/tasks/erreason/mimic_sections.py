"""Sections of the MIMIC-IV-ED ER-Reason tasks that the shared library does not have.

``ed_demographics`` shows only what triage knows (sex, age, race, arrival): EarlyDx's
demographics section also prints where the admission came from, which exists only for admitted
patients and so would give the disposition away. ``ed_medications`` lists what the ED dispensed
(``ed.pyxis``) before the cutoff: the ED course available before departure. ``previous_discharge``
is the most recent discharge summary written before this ED arrival (the one-liner's input), whole
unless ``prior_note_chars`` is set (the authors do not cut it). ``ED_SERIAL_VITALS`` is the shared
first/last ED vitals section with a field not charted left out: the shared one prints ``TNone``,
``HRNone`` for it (70 of the demo's 222 stays), which EarlyDx's pinned output keeps.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections import ed_vitals
from admitdx.tasks.sections.base import Section, num, require
from admitdx.tasks.sections.options import SectionOptions

ED_MEDS_MAX = 20


def _demographics_sql(p: SectionOptions, src: MimicSource) -> str:
    return "SELECT stay_id, struct_pack(sex, age, race, arrival) AS v FROM cohort"


def _demographics(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    if v is None:
        return None
    age = f"{v['age']} yo" if v["age"] is not None else "age unknown"
    sex, race = v["sex"] or "sex unknown", v["race"] or "race unknown"
    return f"{sex}, {age}, {race}. Arrival {v['arrival'] or 'unknown'}."


ED_DEMOGRAPHICS = Section("demographics", "Demographics", _demographics_sql, _demographics)


def _meds_sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "ed.pyxis"):
        return None
    return """
        WITH d AS (
            SELECT c.stay_id, trim(x.name) AS name, min(CAST(x.charttime AS TIMESTAMP)) AS first
            FROM cohort c JOIN ed.pyxis x ON x.stay_id = c.stay_id
            WHERE CAST(x.charttime AS TIMESTAMP) < c.cutoff AND nullif(trim(x.name), '') IS NOT NULL
            GROUP BY c.stay_id, trim(x.name)
        )
        SELECT stay_id, list(name ORDER BY first, name) AS v FROM d GROUP BY stay_id
    """


def _meds(v: list[str] | None, p: SectionOptions) -> str | None:
    if not v:
        return None
    more = f" (+{len(v) - ED_MEDS_MAX} more)" if len(v) > ED_MEDS_MAX else ""
    return "; ".join(v[:ED_MEDS_MAX]) + more


ED_MEDICATIONS = Section("ed_medications", "ED medications given", _meds_sql, _meds)


def _previous_sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "note.discharge"):
        return None
    return """
        SELECT c.stay_id, arg_max(n.text, CAST(n.charttime AS TIMESTAMP)) AS v
        FROM cohort c JOIN note.discharge n ON CAST(n.subject_id AS BIGINT) = c.subject_id
        WHERE CAST(n.charttime AS TIMESTAMP) < c.ed_intime
          AND CAST(n.hadm_id AS BIGINT) IS DISTINCT FROM c.hadm_id
        GROUP BY c.stay_id
    """


def _previous(v: str | None, p: SectionOptions) -> str | None:
    if not v or not v.strip():
        return None
    text, chars = v.strip(), p.prior_note_chars
    return text if chars is None or len(text) <= chars else text[:chars] + " [...]"


PREVIOUS_DISCHARGE = Section(
    "previous_discharge_summary", "Most recent previous discharge summary", _previous_sql, _previous
)


def _serial(v: list[dict[str, Any]] | None, p: SectionOptions) -> str | None:
    if not v:
        return None
    readings = (
        " ".join(f"{ed_vitals.VITAL_LABELS[f]}{num(r[f])}" for f in p.serial_vital_fields if r[f] is not None)
        for r in v
    )
    return " | ".join(readings)


ED_SERIAL_VITALS = dataclasses.replace(ed_vitals.SECTION, render=_serial)
