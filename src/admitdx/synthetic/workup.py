"""The ED workup as MIMIC records it: lab draws, ECGs, imaging reports and echo studies.

Each writer emits the table rows and, for every condition a record bears on, a placement in
``_truth`` (condition.place). Timing follows real MIMIC: ED draws carry an empty ``hadm_id``; a
result's ``storetime`` lags its ``charttime`` (labs median ≈ 1.2 h, radiology ≈ 1.8 h, EarlyDx §3.2).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from admitdx.synthetic import ids
from admitdx.synthetic.notes import EXAMS, radiology_text
from admitdx.synthetic.vocab import FEMALE_RANGES, LABS, TEXT_LABS

if TYPE_CHECKING:
    from admitdx.synthetic.condition import Condition
    from admitdx.synthetic.patient import Patient

# Chronic conditions shift a patient's baseline values.
BASELINE_SHIFTS: dict[str, dict[str, tuple[float, float]]] = {
    "ckd": {"cr": (1.5, 2.8), "bun": (22, 45)},
    "dm2": {"glu": (140, 260)},
    "cirrhosis": {"plt": (55, 125), "inr": (1.3, 1.9), "tbili": (1.6, 3.6), "alb": (2.3, 3.2)},
    "chf": {"bnp": (900, 3200)},
}
LAB_LAG_MIN = 50.0  # median minutes from charttime to storetime
RAD_LAG_MIN = 95.0


def lag(p: Patient, median_min: float, spread: float = 0.55) -> timedelta:
    return timedelta(minutes=max(8, round(math.exp(math.log(median_min) + p.rng.gauss(0, spread)))))


def _number(value: float, decimals: int) -> str:
    return f"{value:.{decimals}f}" if decimals else str(round(value))


class LabPanel:
    """Values for one encounter: baseline (chronic shifts) plus abnormal ranges before / after t0."""

    def __init__(self, p: Patient, pre: dict[str, tuple[float, float]], post: dict[str, tuple[float, float]]):
        self.p = p
        self.base: dict[str, tuple[float, float]] = {}
        for c in p.comorbidities:
            self.base.update(BASELINE_SHIFTS.get(c.key, {}))
        self.pre, self.post = pre, post

    def ranges(self, key: str) -> tuple[tuple[float, float] | None, tuple[float, float]]:
        """(reference range, healthy range) for this patient's sex."""
        if self.p.gender == "F" and key in FEMALE_RANGES:
            return FEMALE_RANGES[key]
        return LABS[key].ref, LABS[key].normal

    def value(self, key: str, after_t0: bool) -> tuple[float, bool]:
        """(value, abnormal-by-design)."""
        override = (self.post if after_t0 else self.pre).get(key)
        lo, hi = override or self.base.get(key) or self.ranges(key)[1]
        return self.p.rng.uniform(lo, hi), override is not None


def draw_labs(
    p: Patient,
    panel: LabPanel,
    keys: list[str],
    when: datetime,
    t0: datetime,
    hadm_id: int | None,
    by_lab: dict[str, list[Condition]],
    section: str,
    priority: str = "STAT",
) -> None:
    """One blood/urine draw: one row per item, sharing a specimen_id and (roughly) a storetime."""
    specimen = ids.row_id(p.index, p.next("specimen"), 400) + 1_000_000_000
    stored = when + lag(p, LAB_LAG_MIN)
    after = when > t0
    for key in dict.fromkeys(keys):
        labevent_id = ids.row_id(p.index, p.next("lab"))
        stored_k = stored + timedelta(minutes=p.rng.randint(0, 6))
        if key in TEXT_LABS:
            itemid, _label, _fluid, _cat, normal, abnormal = TEXT_LABS[key]
            sick = (panel.post if after else panel.pre).get("ua_wbc") is not None
            text = p.rng.choice(abnormal) if sick else normal
            row = (
                labevent_id,
                p.subject_id,
                hadm_id,
                specimen,
                itemid,
                None,
                when,
                stored_k,
                None,
                None,
                None,
                None,
                None,
                "abnormal" if sick else None,
                priority,
                text,
            )
        else:
            item = LABS[key]
            v, by_design = panel.value(key, after)
            text = _number(v, item.decimals)
            ref = panel.ranges(key)[0]
            lo, hi = ref or (None, None)
            abnormal = ref is not None and not (lo <= float(text) <= hi)
            comment = "cTropnT > 0.10 ng/mL suggests Acute MI." if key == "trop" and v > 0.1 else None
            row = (
                labevent_id,
                p.subject_id,
                hadm_id,
                specimen,
                item.itemid,
                None,
                when,
                stored_k,
                text,
                text,
                item.unit,
                lo,
                hi,
                "abnormal" if abnormal else None,
                priority,
                comment,
            )
            if by_design:
                for cond in by_lab.get(key, ()):
                    cond.place(
                        section,
                        "hosp.labevents",
                        labevent_id,
                        when,
                        t0,
                        f"{item.label} {text}",
                        direct=True,
                        storetime=stored_k,
                    )
        p.sink.add("hosp.labevents", row)


