"""One synthetic patient: demographics, chronic conditions, outpatient measurements and a timeline of
ED visits and admissions.

Every random draw of a patient comes from ``random.Random(f"{seed}:{index}")``, so a patient is the
same whatever chunk or worker process generates it: output does not depend on parallelism.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from admitdx.synthetic import ids
from admitdx.synthetic.calibration import Knobs
from admitdx.synthetic.comorbidities import BACKGROUND_MEDS, COMORBIDITIES, Comorbidity, prevalence
from admitdx.synthetic.vocab import (
    ANCHOR_YEAR_GROUPS,
    ICD10_START_YEAR,
    INSURANCE,
    MARITAL,
    RACES,
)


def weighted(rng: random.Random, options: tuple[tuple[Any, float], ...]) -> Any:
    return rng.choices([o for o, _ in options], [w for _, w in options])[0]


def minutes(n: float) -> timedelta:
    """A whole number of minutes: MIMIC times have minute (at most second) resolution."""
    return timedelta(minutes=round(n))


@dataclass
class PriorAdmission:
    hadm_id: int
    admittime: datetime
    billed: list[tuple[str, str, int, str]]  # (condition key, code, version, long title)
    pmh: list[tuple[str, str]]  # (condition key or clinibench.EXTRA, phrase) in its Past Medical History
    note_id: str


@dataclass
class PriorEdStay:
    stay_id: int
    intime: datetime
    diagnoses: list[tuple[str, str, int, str]]  # (condition key, code, version, ED title)


@dataclass
class Patient:
    index: int
    rng: random.Random
    sink: Any  # chunk.Chunk
    knobs: Knobs
    subject_id: int
    gender: str
    anchor_age: int
    anchor_year: int
    anchor_year_group: str
    real_year_at_anchor: float
    race: str
    insurance: str
    language: str
    marital: str | None
    comorbidities: list[Comorbidity]
    home_meds: list[str]
    omr_dates: list[datetime] = field(default_factory=list)
    admissions: list[PriorAdmission] = field(default_factory=list)
    ed_stays: list[PriorEdStay] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    seed: int = 0  # the root's seed (per-admission generators of synthetic.clinibench derive from it)

    def next(self, kind: str) -> int:
        """The next free slot of an identifier kind (hadm, stay, ecg, echo, lab, specimen, DS, RR)."""
        k = self.counters.get(kind, 0)
        self.counters[kind] = k + 1
        return k

    def age_at(self, t: datetime) -> int:
        return min(91, self.anchor_age + t.year - self.anchor_year)

    def icd_version(self, t: datetime) -> int:
        """ICD-9 before the real-world switch (Oct 2015), ICD-10 after, on the patient's shifted clock."""
        real = self.real_year_at_anchor + (t - datetime(self.anchor_year, 1, 1)).days / 365.25
        return 9 if real < ICD10_START_YEAR else 10

    def has(self, key: str) -> bool:
        return any(c.key == key for c in self.comorbidities)


def new_patient(index: int, seed: int, sink: Any, knobs: Knobs) -> Patient:
    rng = random.Random(f"{seed}:{index}")
    age = max(18, min(95, round(rng.triangular(18, 97, 72))))
    group = weighted(rng, ANCHOR_YEAR_GROUPS)
    comorbidities = [c for c in COMORBIDITIES if rng.random() < prevalence(c, age)]
    meds = [rng.choice(c.meds) for c in comorbidities]
    meds += rng.sample(BACKGROUND_MEDS, rng.randint(0, 3))
    return Patient(
        index=index,
        rng=rng,
        sink=sink,
        knobs=knobs,
        subject_id=ids.subject_id(index),
        gender="M" if rng.random() < 0.52 else "F",
        anchor_age=min(age, 91),
        anchor_year=rng.randint(2110, 2190),
        anchor_year_group=group,
        real_year_at_anchor=int(group[:4]) + rng.random() * 3,
        race=weighted(rng, RACES),
        insurance="Medicare" if age >= 65 and rng.random() < 0.85 else weighted(rng, INSURANCE),
        language="ENGLISH" if rng.random() < 0.91 else "?",
        marital=weighted(rng, MARITAL),
        comorbidities=comorbidities,
        home_meds=list(dict.fromkeys(meds)),
        seed=seed,
    )


