"""Every protocol choice of the EarlyDx builder, each defaulting to the paper's (or, where the paper
is silent, the authors' public builder's) value.

References are to Fang et al., *EarlyDx* (KDD 2026): §3.1 cohort, §3.2 input construction and
temporal cutoff, §3.3 labels, §4.1 split, §5.2 explicit/implicit, appendix D timestamp
semantics, appendix L windows, appendix N prior history, appendix P ablations.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

from admitdx.errors import UsageError
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.spec import param

#: Acute evidence sections in the paper's order (§3.2 items i–ix). Prior history (item x) is kept
#: apart in ``Instance.history`` (appendix N); its name for ``drop_sections`` is "history".
SECTION_NAMES: tuple[str, ...] = (
    "demographics",
    "chief_complaint",
    "triage",
    "ed_vitals",
    "home_meds",
    "omr",
    "baseline_labs",
    "labs",
    "ecg",
    "echo",
    "radiology",
)
HISTORY = "history"
DROPPABLE: tuple[str, ...] = (*SECTION_NAMES, HISTORY)

#: The paper's "demographics + chief complaint only" input ablation (§4.2, Table 2 "demo+CC").
DEMO_CC_ONLY: tuple[str, ...] = tuple(s for s in DROPPABLE if s not in ("demographics", "chief_complaint"))

#: 6,975 test of 120,789 split encounters (§4.1).
PAPER_TEST_FRACTION = 6975 / 120789


@dataclass(frozen=True)
class EarlyDxParams:
    """Parameters of ``admitdx build earlydx``; every field is recorded in the manifest.

    Temporal rules
      window_hours: W. Evidence is kept when its event time is <= t0 + W, t0 = admissions.admittime
        (§3.2; the benchmark uses W = 0, appendix L also reports 6 and 24).
      timestamps: "charttime" (event time, the paper's main setting) or "storetime" (when the
        result became readable; appendix D) for laboratory results and radiology reports.
      lab_scope: "ed-stay" takes the patient's results charted from ED arrival to the cutoff
        whatever their hadm_id, as the paper's rule "records charted at or before t0 + W" intends;
        "admission" takes only results carrying the admission's hadm_id, as the authors' public
        builder does. ED draws carry no hadm_id in MIMIC-IV, so "admission" finds labs for few
        encounters (on the real demo 36 of 172, against 165 with "ed-stay") — which is why the
        paper reports lab coverage of only 16 %. Both coverages go into the manifest.

    Labels
      label_text: "ed" scores the ED table's icd_title (the paper); "dictionary" the long title of
        the same code in d_icd_diagnoses (spells out ICD-9 abbreviations). Both are kept on every
        reference either way.
      label_filter: which titles count as over-generic (``labels.py``): "paper" the literal §3.3
        rule (NOS/NEC-marked generic titles), "authors" the public builder's seven patterns,
        "strict" every generic title, marked or not (admitdx before issue 14).

    Serialization
      layout: "paper" reproduces appendix I — the three prior-history lines between the baseline
        labs and the ECG, "Baseline (OMR): BP None, Wt None, Ht None, BMI None" placeholders, the
        appendix's field formats and the labs last; "demarcated" keeps prior history as a trailing,
        headed block, as appendix N recommends ("prior history should be demarcated as a distinct
        field"). Instance.sections and Instance.history are the same under both; only the text
        differs, so predictions made on one layout are refused when scored against the other.

    Split (§4.1)
      test_fraction: share of *patients* sent to test; default 6,975 / 120,789 as in the paper.
      seed: the split is a pure function of (seed, subject_id).

    Caps (the authors' builder; the paper does not state them)
      lab_char_budget: characters of the lab line; results are never cut mid-way, the header says
        how many were shown. The authors' builder keeps 700 ("the original serialization budget"),
        abnormal results first.
      home_meds_max 12, radiology_max_reports 8, radiology_findings_chars 230,
      radiology_impression_chars 180, echo_max_measurements 8, prior_dx_max 8, prior_ed_dx_max 8,
      prior_note_chars 400.
      serial_vital_fields: the vital signs shown for the first and last ED reading (the paper's
        appendix I shows heart rate and SpO2).
      ecg_lookback_hours: None takes the latest ECG before the cutoff however old (the authors');
        a number limits it to ECGs recorded that many hours before ED arrival or later.
      baseline_labs_before: "t0" takes the latest creatinine / haemoglobin strictly before t0
        (the authors'; at W = 0 this is often the ED draw itself); "ed-arrival" only those drawn
        before this ED visit, a true pre-encounter baseline.

    Orders where the paper gives none (each default is admitdx's; "source" is the authors' builder:
    the order the source table lists the rows, see ``sections/source_order.py``)
      home_meds_order: "alphabetical" keeps the first 12 names alphabetically; "source" the first 12
        in ``ed.medrecon`` order.
      omr_same_day: several OMR values of one kind on the latest day — "seq_num" takes the highest
        seq_num; "source" the day's last row in ``hosp.omr`` order (their sort by chartdate alone).
      echo_rows: "latest_study" shows the latest echocardiogram's measurements by name; "source"
        the first 8 rows of all studies by the cutoff, in table order.
      prior_dx_order: "recent_first" lists prior diagnoses latest admission (ED stay) first;
        "source" lists billed ones in ``hosp.diagnoses_icd`` order and past ED ones oldest stay first.
      omr_same_day "pandas" repeats their own sort (``sections/pandas_order.py``): pandas' default,
        unstable quicksort over the patient's rows in file order, whose pick among same-day rows is
        neither file order nor seq_num once a patient has more than 16 rows.

    The authors' text, rule by rule (each default is admitdx's; the EarlyDx README's departures)
      field_format "pandas" prints every field as their f-strings print a pandas row
        (``sections/pandas_print.py``): "nan" where nothing was recorded (a triage row or vital
        reading with nothing recorded is still shown), numbers as the column's inferred dtype prints
        them ("HR105" from an integer column, "HR105.0" from one with a gap), values untrimmed, echo
        units run on ("57%", "Normalnan"), and the lab and radiology counts in the header
        ("Initial labs (35):", "Radiology (0): None");
      age_format "joined" ("61yo"); ed_arrival_cutoff False keeps triage and chief complaint of an ED
        arrival after t0; home_meds_cutoff False keeps medications reconciled after t0;
        home_meds_more False drops the "(+N more)" suffix; single_reading "twice" prints a stay's only
        ED reading as both first and last;
      lab_format "authors" prints "label value*" without units, orders results as their two pandas
        sorts do and cuts the line at lab_char_budget characters mid-result; valueless_labs
        "question-mark" keeps results with no value as "Bacteria ?";
      omr_spelling "listed" takes "Weight (Lbs)" (then "Height (Inches)", "BMI (kg/m2)") whenever the
        patient has one, before the other spelling, whatever the dates; echo_none "missing" drops echo
        results spelled "None" (pandas reads them as missing); dedupe "exact" de-duplicates prior and
        past-ED diagnoses case-sensitively; tie_order "pandas" orders rows with equal sort keys as
        their pandas sort does over the rows in file order (``sections/pandas_order.py``): baseline
        creatinine / haemoglobin charted at one time, ECGs at one ``ecg_time``, radiology reports at
        one ``charttime``, earlier ED stays at one ``intime``, ED diagnoses sharing a ``seq_num``
        (the label list) — admitdx's default breaks those ties by a second key (labevent_id,
        study_id, note_id, stay_id, ICD code); baseline_time "both" dates a baseline lab by its
        charttime and, under ``timestamps`` storetime, its storetime too (their ``_time < admit``);
        omr_window "t0" keeps OMR values dated by t0's day whatever W (their ``chartdate <= admit``;
        admitdx's default moves OMR with the window, like every other section).

    reproduce: "authors" sets every option above to the authors' builder (``AUTHORS``), so that the
      input text equals theirs byte for byte (tests/test_earlydx_byte_reproduction.py); recorded in
      the manifest with the options it set.

    Ablations (appendix P)
      drop_sections: section names (see SECTION_NAMES, plus "history") rendered as None.
    """

    window_hours: float = param(0.0, "W: keep evidence charted by t0 + W hours (paper: 0; app. L: 6, 24).")
    timestamps: Literal["charttime", "storetime"] = param(
        "charttime", "charttime (paper) or storetime (appendix D), for labs and radiology."
    )
    lab_scope: Literal["ed-stay", "admission"] = param(
        "ed-stay", "ed-stay: results from ED arrival on, whatever their hadm_id; admission: the authors'."
    )
    label_text: Literal["ed", "dictionary"] = param(
        "ed", "ed: the ED table's title (paper); dictionary: the ICD long title of the same code."
    )
    label_filter: Literal["paper", "authors", "strict"] = param(
        "paper", "paper: §3.3 literally (NOS/NEC generic titles); authors: their builder's patterns; strict."
    )
    layout: Literal["paper", "demarcated"] = param(
        "paper", "paper: appendix I (history inline, None placeholders); demarcated: history block (app. N)."
    )
    test_fraction: float = param(PAPER_TEST_FRACTION, "Share of patients in test (paper: 6975/120789).")
    seed: int = param(0, "Seed of the patient-level split.")
    drop_sections: tuple[str, ...] = param((), f"Sections to ablate (appendix P): {', '.join(DROPPABLE)}.")
    lab_char_budget: int = param(700, "Characters of the lab line (authors: 700).")
    home_meds_max: int = param(12, "Home medications shown at most (authors: 12).")
    radiology_max_reports: int = param(8, "Radiology reports shown at most (authors: 8).")
    radiology_findings_chars: int = param(230, "Characters of a report's findings (authors: 230).")
    radiology_impression_chars: int = param(180, "Characters of a report's impression (authors: 180).")
    echo_max_measurements: int = param(8, "Echo measurements shown at most (authors: 8).")
    prior_dx_max: int = param(8, "Prior billed diagnoses shown at most (authors: 8).")
    prior_ed_dx_max: int = param(8, "Past ED diagnoses shown at most (authors: 8).")
    prior_note_chars: int = param(400, "Characters of the prior note's past medical history (authors: 400).")
    serial_vital_fields: tuple[str, ...] = param(
        ("heartrate", "o2sat"), "Vital signs of the first and last ED reading (appendix I: HR, SpO2)."
    )
    ecg_lookback_hours: float | None = param(
        None, "Only ECGs this many hours before ED arrival or later (default: the latest, however old)."
    )
    baseline_labs_before: Literal["t0", "ed-arrival"] = param(
        "t0", "t0: latest creatinine/haemoglobin before t0 (authors'); ed-arrival: before this visit."
    )
    home_meds_order: Literal["alphabetical", "source"] = param(
        "alphabetical",
        "Which home meds under the cap: alphabetical, or source: medrecon's row order (authors').",
    )
    omr_same_day: Literal["seq_num", "source", "pandas"] = param(
        "seq_num",
        "Same-day OMR: highest seq_num; source: last omr row; pandas: the authors' sort.",
    )
    echo_rows: Literal["latest_study", "source"] = param(
        "latest_study",
        "Echo: the latest study's measurements, or source: first rows of all studies (authors').",
    )
    prior_dx_order: Literal["recent_first", "source"] = param(
        "recent_first",
        "Prior dx under the cap: latest first, or source: table order, ED oldest first (authors').",
    )
    age_format: Literal["spaced", "joined"] = param(
        "spaced", "Age: spaced '61 yo', or joined '61yo' (authors')."
    )
    field_format: Literal["admitdx", "pandas"] = param(
        "admitdx", "Fields as admitdx writes them, or pandas: as the authors' f-strings print pandas rows."
    )
    ed_arrival_cutoff: bool = param(True, "Drop triage and chief complaint of an ED arrival after t0 (§3.2).")
    home_meds_cutoff: bool = param(True, "Drop home meds reconciled after t0 (§3.2; authors: no filter).")
    home_meds_more: bool = param(True, "Say '(+N more)' when home meds are cut (authors: no).")
    single_reading: Literal["once", "twice"] = param(
        "once", "A stay's only ED vital reading: once, or twice as first and last (authors')."
    )
    lab_format: Literal["admitdx", "authors"] = param(
        "admitdx",
        "Lab line: admitdx (units, ranges, whole results) or authors ('label value*', cut at the budget).",
    )
    valueless_labs: Literal["drop", "question-mark"] = param(
        "drop", "Lab results with no value: drop, or question-mark '?' (authors')."
    )
    omr_spelling: Literal["latest", "listed"] = param(
        "latest",
        "OMR spellings: the later value, or listed: 'Weight (Lbs)' first whatever the date (authors').",
    )
    omr_cutoff_day: Literal["keep", "drop"] = param(
        "keep",
        "OMR values dated on the cutoff's day (no time: may follow t0): keep (§3.2 v) or drop.",
    )
    echo_none: Literal["keep", "missing"] = param(
        "keep", "Echo results spelled 'None': keep, or missing as pandas reads them (authors')."
    )
    dedupe: Literal["casefold", "exact"] = param(
        "casefold", "Prior and past-ED diagnoses de-duplicated ignoring case, or exact (authors')."
    )
    tie_order: Literal["admitdx", "pandas"] = param(
        "admitdx", "Rows with equal sort keys: admitdx's second key, or pandas: the authors' sort."
    )
    baseline_time: Literal["charttime", "both"] = param(
        "charttime", "Baseline labs dated by charttime, or both: and by --timestamps' time (authors')."
    )
    omr_window: Literal["cutoff", "t0"] = param(
        "cutoff", "OMR dated by the cutoff's day (t0 + W), or t0: by t0's day whatever W (authors')."
    )
    reproduce: Literal["none", "authors"] = param(
        "none", "authors: set every option to the authors' builder, for their text byte for byte."
    )

    @classmethod
    def from_cli(cls, keep_sections: tuple[str, ...] = (), **values: Any) -> EarlyDxParams:
        """``--keep-sections A,B`` is the complement of ``--drop-sections`` (the demo+CC ablation)."""
        if keep_sections:
            if values.get("drop_sections"):
                raise UsageError("give --drop-sections or --keep-sections, not both")
            unknown = [k for k in keep_sections if k not in DROPPABLE]
            if unknown:
                raise UsageError(
                    f"unknown section(s): {', '.join(unknown)}", hint=f"choose from {', '.join(DROPPABLE)}"
                )
            values["drop_sections"] = tuple(s for s in DROPPABLE if s not in keep_sections)
        if values.get("reproduce") == "authors":
            defaults = {f.name: f.default for f in fields(cls)}
            clash = [k for k, v in AUTHORS.items() if values.get(k, v) not in (v, defaults[k])]
            if clash:
                raise UsageError(
                    f"--reproduce authors sets {', '.join(clash)} itself",
                    hint="leave those options out, or build without --reproduce",
                )
            values.update(AUTHORS)
            _refuse_what_they_cannot_build(values, defaults)
        return cls(**values)

    def __post_init__(self) -> None:
        _choice("timestamps", self.timestamps, ("charttime", "storetime"))
        _choice("lab_scope", self.lab_scope, ("ed-stay", "admission"))
        _choice("label_text", self.label_text, ("ed", "dictionary"))
        _choice("label_filter", self.label_filter, ("paper", "authors", "strict"))
        _choice("layout", self.layout, ("paper", "demarcated"))
        _choice("baseline_labs_before", self.baseline_labs_before, ("t0", "ed-arrival"))
        _choice("home_meds_order", self.home_meds_order, ("alphabetical", "source"))
        _choice("omr_same_day", self.omr_same_day, ("seq_num", "source", "pandas"))
        _choice("age_format", self.age_format, ("spaced", "joined"))
        _choice("field_format", self.field_format, ("admitdx", "pandas"))
        _choice("single_reading", self.single_reading, ("once", "twice"))
        _choice("lab_format", self.lab_format, ("admitdx", "authors"))
        _choice("valueless_labs", self.valueless_labs, ("drop", "question-mark"))
        _choice("omr_spelling", self.omr_spelling, ("latest", "listed"))
        _choice("omr_cutoff_day", self.omr_cutoff_day, ("keep", "drop"))
        _choice("echo_none", self.echo_none, ("keep", "missing"))
        _choice("dedupe", self.dedupe, ("casefold", "exact"))
        _choice("tie_order", self.tie_order, ("admitdx", "pandas"))
        _choice("baseline_time", self.baseline_time, ("charttime", "both"))
        _choice("omr_window", self.omr_window, ("cutoff", "t0"))
        _choice("reproduce", self.reproduce, ("none", "authors"))
        if self.reproduce == "authors":
            unset = [f"{k}={v!r}" for k, v in AUTHORS.items() if getattr(self, k) != v]
            if unset:  # the preset is applied by from_cli; a direct construction must spell it out
                raise UsageError(
                    f"reproduce='authors' needs {', '.join(unset)}",
                    hint="build the parameters with EarlyDxParams.from_cli(reproduce='authors')",
                )
        _choice("echo_rows", self.echo_rows, ("latest_study", "source"))
        _choice("prior_dx_order", self.prior_dx_order, ("recent_first", "source"))
        if self.window_hours < 0:
            raise UsageError(f"window_hours must be >= 0, got {self.window_hours}")
        if not 0.0 <= self.test_fraction < 1.0:
            raise UsageError(f"test_fraction must be in [0, 1), got {self.test_fraction}")
        unknown = [s for s in self.drop_sections if s not in DROPPABLE]
        if unknown:
            raise UsageError(
                f"unknown section(s) to drop: {', '.join(unknown)}",
                hint=f"choose from {', '.join(DROPPABLE)}",
            )
        bad_vitals = [v for v in self.serial_vital_fields if v not in _VITAL_FIELDS]
        if bad_vitals:
            raise UsageError(
                f"unknown vital field(s): {', '.join(bad_vitals)}", hint=f"choose from {_VITAL_FIELDS}"
            )

    def with_(self, **changes: Any) -> EarlyDxParams:
        return replace(self, **changes)

    def section_options(self) -> SectionOptions:
        """What the shared section library reads; EarlyDx shows every triage field (appendix I)."""
        return SectionOptions(
            timestamps=self.timestamps,
            lab_scope=self.lab_scope,
            lab_char_budget=self.lab_char_budget,
            home_meds_max=self.home_meds_max,
            radiology_max_reports=self.radiology_max_reports,
            radiology_findings_chars=self.radiology_findings_chars,
            radiology_impression_chars=self.radiology_impression_chars,
            echo_max_measurements=self.echo_max_measurements,
            prior_dx_max=self.prior_dx_max,
            prior_ed_dx_max=self.prior_ed_dx_max,
            prior_note_chars=self.prior_note_chars,
            serial_vital_fields=self.serial_vital_fields,
            ecg_lookback_hours=self.ecg_lookback_hours,
            baseline_labs_before=self.baseline_labs_before,
            home_meds_order=self.home_meds_order,
            omr_same_day=self.omr_same_day,
            echo_rows=self.echo_rows,
            prior_dx_order=self.prior_dx_order,
            age_format=self.age_format,
            field_format=self.field_format,
            ed_arrival_cutoff=self.ed_arrival_cutoff,
            home_meds_cutoff=self.home_meds_cutoff,
            home_meds_more=self.home_meds_more,
            single_reading=self.single_reading,
            lab_format=self.lab_format,
            valueless_labs=self.valueless_labs,
            omr_spelling=self.omr_spelling,
            omr_cutoff_day=self.omr_cutoff_day,
            echo_none=self.echo_none,
            dedupe=self.dedupe,
            tie_order=self.tie_order,
            baseline_time=self.baseline_time,
            omr_window=self.omr_window,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: What ``--reproduce authors`` sets: the authors' public builder (github.com/jimmylihui/EarlyDx,
#: pipeline/build_planA.py at b79ac61) on every point where it differs from a default.
AUTHORS: dict[str, Any] = {
    "label_filter": "authors",
    "lab_scope": "admission",
    "layout": "paper",
    "home_meds_order": "source",
    "omr_same_day": "pandas",
    "echo_rows": "source",
    "prior_dx_order": "source",
    "age_format": "joined",
    "field_format": "pandas",
    "ed_arrival_cutoff": False,
    "home_meds_cutoff": False,
    "home_meds_more": False,
    "single_reading": "twice",
    "lab_format": "authors",
    "valueless_labs": "question-mark",
    "omr_spelling": "listed",
    "echo_none": "missing",
    "dedupe": "exact",
    "tie_order": "pandas",
    "baseline_time": "both",
    "omr_window": "t0",
}

#: The settings of the authors' builder besides those ``AUTHORS`` fixes: its ``--window-hours``
#: choices and both ``--timestamp`` rules. The split (``test_fraction``, ``seed``) does not touch the
#: text. Any other option away from its default is one their builder has no setting for.
AUTHORS_SETTINGS: dict[str, tuple[Any, ...]] = {
    "window_hours": (0, 6, 24),
    "timestamps": ("charttime", "storetime"),
}
_SPLIT_ONLY = ("test_fraction", "seed", "reproduce")


def _refuse_what_they_cannot_build(values: dict[str, Any], defaults: dict[str, Any]) -> None:
    """``--reproduce authors`` with an option value their builder cannot be run with: exit 2."""
    bad = [
        f"{k}={v!r} (theirs: {', '.join(map(str, AUTHORS_SETTINGS[k]))})"
        for k, v in values.items()
        if k in AUTHORS_SETTINGS and v not in AUTHORS_SETTINGS[k]
    ]
    bad += [
        f"{k}={v!r}"
        for k, v in values.items()
        if k not in AUTHORS_SETTINGS
        and k not in AUTHORS
        and k not in _SPLIT_ONLY
        and _tuple(v) != _tuple(defaults[k])
    ]
    if bad:
        raise UsageError(
            f"--reproduce authors cannot reproduce {', '.join(bad)}: their builder has no such setting",
            hint="leave those options out, or build without --reproduce",
        )


def _tuple(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


_VITAL_FIELDS = ("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp")


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise UsageError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
