"""Baseline outpatient measurements (§3.2 v): the latest blood pressure, weight, height and BMI in
``hosp.omr`` whose chartdate is on or before the day of the cutoff (OMR has day resolution only).

Result names follow the authors' builder: "Blood Pressure"; "Weight (Lbs)" or "Weight"; "Height
(Inches)" or "Height"; "BMI (kg/m2)" or "BMI". The section is None when none of the four exists
(the authors print "BP None, Wt None, …", which makes the section look present for everyone).

Several values of one kind on the latest day (a repeated blood pressure is common) need a
tie-break the paper does not give. ``omr_same_day`` "seq_num" (default) takes the highest
``seq_num`` of the day, the last measurement OMR numbers. "source" takes the day's last row in the
order ``hosp.omr`` lists them, which is what the authors' builder intends: it sorts the patient's
rows by chartdate alone and takes the last (``sort_values('chartdate').iloc[-1]``). pandas' default
sort is not stable, so their own pick among same-day rows can change with the row count and the
machine; "source" is the stable reading of it. The MIMIC files are not sorted by seq_num, so the
two choices can differ (pinned in tests/test_earlydx_authors_choices.py). "pandas" repeats their
sort itself (:mod:`.pandas_order`) over all the patient's rows in file order, every result name
included since they are sorted together: on the real demo it differs from "source" on 3 encounters.

OMR has day resolution, so a value of the cutoff's own day may have been measured after t0 (a
clinic visit in the afternoon of a morning admission). The paper's rule keeps it (§3.2 v: "on or
before"), and so does the default; ``omr_cutoff_day`` "drop" keeps only earlier days. Either way
the build counts the values shown that are dated on that day (:func:`cutoff_day_tally`).

Two spellings of one kind: by default the later value counts; ``omr_spelling`` "listed" takes
"Weight (Lbs)" whenever the patient has one, before "Weight", whatever the dates, as the authors do
(their ``lo('Weight (Lbs)', 'Weight')``), and likewise for height and BMI.
"""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime
from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, require
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.sections.pandas_order import pandas_order
from admitdx.tasks.sections.pandas_print import column_kinds, pandas_str
from admitdx.tasks.sections.source_order import SOURCE_ROW, numbered

#: kind -> (label shown, {result_name: unit})
KINDS: dict[str, tuple[str, dict[str, str]]] = {
    "bp": ("BP", {"Blood Pressure": ""}),
    "weight": ("Wt", {"Weight (Lbs)": " lb", "Weight": ""}),
    "height": ("Ht", {"Height (Inches)": " in", "Height": ""}),
    "bmi": ("BMI", {"BMI (kg/m2)": "", "BMI": ""}),
}


def _kind_case() -> str:
    whens = " ".join(
        f"WHEN o.result_name IN ({', '.join(repr(n) for n in names)}) THEN '{kind}'"
        for kind, (_, names) in KINDS.items()
    )
    return f"CASE {whens} END"


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "hosp.omr"):
        return None
    kind = _kind(p, src)
    if p.omr_same_day == "pandas":
        return _every_row_sql(kind, p)
    source = p.omr_same_day == "source"
    table = numbered("hosp.omr") if source else "hosp.omr"
    same_day = f"{SOURCE_ROW} DESC" if source else "seq_num DESC, name, value"
    return f"""
        WITH o AS (
            SELECT c.stay_id, {_kind_case()} AS kind, o.result_name AS name, trim(o.result_value) AS value,
                   CAST(o.chartdate AS DATE) AS d, o.seq_num{f", o.{SOURCE_ROW}" if source else ""}
            FROM cohort c JOIN {table} o ON o.subject_id = c.subject_id
            WHERE CAST(o.chartdate AS DATE) {_by_day(p)} CAST(c.cutoff AS DATE)
              {_t0_day(p)}
        ), latest AS (
            SELECT * FROM o WHERE kind IS NOT NULL
            QUALIFY row_number() OVER (PARTITION BY stay_id, kind
                                       ORDER BY {_spelling(p)}d DESC, {same_day}) = 1
        )
        SELECT stay_id, struct_pack({_per_kind()}{kind}) AS v
        FROM latest GROUP BY stay_id
    """


def _by_day(p: SectionOptions) -> str:
    """The chartdate's comparison with the cutoff's day: on or before it (the paper), or before."""
    return "<" if p.omr_cutoff_day == "drop" else "<="


