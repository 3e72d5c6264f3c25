"""A hospital admission as MIMIC records it: admissions and transfers rows, billed codes, and the
discharge summary that later encounters read as prior history."""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from datetime import datetime, timedelta

from admitdx.synthetic import ids
from admitdx.synthetic.clinibench import EXTRA, admission_rng, extra_codes, icu_stay
from admitdx.synthetic.condition import long_title
from admitdx.synthetic.notes import discharge_sections
from admitdx.synthetic.patient import Patient, PriorAdmission, minutes, weighted
from admitdx.synthetic.vocab import ADMIT_UNITS, SERVICE_NAME

DISCHARGE_LOCATIONS = (
    ("HOME", 40),
    ("HOME HEALTH CARE", 27),
    ("SKILLED NURSING FACILITY", 14),
    ("REHAB", 4),
    ("CHRONIC/LONG TERM ACUTE CARE", 2),
    (None, 13),
)
NOTE_DISPOSITION = {"HOME": "Home", "HOME HEALTH CARE": "Home With Service", None: "Home"}


@dataclass
class AdmissionRequest:
    hadm_id: int
    admittime: datetime
    admission_type: str
    admission_location: str
    unit: str
    los_days: tuple[float, float]
    version: int
    billed: list[tuple[str, str]]  # (condition key, code) in billing order, principal first
    chief_complaint: str
    ed_stay: tuple[int, datetime, datetime] | None = None  # (stay_id, intime, outtime) when via the ED


def provider_id(p: Patient) -> str:
    return "P" + "".join(p.rng.choice(string.ascii_uppercase + string.digits) for _ in range(5))


def write_admission(p: Patient, req: AdmissionRequest) -> datetime:
    """Write the admission; returns its discharge time."""
    rng = p.rng
    dischtime = req.admittime + minutes(rng.uniform(*req.los_days) * 1440)
    died = rng.random() < 0.012
    location = "DIED" if died else weighted(rng, DISCHARGE_LOCATIONS)
    ed_in, ed_out = (req.ed_stay[1], req.ed_stay[2]) if req.ed_stay else (None, None)
    p.sink.add(
        "hosp.admissions",
        (
            p.subject_id,
            req.hadm_id,
            req.admittime,
            dischtime,
            dischtime if died else None,
            req.admission_type,
            provider_id(p),
            req.admission_location,
            location,
            p.insurance,
            p.language,
            p.marital,
            p.race,
            ed_in,
            ed_out,
            1 if died else 0,
        ),
    )
    _transfers(p, req, dischtime)
    # CliniBench's additions draw from the admission's own generator, never from p.rng
    extra = admission_rng(p, req.hadm_id)
    icu = icu_stay(
        p, extra, req.hadm_id, req.unit, req.ed_stay[2] if req.ed_stay else req.admittime, dischtime
    )
    billed = _bill(p, req, extra, icu)
    note_id, history = _discharge_note(p, req, dischtime, location, billed)
    pmh = [(c.key, c.pmh) for c in p.comorbidities] + [(EXTRA, title) for title in history]
    p.admissions.append(PriorAdmission(req.hadm_id, req.admittime, billed, pmh, note_id))
    return dischtime


def _transfers(p: Patient, req: AdmissionRequest, dischtime: datetime) -> None:
    units = ADMIT_UNITS[req.unit]
    if req.ed_stay:
        stay_id, ed_in, ed_out = req.ed_stay
        p.sink.add(
            "hosp.transfers",
            (p.subject_id, req.hadm_id, stay_id, "ED", "Emergency Department", ed_in, ed_out),
        )
        start = ed_out
    else:
        start = req.admittime
    first = units[1] if p.rng.random() < 0.25 else units[0]
    moves = [(first, start)]
    if p.rng.random() < 0.5 and dischtime - start > timedelta(days=1):
        stay_min = (dischtime - start).total_seconds() / 60
        moves.append((units[2], start + minutes(stay_min * p.rng.uniform(0.2, 0.6))))
    for n, (unit, t) in enumerate(moves):
        end = moves[n + 1][1] if n + 1 < len(moves) else dischtime
        tid = ids.stay_id(p.index, p.next("stay"))
        p.sink.add(
            "hosp.transfers",
            (p.subject_id, req.hadm_id, tid, "admit" if n == 0 else "transfer", unit, t, end),
        )
    tid = ids.stay_id(p.index, p.next("stay"))
    p.sink.add("hosp.transfers", (p.subject_id, req.hadm_id, tid, "discharge", None, dischtime, None))


