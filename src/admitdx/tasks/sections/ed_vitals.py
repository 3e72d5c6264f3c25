"""ED serial vitals (§3.2 iii): the first and the last ``ed.vitalsign`` reading charted at or
before the cutoff, as in the authors' builder (the paper's appendix I shows heart rate and SpO2;
``serial_vital_fields`` chooses). Readings with none of the chosen fields recorded are skipped.

The EarlyDx authors' builder, under options: ``single_reading`` "twice" prints a stay's only reading
as both first and last (their ``iloc[[0, -1]]``); ``field_format`` "pandas" keeps readings with
nothing recorded, prints values as pandas does ("HR105", "HR105.0", "HRnan"), and orders the
readings as their pandas sort by charttime does (``pandas_order``: equal times keep no defined
order)."""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, num, require
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.sections.pandas_order import pandas_order
from admitdx.tasks.sections.pandas_print import Kind, column_kinds, kinds_sql, pandas_str
from admitdx.tasks.sections.source_order import SOURCE_ROW, numbered

VITAL_LABELS = {  # the reading's field → its label in the serialized text (ER-Reason's MIMIC sections too)
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
    if p.field_format == "pandas":
        return _every_reading_sql(p, column_kinds(src, "ed.vitalsign", p.serial_vital_fields))
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


def _every_reading_sql(p: SectionOptions, kinds: dict[str, Kind]) -> str:
    """Every reading by the cutoff, recorded or not, in ``ed.vitalsign``'s row order: the EarlyDx
    authors keep empty readings and pick first and last after pandas' unstable sort by charttime."""
    cols = ", ".join(f"{f} := TRY_CAST(v.{f} AS DOUBLE)" for f in p.serial_vital_fields)
    return f"""
        SELECT c.stay_id,
               struct_pack(kinds := {kinds_sql(kinds)},
                           rows := list(struct_pack(t := CAST(v.charttime AS TIMESTAMP), {cols})
                                        ORDER BY v.{SOURCE_ROW})) AS v
        FROM cohort c JOIN {numbered("ed.vitalsign")} v ON v.stay_id = c.stay_id
        WHERE CAST(v.charttime AS TIMESTAMP) <= c.cutoff
        GROUP BY c.stay_id
    """


def _render(v: Any, p: SectionOptions) -> str | None:
    if not v:
        return None
    if p.field_format == "pandas":
        return _as_pandas(v["rows"], v["kinds"], p)
    if len(v) == 1 and p.single_reading == "twice":
        v = v * 2
    return " | ".join(" ".join(f"{VITAL_LABELS[f]}{num(r[f])}" for f in p.serial_vital_fields) for r in v)


def _as_pandas(rows: list[dict[str, Any]], kinds: dict[str, Kind], p: SectionOptions) -> str:
    """The authors' first and last reading after their sort, ``f"HR{r.heartrate} SpO2{r.o2sat}"``."""
    order = pandas_order([r["t"] for r in rows])
    shown = [rows[order[0]], rows[order[-1]]] if len(rows) > 1 or p.single_reading == "twice" else rows[:1]
    fields = p.serial_vital_fields
    return " | ".join(
        " ".join(f"{VITAL_LABELS[f].strip()}{pandas_str(r[f], kinds[f])}" for f in fields) for r in shown
    )


SECTION = Section("ed_vitals", "ED serial vitals", _sql, _render)
