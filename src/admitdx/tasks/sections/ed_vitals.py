"""ED serial vitals (§3.2 iii): the first and the last ``ed.vitalsign`` reading charted at or
before the cutoff, as in the authors' builder (the paper's appendix I shows heart rate and SpO2;
``serial_vital_fields`` chooses). Readings with none of the chosen fields recorded are skipped."""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, num, require
from admitdx.tasks.sections.options import SectionOptions

_LABELS = {
    "temperature": "T",
    "heartrate": "HR",
    "resprate": "RR",
    "o2sat": "SpO2 ",
    "sbp": "SBP",
    "dbp": "DBP",
}


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "ed.vitalsign"):
        return None
    fields = p.serial_vital_fields
    cols = ", ".join(f"{f} := TRY_CAST(v.{f} AS DOUBLE)" for f in fields)
    present = " OR ".join(f"v.{f} IS NOT NULL" for f in fields)
    ascending = ", ".join(f"v.{f}" for f in fields)
    descending = ", ".join(f"v.{f} DESC" for f in fields)
    return f"""
        WITH w AS (
            SELECT c.stay_id, CAST(v.charttime AS TIMESTAMP) AS t, struct_pack({cols}) AS r,
                   row_number() OVER (PARTITION BY c.stay_id
                                      ORDER BY v.charttime, {ascending}) AS first_rank,
                   row_number() OVER (PARTITION BY c.stay_id
                                      ORDER BY v.charttime DESC, {descending}) AS last_rank
            FROM cohort c JOIN ed.vitalsign v ON v.stay_id = c.stay_id
            WHERE CAST(v.charttime AS TIMESTAMP) <= c.cutoff AND ({present})
        )
        SELECT stay_id, list(r ORDER BY t, first_rank) AS v
        FROM w WHERE first_rank = 1 OR last_rank = 1
        GROUP BY stay_id
    """


def _render(v: list[dict[str, Any]] | None, p: SectionOptions) -> str | None:
    if not v:
        return None
    return " | ".join(" ".join(f"{_LABELS[f]}{num(r[f])}" for f in p.serial_vital_fields) for r in v)


SECTION = Section("ed_vitals", "ED serial vitals", _sql, _render)
