"""Echocardiography (§3.2 viii): structured measurements from MIMIC-IV-ECHO windowed on their
measurement time — those of the latest study (measurement_datetime) at or before the cutoff, at
most ``echo_max_measurements`` (8, the authors'), by measurement name. The authors take the first 8
rows in file order among all earlier studies, which can mix studies years apart and is not
reproducible across file formats.

The table is ``structured-measurement.csv.gz`` (view ``echo.structured_measurement``; the plural
spelling is accepted too) with ``subject_id, measurement_datetime, measurement, result, unit``.
"""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section
from admitdx.tasks.sections.options import SectionOptions

TABLES = ("echo.structured_measurement", "echo.structured_measurements")


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    table = next((t for t in TABLES if src.has(t)), None)
    if table is None:
        return None
    return f"""
        WITH e AS (
            SELECT subject_id, CAST(measurement_datetime AS TIMESTAMP) AS t,
                   trim(CAST(measurement AS VARCHAR)) AS name,
                   nullif(trim(CAST(result AS VARCHAR)), '') AS result,
                   nullif(trim(CAST(unit AS VARCHAR)), '') AS unit
            FROM {table}
        ), latest AS (
            SELECT c.stay_id, e.t, e.name, e.result, e.unit
            FROM cohort c JOIN e ON e.subject_id = c.subject_id
            WHERE e.t <= c.cutoff AND e.result IS NOT NULL
            QUALIFY dense_rank() OVER (PARTITION BY c.stay_id ORDER BY e.t DESC) = 1
        ), m AS (
            SELECT * FROM latest
            QUALIFY row_number() OVER (PARTITION BY stay_id ORDER BY name, result)
                    <= {int(p.echo_max_measurements)}
        )
        SELECT stay_id, list(struct_pack(name, result, unit) ORDER BY name, result) AS v
        FROM m GROUP BY stay_id
    """


def _render(v: list[dict[str, Any]] | None, p: SectionOptions) -> str | None:
    if not v:
        return None
    return "; ".join(f"{r['name']} {r['result']}{' ' + r['unit'] if r['unit'] else ''}" for r in v)


SECTION = Section("echo", "Echocardiogram", _sql, _render)
