"""What CliniBench needs of a synthetic admission: an ICU stay for some, and as many billed codes as
CliniBench's table 1 reports.

Table 1 (3-character codes per note): hosp ICD-9 10.0, hosp ICD-10 12.9, icu ICD-9 14.6, icu
ICD-10 18.4; about a quarter of hosp notes have an ICU stay (65k of 264k). An admission's own
diagnoses (its scenario, comorbidities and status codes) come first; further secondary codes are
drawn from the library with Zipf-like weights (a few frequent, many rare, so head, body and tail
tertiles all exist) until the admission has its target number of categories.

Every draw here comes from the admission's own generator, ``Random(f"{seed}:{index}:clinibench:
{hadm_id}")``, never from the patient's: the rest of the patient (and so every EarlyDx-relevant
row but the added codes) is the same as without this module.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from functools import lru_cache
from itertools import accumulate

from admitdx.ontology import icd
from admitdx.synthetic.library import library_codes
from admitdx.synthetic.patient import Patient, minutes

#: Mean 3-character codes per note (table 1) by (icu, version).
TARGET_CODES = {(False, 9): 10.0, (False, 10): 12.9, (True, 9): 14.6, (True, 10): 18.4}
TARGET_SD = 3.0
#: P(ICU stay) by admitting unit: ICU admissions mostly, others now and then (≈ 25 % overall).
ICU_SHARE = {"icu": 0.75, "cardiology": 0.3, "neurology": 0.3, "surgery": 0.25, "trauma": 0.35}
ICU_SHARE_OTHER = 0.12
ICU_UNITS = (
    "Medical Intensive Care Unit (MICU)",
    "Surgical Intensive Care Unit (SICU)",
    "Cardiac Vascular Intensive Care Unit (CVICU)",
    "Coronary Care Unit (CCU)",
    "Trauma SICU (TSICU)",
)
EXTRA = "coded_secondary"  # condition key of the added codes


def admission_rng(p: Patient, hadm_id: int) -> random.Random:
    return random.Random(f"{p.seed}:{p.index}:clinibench:{hadm_id}")


def icu_stay(
    p: Patient, rng: random.Random, hadm_id: int, unit: str, start: datetime, dischtime: datetime
) -> bool:
    """Maybe write an ``icu/icustays`` row inside the admission; True when one was written."""
    if rng.random() >= ICU_SHARE.get(unit, ICU_SHARE_OTHER):
        return False
    intime = start + minutes(rng.uniform(30, 360))
    if intime >= dischtime:
        intime = start
    outtime = min(dischtime, intime + minutes(rng.uniform(0.8, 5.0) * 1440))
    careunit = rng.choice(ICU_UNITS)
    los = round((outtime - intime) / timedelta(days=1), 4)
    # ICU stay ids: 39,xxx,xxx from the admission's own id, never a patient counter slot
    stay = 39_000_000 + hadm_id % 1_000_000
    p.sink.add("icu.icustays", (p.subject_id, hadm_id, stay, careunit, careunit, intime, outtime, los))
    return True


@lru_cache(maxsize=2)
def _pool(version: int) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """The library's codes of one version in a fixed shuffled order, with cumulative Zipf weights 1/rank."""
    codes = [c for c, v in library_codes() if v == version]
    random.Random(f"clinibench-pool:{version}").shuffle(codes)
    return tuple(codes), tuple(accumulate(1.0 / (rank + 1) for rank in range(len(codes))))


def extra_codes(rng: random.Random, version: int, icu: bool, billed: list[str]) -> list[str]:
    """Secondary codes to bill after ``billed`` so the admission reaches its drawn category count."""
    have = {icd.roll_up(c, version) for c in billed}
    target = max(len(have), round(rng.gauss(TARGET_CODES[(icu, version)], TARGET_SD)))
    codes, cumulative = _pool(version)
    out: list[str] = []
    for _ in range(200):
        if len(have) >= target:
            break
        code = rng.choices(codes, cum_weights=cumulative)[0]
        category = icd.roll_up(code, version)
        if category not in have:
            have.add(category)
            out.append(code)
    return out
