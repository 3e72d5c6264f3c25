"""The four MIMIC-IV-ED tasks of the ER-Reason family (admitdx's adaptation; the README states
each structured equivalent): what each shows, up to when, and its target.

- acuity: demographics, chief complaint and triage vitals with the acuity hidden, at arrival;
  target ``triage.acuity`` as its level name (ESI 1..5).
- disposition: the same plus the acuity, the first and last ED vitals, home medications and the
  medications the ED dispensed, all charted before departure; target ``edstays.disposition``.
- diagnosis: the disposition task's input; gold ``ed/diagnosis`` (seq_num 1 is the main one).
- one-liner: demographics, chief complaint and the most recent earlier discharge summary; target
  the first sentence of the current admission's HPI (needs MIMIC-IV-Note).
"""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource, Needs
from admitdx.tasks.erreason.levels import MIMIC_DISPOSITIONS, acuity_level
from admitdx.tasks.erreason.mimic_build import Variant
from admitdx.tasks.erreason.mimic_sections import (
    ED_DEMOGRAPHICS,
    ED_MEDICATIONS,
    ED_SERIAL_VITALS,
    PREVIOUS_DISCHARGE,
)
from admitdx.tasks.erreason.one_liner import reference_one_liner
from admitdx.tasks.sections import chief_complaint, home_meds, triage
from admitdx.tasks.sections.options import TRIAGE_FIELDS

NO_ACUITY = tuple(f for f in TRIAGE_FIELDS if f != "acuity")
_BASE = ("ed.edstays", "ed.triage", "hosp.patients")
_ED_COURSE = ("ed.vitalsign", "ed.medrecon", "ed.pyxis")
ED_COURSE_SECTIONS = (
    ED_DEMOGRAPHICS,
    chief_complaint.SECTION,
    triage.SECTION,
    ED_SERIAL_VITALS,
    home_meds.SECTION,
    ED_MEDICATIONS,
)


def _cohort_column(column: str) -> Any:
    return lambda src: f"SELECT stay_id, {column} AS v FROM cohort"


def _acuity(v: int | None) -> tuple[str | None, list[dict[str, Any]]]:
    return acuity_level(v), []


def _disposition(v: str | None) -> tuple[str | None, list[dict[str, Any]]]:
    return (v if v in MIMIC_DISPOSITIONS else None), []


def _diagnosis_sql(src: MimicSource) -> str:
    return """
        SELECT c.stay_id,
               list(struct_pack(
                   code := trim(d.icd_code),
                   version := CAST(d.icd_version AS INTEGER),
                   seq_num := CAST(d.seq_num AS BIGINT),
                   title := trim(d.icd_title))
                   ORDER BY CAST(d.seq_num AS BIGINT), trim(d.icd_code)) AS v
        FROM cohort c JOIN ed.diagnosis d ON CAST(d.stay_id AS BIGINT) = c.stay_id
        WHERE nullif(trim(d.icd_code), '') IS NOT NULL
        GROUP BY c.stay_id
    """


def _diagnoses(v: list[dict[str, Any]] | None) -> tuple[None, list[dict[str, Any]]]:
    refs = [
        {
            "text": d["title"] or d["code"],
            "code": d["code"],
            "code_system": "ICD-9-CM" if d["version"] == 9 else "ICD-10-CM",
            "seq_num": d["seq_num"],
            "ed_title": d["title"],
        }
        for d in v or []
    ]
    return None, refs


def _one_liner_sql(src: MimicSource) -> str:
    return """
        SELECT c.stay_id, arg_max(n.text, CAST(n.charttime AS TIMESTAMP)) AS v
        FROM cohort c JOIN note.discharge n ON CAST(n.hadm_id AS BIGINT) = c.hadm_id
        GROUP BY c.stay_id
    """


def _one_liner(v: str | None) -> tuple[str | None, list[dict[str, Any]]]:
    return reference_one_liner(v), []


ACUITY = Variant(
    task="er-reason-acuity",
    cutoff="arrival",
    sections=(ED_DEMOGRAPHICS, chief_complaint.SECTION, triage.SECTION),
    triage_fields=NO_ACUITY,
    target_sql=_cohort_column("acuity"),
    target=_acuity,
    needs=Needs(requires=_BASE),
    acuity_in_meta=False,
)
DISPOSITION = Variant(
    task="er-reason-disposition",
    cutoff="departure",
    sections=ED_COURSE_SECTIONS,
    triage_fields=TRIAGE_FIELDS,
    target_sql=_cohort_column("disposition"),
    target=_disposition,
    needs=Needs(requires=_BASE, reads=_BASE + _ED_COURSE),
)
DIAGNOSIS = Variant(
    task="er-reason-diagnosis",
    cutoff="departure",
    sections=ED_COURSE_SECTIONS,
    triage_fields=TRIAGE_FIELDS,
    target_sql=_diagnosis_sql,
    target=_diagnoses,
    needs=Needs(requires=(*_BASE, "ed.diagnosis"), reads=(*_BASE, "ed.diagnosis", *_ED_COURSE)),
    text_target=False,
)
ONE_LINER = Variant(
    task="er-reason-one-liner",
    cutoff="arrival",
    sections=(ED_DEMOGRAPHICS, chief_complaint.SECTION, PREVIOUS_DISCHARGE),
    triage_fields=NO_ACUITY,
    target_sql=_one_liner_sql,
    target=_one_liner,
    needs=Needs(requires=(*_BASE, "note.discharge")),
    required=("chief_complaint", "previous_discharge_summary"),
)
