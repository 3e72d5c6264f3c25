"""A patient's life in the hospital: a sequence of ED visits and elective admissions, in time order.

Most patients have one ED visit ending in admission; some have earlier visits (discharged home or
admitted) and planned admissions, which later encounters see as prior history. Before each planned
encounter come, with probability ``Knobs.release_visit`` each, ED visits that end without an
admission (home, transfer, left …), so that about a third of ED stays are not admitted, as on the
real demo. The last visit is always an admitted ED stay, so every patient contributes at least one
EarlyDx encounter.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import accumulate

from admitdx.synthetic import ids
from admitdx.synthetic.admission import AdmissionRequest, write_admission
from admitdx.synthetic.calibration import Knobs
from admitdx.synthetic.disposition import ADMITTED, RELEASE_DISPOSITIONS
from admitdx.synthetic.encounter import ed_visit
from admitdx.synthetic.patient import Patient, minutes, new_patient, weighted, write_omr, write_patient_row
from admitdx.synthetic.scenarios import BY_KEY, SCENARIOS
from admitdx.synthetic.truth import SECTIONS

_CUM_WEIGHTS = list(accumulate(s.weight for s in SCENARIOS))
ELECTIVE = ("cholecystitis", "unstable_angina", "ureteral_stone", "diverticulitis", "complete_heart_block")
MAX_ENCOUNTERS = 5
P_ELECTIVE = 0.12


def generate_patient(index: int, seed: int, sink: object, knobs: Knobs) -> None:
    p = new_patient(index, seed, sink, knobs)
    rng = p.rng
    n = 1 + min(MAX_ENCOUNTERS - 1, int(rng.expovariate(1.4)))
    first = datetime(p.anchor_year, 1, 1) + timedelta(days=rng.randint(0, 3 * 365))
    t = first + minutes(rng.choice((rng.uniform(420, 1439), rng.uniform(0, 1439))))
    admitted_ed = False
    end = t
    first_record = len(p.sink.truth)
    for j in range(n):
        last = j == n - 1
        while rng.random() < knobs.release_visit:
            t = _release_visit(p, t)
        if not last and rng.random() < P_ELECTIVE:
            end = _elective(p, t)
        else:
            sc = rng.choices(SCENARIOS, cum_weights=_CUM_WEIGHTS)[0]
            admitted = (last and not admitted_ed) or rng.random() < sc.admit_p
            admitted_ed |= admitted
            end = ed_visit(p, sc, t, ADMITTED if admitted else weighted(rng, RELEASE_DISPOSITIONS))
        day = (end + timedelta(days=rng.randint(14, 600))).replace(hour=0, minute=0, second=0)
        t = day + minutes(rng.uniform(420, 1439) if rng.random() < 0.8 else rng.uniform(0, 1439))
    write_omr(p, first, end)
    _mark_omr(p.sink.truth[first_record:], p.omr_dates)
    write_patient_row(p, end)


def _release_visit(p: Patient, t: datetime) -> datetime:
    """An ED visit that ends without an admission; returns when the next encounter may start."""
    rng = p.rng
    sc = rng.choices(SCENARIOS, cum_weights=_CUM_WEIGHTS)[0]
    end = ed_visit(p, sc, t, weighted(rng, RELEASE_DISPOSITIONS))
    day = (end + timedelta(days=rng.randint(7, 400))).replace(hour=0, minute=0, second=0)
    return day + minutes(rng.uniform(0, 1439))


def _mark_omr(records: list[dict], omr_dates: list[datetime]) -> None:
    """Outpatient measurements are drawn once the timeline is known; note which stays had one by t0."""
    if not omr_dates:
        return
    earliest = min(omr_dates).isoformat(sep=" ")
    for rec in records:
        if earliest <= (rec["t0"] or rec["ed_outtime"]):
            rec["sections_at_t0"] = [s for s in SECTIONS if s in rec["sections_at_t0"] or s == "omr"]


def _elective(p, admittime: datetime) -> datetime:
    sc = BY_KEY[p.rng.choice(ELECTIVE)]
    version = p.icd_version(admittime)
    dx = sc.primary
    return write_admission(
        p,
        AdmissionRequest(
            hadm_id=ids.hadm_id(p.index, p.next("hadm")),
            admittime=admittime.replace(second=0),
            admission_type=p.rng.choice(("ELECTIVE", "SURGICAL SAME DAY ADMISSION")),
            admission_location="PHYSICIAN REFERRAL",
            unit=sc.unit,
            los_days=(1.0, 3.0),
            version=version,
            billed=[(dx.key, dx.icd10 if version == 10 else dx.icd9)],
            chief_complaint=sc.cc[0],
        ),
    )