def _spelling(p: SectionOptions) -> str:
    """``omr_spelling`` "listed": a kind's first-listed result name before the other, any date."""
    if p.omr_spelling == "latest":
        return ""
    firsts = ", ".join(repr(next(iter(names))) for _, names in KINDS.values())
    return f"name NOT IN ({firsts}), "


def _kind(p: SectionOptions, src: MimicSource) -> str:
    """``field_format`` "pandas": how pandas prints result_value (as written, since blood pressures
    are text), as a struct field for the renderer."""
    if p.field_format != "pandas":
        return ""
    return f", kind := '{column_kinds(src, 'hosp.omr', ('result_value',))['result_value']}'"


def _t0_day(p: SectionOptions) -> str:
    """``omr_window`` "t0": the authors date OMR by t0's day whatever W (``chartdate <= admit``)."""
    return "AND CAST(o.chartdate AS DATE) <= CAST(c.t0 AS DATE)" if p.omr_window == "t0" else ""


def _every_row_sql(kind: str, p: SectionOptions) -> str:
    """The patient's rows by the cutoff day, every result name, in ``hosp.omr`` order: the array
    the authors' ``sort_values('chartdate')`` sorts (``omr_same_day`` "pandas")."""
    return f"""
        SELECT c.stay_id,
               struct_pack(rows := list(struct_pack(name := o.result_name,
                                                    value := CAST(o.result_value AS VARCHAR),
                                                    d := CAST(o.chartdate AS DATE))
                                        ORDER BY o.{SOURCE_ROW}){kind}) AS v
        FROM cohort c JOIN {numbered("hosp.omr")} o ON o.subject_id = c.subject_id
        WHERE CAST(o.chartdate AS DATE) {_by_day(p)} CAST(c.cutoff AS DATE)
          {_t0_day(p)}
        GROUP BY c.stay_id
    """


def _pandas_pick(rows: list[dict[str, Any]], p: SectionOptions) -> dict[str, Any]:
    """Per kind, the last row of its name(s) after pandas' unstable sort by chartdate."""
    ordered = [rows[i] for i in pandas_order([r["d"] for r in rows])]
    picked: dict[str, Any] = {}
    for kind, (_, names) in KINDS.items():
        groups = [[n] for n in names] if p.omr_spelling == "listed" else [list(names)]
        for group in groups:
            hits = [r for r in ordered if r["name"] in group]
            if hits:
                picked[kind] = hits[-1]
                break
        else:
            picked[kind] = None
    return picked


def _per_kind() -> str:
    return ", ".join(
        f"{kind} := any_value(struct_pack(name, value, d)) FILTER (WHERE kind = '{kind}')" for kind in KINDS
    )


def _render(v: Any, p: SectionOptions) -> str | None:
    if not v:
        return None
    if p.omr_same_day == "pandas":
        v = {**_pandas_pick(v["rows"], p), "kind": v.get("kind")}
    if p.field_format == "pandas":  # their "BP 153/60, Wt 253.7, Ht None, BMI 34.9": no units
        return ", ".join(
            f"{label} {pandas_str(v[kind]['value'], v['kind']) if v[kind] else 'None'}"
            for kind, (label, _) in KINDS.items()
        )
    parts = []
    for kind, (label, units) in KINDS.items():
        if v[kind] is not None:
            parts.append(f"{label} {v[kind]['value']}{units.get(v[kind]['name'], '')}")
    return ", ".join(parts) or None


def _shown(v: Any, p: SectionOptions) -> list[dict[str, Any]]:
    """The rows whose values the section shows (one per kind at most)."""
    picked = _pandas_pick(v["rows"], p) if p.omr_same_day == "pandas" else v
    return [picked[kind] for kind in KINDS if picked.get(kind)]


def cutoff_day_tally(v: Any, cutoff: Any, t0: Any, p: SectionOptions) -> Counter[str]:
    """Of one encounter's OMR section (its query's ``v``): how many values shown are dated on the
    cutoff's own day (OMR has no time of day: such a value may postdate t0), whether there are
    any, and whether t0 is then before 06:00 (a same-day measurement most likely followed the
    admission). Every key is present, zero or not, so the manifest always lists them."""
    day = _day(cutoff)
    same = sum(1 for r in (_shown(v, p) if v else []) if day is not None and _day(r["d"]) == day)
    early = same > 0 and isinstance(t0, datetime) and t0.hour < 6
    return Counter(
        {
            "omr_values_on_t0_day": same,
            "omr_encounters_on_t0_day": int(same > 0),
            "omr_encounters_on_t0_day_t0_before_6am": int(early),
        }
    )


def _day(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10]) if value else None


SECTION = Section("omr", "Baseline (OMR)", _sql, _render)
