"""ECG machine interpretation (§3.2 vii), windowed on ``ecg_time``: the latest
``ecg.machine_measurements`` record at or before the cutoff (the authors' builder; with
``ecg_lookback_hours`` only those recorded no earlier than that many hours before ED arrival).

Rendered as the ``report_0`` … ``report_17`` statements, then heart rate and the PR, QRS and QT
intervals derived from the fiducial points: HR = 60000 / RR, PR = QRS onset − P onset, QRS = QRS
end − QRS onset, QT = T end − QRS onset (ms). MIMIC-IV-ECG writes 29999 for a fiducial point the
machine could not place; such values, and a PR that is missing, non-positive or meaningless
because the statements mention atrial fibrillation, are shown as n/a. ``field_format`` "pandas"
prints the EarlyDx authors' line instead (``_as_pandas``). Two records at the latest ``ecg_time``:
the higher study_id, or under ``tie_order`` "pandas" the authors' pick, the last row after pandas'
unstable sort by ecg_time of the patient's records by the cutoff in file order.
"""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, require
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.sections.pandas_order import pandas_order
from admitdx.tasks.sections.pandas_print import column_kinds, is_missing, kinds_sql, pandas_str
from admitdx.tasks.sections.source_order import SOURCE_ROW, numbered

TABLE = "ecg.machine_measurements"
MISSING_SENTINEL = 29999
_POINTS = ("rr_interval", "p_onset", "qrs_onset", "qrs_end", "t_end")


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, TABLE):
        return None
    columns = {r[0] for r in src.con.execute(f"DESCRIBE {TABLE}").fetchall()}
    reports = [f"report_{i}" for i in range(18) if f"report_{i}" in columns]
    statements = f"list_value({', '.join(f'CAST(m.{c} AS VARCHAR)' for c in reports)})" if reports else "[]"
    points = ", ".join(
        f"{c} := TRY_CAST(m.{c} AS DOUBLE)" if c in columns else f"{c} := CAST(NULL AS DOUBLE)"
        for c in _POINTS
    )
    lookback = ""
    if p.ecg_lookback_hours is not None:
        micros = round(p.ecg_lookback_hours * 3.6e9)
        lookback = f"AND CAST(m.ecg_time AS TIMESTAMP) >= c.ed_intime - to_microseconds({micros})"
    if p.field_format == "pandas":  # how pandas prints each fiducial column, for their intervals
        points += (
            f", kinds := {kinds_sql(column_kinds(src, TABLE, tuple(c for c in _POINTS if c in columns)))}"
        )
    record = f"struct_pack(statements := {statements}, {points})"
    if p.tie_order == "pandas":
        return f"""
            SELECT c.stay_id, list(struct_pack(t := CAST(m.ecg_time AS TIMESTAMP), r := {record})
                                   ORDER BY m.{SOURCE_ROW}) AS v
            FROM cohort c JOIN {numbered(TABLE)} m ON m.subject_id = c.subject_id
            WHERE CAST(m.ecg_time AS TIMESTAMP) <= c.cutoff {lookback}
            GROUP BY c.stay_id
        """
    return f"""
        SELECT c.stay_id, {record} AS v
        FROM cohort c JOIN {TABLE} m ON m.subject_id = c.subject_id
        WHERE CAST(m.ecg_time AS TIMESTAMP) <= c.cutoff {lookback}
        QUALIFY row_number() OVER (PARTITION BY c.stay_id ORDER BY m.ecg_time DESC, m.study_id DESC) = 1
    """


def _point(v: dict[str, Any], name: str) -> float | None:
    x = v[name]
    return None if x is None or x >= MISSING_SENTINEL else x


def _interval(a: float | None, b: float | None) -> str:
    return "n/a" if a is None or b is None else f"{b - a:g}"


def _render(v: Any, p: SectionOptions) -> str | None:
    if v is None:
        return None
    if isinstance(v, list):  # tie_order "pandas": the records in file order
        v = v[pandas_order([x["t"] for x in v])[-1]]["r"]
    if p.field_format == "pandas":
        return _as_pandas(v)
    statements = [s.strip() for s in v["statements"] if s and s.strip()]
    text = "; ".join(statements)
    rr, p_on, q_on, q_end, t_end = (_point(v, n) for n in _POINTS)
    hr = f"{round(60000 / rr)}" if rr else "n/a"
    pr = _interval(p_on, q_on)
    if "atrial fib" in text.lower() or pr == "n/a" or float(pr) <= 0:
        pr = "n/a"
    return (
        f"{text or 'no statements'} | HR{hr} PR{pr} QRS{_interval(q_on, q_end)} QT{_interval(q_on, t_end)}ms"
    )


def _as_pandas(v: dict[str, Any]) -> str:
    """The EarlyDx authors' ECG line: statements as written, HR = round(60000 / RR), intervals as the
    difference of two columns prints (int64 "107", float64 "107.0", a gap "nan"), no 29999 sentinel,
    PR "n/a" for "trial fib", a gap or PR <= 0, and "?" everywhere when RR is missing or 0 (their
    ``try``/``except`` around ``round(60000 / rr)``)."""
    text = "; ".join(s for s in v["statements"] if not is_missing(s))
    kinds = v.get("kinds") or {}
    if not v["rr_interval"]:
        return f"{text} | HR? PR? QRS? QT?ms"

    def diff(a: str, b: str) -> float | None:
        return None if v[a] is None or v[b] is None else v[b] - v[a]

    def shown(x: float | None, a: str, b: str) -> str:
        both_int = kinds.get(a) == "int" and kinds.get(b) == "int"
        return pandas_str(x, "int" if both_int else "float")

    pr = diff("p_onset", "qrs_onset")
    pr_text = (
        "n/a" if "trial fib" in text.lower() or pr is None or pr <= 0 else shown(pr, "p_onset", "qrs_onset")
    )
    qrs, qt = (
        shown(diff("qrs_onset", "qrs_end"), "qrs_onset", "qrs_end"),
        shown(diff("qrs_onset", "t_end"), "qrs_onset", "t_end"),
    )
    return f"{text} | HR{round(60000 / v['rr_interval'])} PR{pr_text} QRS{qrs} QT{qt}ms"


SECTION = Section("ecg", "ECG", _sql, _render)