def write_patient_row(p: Patient, last_event: datetime) -> None:
    dod = None
    if p.rng.random() < 0.1 + 0.002 * max(0, p.anchor_age - 60):
        dod = (last_event + timedelta(days=p.rng.randint(5, 360))).date().isoformat()
    p.sink.add(
        "hosp.patients", (p.subject_id, p.gender, p.anchor_age, p.anchor_year, p.anchor_year_group, dod)
    )


#: OMR result names beside the three every visit writes: the demo's postural blood pressures (6
#: rows in 2,964) and the unit-less spellings and eGFR that the MIMIC-IV documentation lists.
POSTURAL_BP = (
    "Blood Pressure Sitting",
    "Blood Pressure Lying",
    "Blood Pressure Standing",
    "Blood Pressure Standing (1 min)",
    "Blood Pressure Standing (3 mins)",
)
P_POSTURAL = 0.02  # a visit also records postural blood pressures
P_REPEAT_BP = 0.22  # a visit records its blood pressure twice (seq_num 2, as 84 demo rows have)


def write_omr(p: Patient, start: datetime, end: datetime) -> None:
    """Outpatient visits every few months: blood pressure and weight, BMI and sometimes height.

    Result names follow the release, not one spelling: the demo writes "Weight (Lbs)", "Height
    (Inches)" and "BMI (kg/m2)", the full release also "Weight", "Height" and "BMI" (MIMIC-IV hosp
    ``omr`` documentation), so some patients' clinics use the unit-less names; postural blood
    pressures, repeated readings (``seq_num`` 2) and eGFR for kidney disease appear now and then.
    """
    rng = p.rng
    if rng.random() < 0.25:  # not followed in the hospital's outpatient clinics
        return
    height = rng.gauss(69 if p.gender == "M" else 64, 2.5)
    weight = rng.gauss(190 if p.gender == "M" else 160, 35)
    base_sbp = 128 + (10 if p.has("htn") else 0)
    names = ("Weight", "BMI", "Height") if rng.random() < p.knobs.omr_unitless else (
        "Weight (Lbs)", "BMI (kg/m2)", "Height (Inches)"
    )  # fmt: skip

    def bp() -> str:
        return f"{round(rng.gauss(base_sbp, 12))}/{round(rng.gauss(76, 8))}"

    t = start - timedelta(days=rng.randint(60, 700))
    while t < end:
        day = t.replace(hour=0, minute=0, second=0)
        p.omr_dates.append(day)
        rows = [("Blood Pressure", 1, bp())]
        if rng.random() < P_REPEAT_BP:
            rows.append(("Blood Pressure", 2, bp()))
        if rng.random() < P_POSTURAL:
            rows += [(name, 1, bp()) for name in rng.sample(POSTURAL_BP, 2)]
        rows.append((names[0], 1, f"{weight + rng.gauss(0, 3):.1f}".rstrip("0").rstrip(".")))
        rows.append((names[1], 1, f"{703 * weight / height**2:.1f}"))
        if rng.random() < 0.3:
            rows.append((names[2], 1, f"{height:.0f}"))
        if p.has("ckd") and rng.random() < 0.5:
            rows.append(("eGFR", 1, rng.choice((">60", f"{rng.uniform(15, 59):.0f}"))))
        for name, seq, value in rows:
            p.sink.add("hosp.omr", (p.subject_id, day.date().isoformat(), seq, name, value))
        t += timedelta(days=rng.randint(60, 240))
