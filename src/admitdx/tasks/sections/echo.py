"""Echocardiography (§3.2 viii): structured measurements from MIMIC-IV-ECHO windowed on their
measurement time, at most ``echo_max_measurements`` (8, the authors').

Which measurements, the paper does not say beyond "echocardiography" as one finding.
``echo_rows`` "latest_study" (default) takes those of the latest study (measurement_datetime) at
or before the cutoff, by measurement name: one echocardiogram, read as a clinician reads the last
one. "source" takes the first 8 rows with a result, in the order the table lists them, among all
studies at or before the cutoff, as the authors' builder does (``head(8)``): those can mix studies
years apart, and another file order of the same table gives other rows.

The table is ``structured-measurement.csv.gz`` (view ``echo.structured_measurement``; the plural
spelling is accepted too) with ``subject_id, measurement_datetime, measurement, result, unit``.
``echo_none`` "missing" drops results spelled "None" as the authors' pandas does; ``field_format``
"pandas" prints their "LVEF 57%" / "Right ventricular size Normalnan" (untrimmed, a result in an
all-numeric column as "57.0").
"""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.sections.pandas_print import NA_SQL, column_kinds, pandas_str
from admitdx.tasks.sections.source_order import SOURCE_ROW, numbered

TABLES = ("echo.structured_measurement", "echo.structured_measurements")


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    table = next((t for t in TABLES if src.has(t)), None)
    if table is None:
        return None
    source = p.echo_rows == "source"
    # latest_study: every row of the latest study, then by name; source: every study, table order
    studies = "" if source else "QUALIFY dense_rank() OVER (PARTITION BY c.stay_id ORDER BY e.t DESC) = 1"
    order = SOURCE_ROW if source else "name, result"
    pandas = p.field_format == "pandas"  # values as the file spells them, and the result column's kind
    kind = repr(column_kinds(src, table, ("result",))["result"]) if pandas else "NULL"

    name = "CAST(measurement AS VARCHAR)" if pandas else "trim(CAST(measurement AS VARCHAR))"

    def text(c: str) -> str:
        return f"CAST({c} AS VARCHAR)" if pandas else f"nullif(trim(CAST({c} AS VARCHAR)), '')"

    return f"""
        WITH e AS (
            SELECT subject_id, CAST(measurement_datetime AS TIMESTAMP) AS t,
                   {name} AS name,
                   {text("result")} AS result, {text("unit")} AS unit, {kind} AS kind
                   {f", {SOURCE_ROW}" if source else ""}
            FROM {numbered(table) if source else table}
        ), latest AS (
            SELECT c.stay_id, e.*
            FROM cohort c JOIN e ON e.subject_id = c.subject_id
            WHERE e.t <= c.cutoff AND e.result IS NOT NULL{_none_missing(p)}
            {studies}
        ), m AS (
            SELECT * FROM latest
            QUALIFY row_number() OVER (PARTITION BY stay_id ORDER BY {order})
                    <= {int(p.echo_max_measurements)}
        )
        SELECT stay_id, list(struct_pack(name, result, unit, kind) ORDER BY {order}) AS v
        FROM m GROUP BY stay_id
    """


def _none_missing(p: SectionOptions) -> str:
    """``echo_none`` "missing": a result pandas reads as missing ("None", "NA", …) is dropped with
    the empty ones, as the authors' ``dropna(subset=['result'])`` does."""
    if p.echo_none == "keep":
        return ""
    return f" AND e.result NOT IN ({NA_SQL})"


def _render(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    if not v:
        return None
    if p.field_format == "pandas":  # the authors' f"{measurement} {result}{unit}": "57%", "Normalnan"
        return "; ".join(
            f"{r['name']} {pandas_str(r['result'], r['kind'])}{pandas_str(r['unit'], 'text')}" for r in v
        )
    return "; ".join(f"{r['name']} {r['result']}{' ' + r['unit'] if r['unit'] else ''}" for r in v)


SECTION = Section("echo", "Echocardiogram", _sql, _render)