def write_ecg(p: Patient, when: datetime, heart_rate: float, statements: list[str]) -> int:
    study = ids.ecg_study_id(p.index, p.next("ecg"))
    sid = str(p.subject_id)
    p.sink.add(
        "ecg.record_list", (p.subject_id, study, study, when, f"files/p{sid[:4]}/p{sid}/s{study}/{study}")
    )
    rr = round(60000 / max(30.0, heart_rate))
    irregular = any("fibrillation" in s.lower() for s in statements)
    p_onset, p_end = (None, None) if irregular else (40, 40 + p.rng.randint(90, 120))
    qrs_onset = 200 + p.rng.randint(-10, 10)
    qrs_end = qrs_onset + p.rng.randint(80, 110)
    t_end = qrs_onset + round(0.4 * math.sqrt(rr) * 36)
    reports = (statements + [None] * 18)[:18]
    p.sink.add(
        "ecg.machine_measurements",
        (
            p.subject_id,
            study,
            6000 + p.index % 97,
            when,
            *reports,
            "0.005-150 Hz",
            "60 Hz notch Baseline filter",
            rr,
            p_onset,
            p_end,
            qrs_onset,
            qrs_end,
            t_end,
            None if irregular else p.rng.randint(20, 75),
            p.rng.randint(-30, 80),
            p.rng.randint(0, 70),
        ),
    )
    return study


def write_radiology(
    p: Patient,
    when: datetime,
    hadm_id: int | None,
    exam: str,
    indication: str,
    finding: str | None,
    impression: str | None,
) -> tuple[str, datetime, str]:
    """A report and its detail rows; returns (note_id, storetime, text)."""
    seq = p.next("RR") + 1
    note_id = f"{p.subject_id}-RR-{seq}"
    stored = when + lag(p, RAD_LAG_MIN, 0.6)
    text = radiology_text(exam, indication, finding, impression)
    p.sink.add("note.radiology", (note_id, p.subject_id, hadm_id, "RR", seq, when, stored, text))
    code, cpt = EXAMS[exam]
    for ordinal, (name, value) in enumerate((("exam_code", code), ("exam_name", exam), ("cpt_code", cpt)), 1):
        p.sink.add("note.radiology_detail", (note_id, p.subject_id, name, value, ordinal))
    return note_id, stored, text


def write_echo(p: Patient, when: datetime, lvef: float, rv: str, effusion: str) -> tuple[int, str]:
    """An echo study (study list, DICOM list, structured measurements); returns (study_id, summary)."""
    study = ids.echo_study_id(p.index, p.next("echo"))
    sid = str(p.subject_id)
    p.sink.add("echo.echo_study_list", (p.subject_id, study, when, None, None, None))
    for n in (1, 2):
        p.sink.add(
            "echo.echo_record_list",
            (
                p.subject_id,
                study,
                when + timedelta(minutes=n),
                f"files/p{sid[:2]}/p{sid}/s{study}/{study}_{n:04d}.dcm",
            ),
        )
    measurements = (
        ("LVEF", f"{lvef:.0f}", "%"),
        ("LV end-diastolic diameter", f"{p.rng.uniform(4.2, 5.4) + (0.8 if lvef < 40 else 0):.1f}", "cm"),
        ("Interventricular septum thickness", f"{p.rng.uniform(0.8, 1.3):.1f}", "cm"),
        ("Left atrial volume index", f"{p.rng.uniform(22, 40):.0f}", "mL/m2"),
        ("TAPSE", f"{p.rng.uniform(1.2, 1.6) if rv != 'Normal' else p.rng.uniform(1.8, 2.6):.1f}", "cm"),
        ("Right ventricular size", rv, None),
        ("Pericardial effusion", effusion, None),
    )
    for name, result, unit in measurements:
        p.sink.add("echo.structured_measurement", (p.subject_id, when, name, result, unit))
    return study, "; ".join(f"{n} {r}" for n, r, _ in measurements)
