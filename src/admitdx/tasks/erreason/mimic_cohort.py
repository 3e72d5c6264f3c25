"""The MIMIC-IV-ED cohort of the ER-Reason family: every ED stay (admitted or not).

Creates the temporary table ``cohort`` the shared sections read — ``stay_id, subject_id, hadm_id,
ed_intime, t0, cutoff`` — plus ``sex, age, race, arrival, acuity, disposition, ed_outtime``.
``t0`` is ED arrival. ``cutoff`` is what a task may see up to: arrival for acuity (triage is all a
triage nurse has), departure for disposition and final diagnosis (the ED course before the
patient leaves). Age is the age at arrival (``anchor_age + year(intime) − anchor_year``).
"""

from __future__ import annotations

from typing import Any, Literal

from admitdx.sources.mimic import MimicSource

Cutoff = Literal["arrival", "departure"]
REQUIRED = ("ed.edstays", "ed.triage", "hosp.patients")


def create_cohort(src: MimicSource, cutoff: Cutoff) -> dict[str, Any]:
    """Build ``cohort`` and return its counts for the manifest."""
    src.require(REQUIRED, "the ER-Reason tasks")
    end = "CAST(e.intime AS TIMESTAMP)" if cutoff == "arrival" else "CAST(e.outtime AS TIMESTAMP)"
    src.con.execute(f"""
        CREATE OR REPLACE TEMP TABLE cohort AS
        SELECT CAST(e.stay_id AS BIGINT) AS stay_id,
               CAST(e.subject_id AS BIGINT) AS subject_id,
               CAST(e.hadm_id AS BIGINT) AS hadm_id,
               CAST(e.intime AS TIMESTAMP) AS ed_intime,
               CAST(e.outtime AS TIMESTAMP) AS ed_outtime,
               CAST(e.intime AS TIMESTAMP) AS t0,
               {end} AS cutoff,
               coalesce(p.gender, e.gender) AS sex,
               CAST(p.anchor_age AS INTEGER) + year(CAST(e.intime AS TIMESTAMP))
                   - CAST(p.anchor_year AS INTEGER) AS age,
               e.race,
               e.arrival_transport AS arrival,
               TRY_CAST(tr.acuity AS INTEGER) AS acuity,
               nullif(trim(e.disposition), '') AS disposition
        FROM ed.edstays e
        LEFT JOIN hosp.patients p ON p.subject_id = e.subject_id
        LEFT JOIN ed.triage tr ON tr.stay_id = e.stay_id
        QUALIFY row_number() OVER (PARTITION BY e.stay_id ORDER BY tr.acuity NULLS LAST) = 1
    """)
    stays, with_acuity, with_disposition = src.con.execute(
        "SELECT count(*), count(acuity), count(disposition) FROM cohort"
    ).fetchone()  # type: ignore[misc]
    return {"ed_stays": stays, "with_acuity": with_acuity, "with_disposition": with_disposition}
