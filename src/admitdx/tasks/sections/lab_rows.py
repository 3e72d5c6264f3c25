"""One pass over ``hosp.labevents`` for everything the build needs from it.

``labevents`` is by far the largest table (158 M rows in MIMIC-IV 3.1), and three parts of the
build read it: the lab section (under the chosen lab scope), the baseline labs, and the manifest's
lab coverage under *both* scopes. Rather than scan it three or four times, the builder first keeps
the cohort's rows that any of them can use, flagged by which, in the temporary table ``lab_rows``
(one row per (stay, result) pair; results without any value are dropped unless ``valueless_labs``
is "question-mark"):

    stay_id, itemid, labevent_id, charttime, value, valuenum, unit, lo, hi, abnormal,
    in_ed_stay      drawn from ED arrival on and charted/stored by the cutoff (scope "ed-stay")
    in_admission    carries the admission's hadm_id and charted/stored by the cutoff ("admission")
    baseline        a baseline creatinine / haemoglobin drawn before t0 (or ED arrival)
    of_admission    carries the admission's hadm_id, any time (``lab_format`` "authors" only)
    source_row      the row's place in labevents (``lab_format`` "authors" or ``tie_order`` "pandas")
"""

from __future__ import annotations

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import event_time, require
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.sections.source_order import SOURCE_ROW, numbered

TABLE = "lab_rows"
BASELINE_ITEMS = {"creatinine": 50912, "hemoglobin": 51222}
SCOPE_COLUMN = {"ed-stay": "in_ed_stay", "admission": "in_admission"}


def prepare_lab_rows(src: MimicSource, p: SectionOptions) -> bool:
    """Create ``lab_rows``; False when the root has no labevents table."""
    if not require(src, "hosp.labevents"):
        return False
    upper = f"{event_time(p, 'l')} <= c.cutoff"
    charttime = "CAST(l.charttime AS TIMESTAMP)"
    in_ed_stay = f"({charttime} >= c.ed_intime AND {upper})"
    in_admission = f"(TRY_CAST(l.hadm_id AS BIGINT) = c.hadm_id AND {upper})"
    before = "c.t0" if p.baseline_labs_before == "t0" else "c.ed_intime"
    items = ", ".join(str(i) for i in BASELINE_ITEMS.values())
    # the authors take the latest result even when it has no number ("creatinine nan")
    has_number = "TRUE" if p.field_format == "pandas" else "l.valuenum IS NOT NULL"
    # baseline_time "both": under storetime also stored before t0, as the authors' builder asks
    stored = f" AND {event_time(p, 'l')} < {before}" if p.baseline_time == "both" else ""
    baseline = f"(l.itemid IN ({items}) AND {charttime} < {before}{stored} AND {has_number})"
    authors = p.lab_format == "authors"
    # the authors' format prints values as the file spells them and orders rows as their pandas
    # code does, from file order; it also tells an admission with results none of which is in the
    # window ("Initial labs (0): ") from one with none at all ("Initial labs (0): None")
    value = "CAST(l.value AS VARCHAR)" if authors else "nullif(trim(CAST(l.value AS VARCHAR)), '')"
    of_admission = "TRY_CAST(l.hadm_id AS BIGINT) = c.hadm_id" if authors else "FALSE"
    in_file_order = authors or p.tie_order == "pandas"
    with_value = (
        "TRUE"
        if p.valueless_labs == "question-mark"
        else "(nullif(trim(CAST(l.value AS VARCHAR)), '') IS NOT NULL OR l.valuenum IS NOT NULL)"
    )
    src.con.execute(f"""
        CREATE OR REPLACE TEMP TABLE {TABLE} AS
        SELECT c.stay_id, l.itemid, l.labevent_id, {charttime} AS charttime,
               {value} AS value,
               TRY_CAST(l.valuenum AS DOUBLE) AS valuenum,
               nullif(trim(CAST(l.valueuom AS VARCHAR)), '') AS unit,
               TRY_CAST(l.ref_range_lower AS DOUBLE) AS lo, TRY_CAST(l.ref_range_upper AS DOUBLE) AS hi,
               nullif(trim(CAST(l.flag AS VARCHAR)), '') IS NOT NULL AS abnormal,
               {in_ed_stay} AS in_ed_stay, {in_admission} AS in_admission, {baseline} AS baseline,
               {of_admission} AS of_admission,
               {f"l.{SOURCE_ROW}" if in_file_order else "NULL"} AS {SOURCE_ROW}
        FROM cohort c JOIN {numbered("hosp.labevents") if in_file_order else "hosp.labevents"} l
             ON l.subject_id = c.subject_id
        WHERE ({in_ed_stay} OR {in_admission} OR {baseline} OR {of_admission}) AND {with_value}
    """)
    return True


def lab_coverage(src: MimicSource, cohort: int) -> dict[str, dict[str, float]]:
    """Cohort stays with at least one in-window result under each lab scope (the trap)."""
    if not require(src, "hosp.labevents"):
        return {scope: {"stays": 0, "fraction": 0.0} for scope in SCOPE_COLUMN}
    counts = src.con.execute(
        "SELECT "
        + ", ".join(f"count(DISTINCT stay_id) FILTER (WHERE {col})" for col in SCOPE_COLUMN.values())
        + f" FROM {TABLE}"
    ).fetchone()
    assert counts is not None
    return {
        scope: {"stays": n, "fraction": round(n / cohort, 4) if cohort else 0.0}
        for scope, n in zip(SCOPE_COLUMN, counts, strict=True)
    }