def _bill(
    p: Patient, req: AdmissionRequest, rng: random.Random, icu: bool
) -> list[tuple[str, str, int, str]]:
    """Billed codes: the encounter's diagnoses first, then every chronic condition and its status
    code, then secondary codes up to CliniBench's codes per note (``synthetic.clinibench``)."""
    codes = list(req.billed)
    for c in p.comorbidities:
        codes.append((c.key, c.icd10 if req.version == 10 else c.icd9))
        if c.status:
            codes.append((c.key + "_status", c.status[0] if req.version == 10 else c.status[1]))
    codes += [(EXTRA, code) for code in extra_codes(rng, req.version, icu, [code for _, code in codes])]
    billed: list[tuple[str, str, int, str]] = []
    seen: set[str] = set()
    for key, code in codes:
        if code in seen:
            continue
        seen.add(code)
        billed.append((key, code, req.version, long_title(code, req.version)))
        p.sink.add("hosp.diagnoses_icd", (p.subject_id, req.hadm_id, len(billed), code, req.version))
    return billed


def note_rng(p: Patient, hadm_id: int) -> random.Random:
    """The discharge note's own generator: its prose never shifts the patient's other draws."""
    return random.Random(f"{p.seed}:{p.index}:note:{hadm_id}")


def _discharge_note(
    p: Patient,
    req: AdmissionRequest,
    dischtime: datetime,
    location: str | None,
    billed: list[tuple[str, str, int, str]],
) -> tuple[str, list[str]]:
    """Write the note; returns its id and the titles of the added codes its Past Medical History lists."""
    seq = p.next("DS") + 1
    note_id = f"{p.subject_id}-DS-{seq}"
    rng = note_rng(p, req.hadm_id)
    comorbid_keys = {c.key for c in p.comorbidities}
    acute = [
        title
        for key, _, _, title in billed
        if key not in comorbid_keys and not key.endswith("_status") and key != EXTRA
    ]
    coded = [(code, title) for key, code, _, title in billed if key == EXTRA]
    in_history = [(code, title) for code, title in coded if rng.random() < p.knobs.coded_in_history]
    chronic = [title for key, _, _, title in billed if key in comorbid_keys]
    text, sections, used = discharge_sections(
        rng,
        sex=p.gender,
        age=p.age_at(req.admittime),
        service=SERVICE_NAME[req.unit],
        chief_complaint=req.chief_complaint,
        pmh=[c.pmh for c in p.comorbidities],
        history=[title for _, title in in_history],
        results=f"___ 07:10AM BLOOD WBC-{rng.uniform(5, 12):.1f} Hgb-{rng.uniform(9, 14):.1f}*",
        course=[f"# {t}" for t in acute[:4]] or ["# Observation"],
        admission_meds=[m.split(" [")[0] for m in p.home_meds],
        discharge_meds=[m.split(" [")[0] for m in p.home_meds],
        disposition=NOTE_DISPOSITION.get(location, "Extended Care"),
        primary=acute[:3] or ["Observation"],
        secondary=chronic + [title for _, title in coded],
    )
    charttime = dischtime.replace(hour=0, minute=0, second=0)
    stored = dischtime + timedelta(hours=p.rng.uniform(2, 60))
    p.sink.add(
        "note.discharge",
        (note_id, p.subject_id, req.hadm_id, "DS", seq, charttime, stored.replace(microsecond=0), text),
    )
    p.sink.add("note.discharge_detail", (note_id, p.subject_id, "author", "___", 1))
    p.sink.note_truth.append(
        {
            "note_id": note_id,
            "hadm_id": req.hadm_id,
            "sections": sections,
            "headings": used,
            # billed code → the admission-time text that names it (Past Medical History)
            "mentions": {code: title for code, title in in_history}
            | {c.icd10 if req.version == 10 else c.icd9: c.pmh for c in p.comorbidities},
        }
    )
    return note_id, [title for _, title in in_history]
