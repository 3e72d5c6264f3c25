"""The EarlyDx cohort (§3.1): every ED stay whose ``hadm_id`` is present in ``admissions`` — a stay
that led to a hospital admission, whatever its recorded ED disposition — with t0 = admittime.

Creates the temporary table ``cohort`` every section query reads:

    stay_id, subject_id, hadm_id, ed_intime, t0, cutoff (= t0 + W hours),
    sex, age, race, admission_location, arrival, insurance, language, anchor_year_group,
    acuity, ed_disposition

Columns are cast explicitly, so a view that typed an ID or a time as text still joins correctly.
"""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.earlydx.params import EarlyDxParams

REQUIRED = ("ed.edstays", "hosp.admissions", "ed.diagnosis")


def window_microseconds(p: EarlyDxParams) -> int:
    return round(p.window_hours * 3_600_000_000)


def create_cohort(src: MimicSource, p: EarlyDxParams) -> dict[str, Any]:
    """Build the ``cohort`` table and return the cohort counts for the manifest."""
    src.require(REQUIRED, "EarlyDx")
    patients = "LEFT JOIN hosp.patients p ON p.subject_id = e.subject_id" if src.has("hosp.patients") else ""
    triage = "LEFT JOIN ed.triage tr ON tr.stay_id = e.stay_id" if src.has("ed.triage") else ""
    age = (
        "CAST(p.anchor_age AS INTEGER) + year(CAST(a.admittime AS TIMESTAMP))"
        " - CAST(p.anchor_year AS INTEGER)"
        if patients
        else "CAST(NULL AS INTEGER)"
    )
    src.con.execute(f"""
        CREATE OR REPLACE TEMP TABLE cohort AS
        SELECT CAST(e.stay_id AS BIGINT) AS stay_id,
               CAST(e.subject_id AS BIGINT) AS subject_id,
               CAST(e.hadm_id AS BIGINT) AS hadm_id,
               CAST(e.intime AS TIMESTAMP) AS ed_intime,
               CAST(a.admittime AS TIMESTAMP) AS t0,
               CAST(a.admittime AS TIMESTAMP) + to_microseconds({window_microseconds(p)}) AS cutoff,
               {"coalesce(p.gender, e.gender)" if patients else "e.gender"} AS sex,
               {age} AS age,
               coalesce(a.race, e.race) AS race,
               a.admission_location,
               e.arrival_transport AS arrival,
               a.insurance,
               a.language,
               {"p.anchor_year_group" if patients else "CAST(NULL AS VARCHAR)"} AS anchor_year_group,
               {"TRY_CAST(tr.acuity AS INTEGER)" if triage else "CAST(NULL AS INTEGER)"} AS acuity,
               e.disposition AS ed_disposition
        FROM ed.edstays e
        JOIN hosp.admissions a ON CAST(a.hadm_id AS BIGINT) = CAST(e.hadm_id AS BIGINT)
        {patients}
        {triage}
        QUALIFY row_number() OVER (PARTITION BY e.stay_id ORDER BY a.admittime) = 1
    """)
    ed_stays, with_hadm = src.con.execute("SELECT count(*), count(hadm_id) FROM ed.edstays").fetchone()  # type: ignore[misc]
    cohort, admitted, ed_after_t0 = src.con.execute(
        "SELECT count(*), count(*) FILTER (WHERE ed_disposition = 'ADMITTED'), "
        "count(*) FILTER (WHERE ed_intime > t0) FROM cohort"
    ).fetchone()  # type: ignore[misc]
    return {
        "ed_stays": ed_stays,
        "ed_stays_with_hadm_id": with_hadm,
        "cohort_stays": cohort,
        "cohort_disposition_admitted": admitted,
        "cohort_ed_arrival_after_t0": ed_after_t0,
    }
