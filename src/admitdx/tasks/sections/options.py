"""The options the shared evidence sections read, apart from any one benchmark's parameters.

A task builds one :class:`SectionOptions` from its own parameters dataclass (where the defaults and
their paper citations live) and hands it to every section query and renderer. ``triage_fields``
is how a task selects what the triage section shows: ER-Reason's acuity task must not show the
acuity it asks for, while EarlyDx's input includes it (appendix I).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: Triage fields in the order the section renders them (EarlyDx appendix I).
TRIAGE_FIELDS: tuple[str, ...] = ("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp", "acuity")


@dataclass(frozen=True)
class SectionOptions:
    timestamps: Literal["charttime", "storetime"]
    lab_scope: Literal["ed-stay", "admission"]
    lab_char_budget: int
    home_meds_max: int
    radiology_max_reports: int
    radiology_findings_chars: int
    radiology_impression_chars: int
    echo_max_measurements: int
    prior_dx_max: int
    prior_ed_dx_max: int
    prior_note_chars: int | None  # None: whole (ER-Reason's one-liner input)
    serial_vital_fields: tuple[str, ...]
    ecg_lookback_hours: float | None
    baseline_labs_before: Literal["t0", "ed-arrival"]
    triage_fields: tuple[str, ...] = TRIAGE_FIELDS
    # Where the paper gives no rule: admitdx's explicit order, or "source", the order the source
    # table lists the rows, as the EarlyDx authors' builder keeps it (see sections/source_order.py).
    home_meds_order: Literal["alphabetical", "source"] = "alphabetical"
    omr_same_day: Literal["seq_num", "source", "pandas"] = "seq_num"
    echo_rows: Literal["latest_study", "source"] = "latest_study"
    prior_dx_order: Literal["recent_first", "source"] = "recent_first"
    # The EarlyDx authors' builder's text, rule by rule (EarlyDx ``--reproduce authors``; the
    # defaults are admitdx's, each departure is a row of the EarlyDx README's table).
    age_format: Literal["spaced", "joined"] = "spaced"
    field_format: Literal["admitdx", "pandas"] = "admitdx"
    ed_arrival_cutoff: bool = True
    home_meds_cutoff: bool = True
    home_meds_more: bool = True
    single_reading: Literal["once", "twice"] = "once"
    lab_format: Literal["admitdx", "authors"] = "admitdx"
    valueless_labs: Literal["drop", "question-mark"] = "drop"
    omr_spelling: Literal["latest", "listed"] = "latest"
    omr_cutoff_day: Literal["keep", "drop"] = "keep"  # OMR values of the cutoff's own day (issue 29)
    echo_none: Literal["keep", "missing"] = "keep"
    dedupe: Literal["casefold", "exact"] = "casefold"
    # equal sort keys (two ECGs at one time, ED diagnoses sharing a seq_num, …): admitdx's second
    # key, or "pandas": the authors' unstable sort over the rows in file order (pandas_order.py)
    tie_order: Literal["admitdx", "pandas"] = "admitdx"
    # a baseline lab is dated by its charttime, or "both": also by the ``timestamps`` time (the authors')
    baseline_time: Literal["charttime", "both"] = "charttime"
    # OMR by the cutoff's day (t0 + W), or "t0": by t0's day whatever W (the authors')
    omr_window: Literal["cutoff", "t0"] = "cutoff"
