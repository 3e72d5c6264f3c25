"""Prior history as evidence: what earlier admissions and ED stays already said about a condition.

EarlyDx's prior-history field holds the long titles billed on earlier admissions, the ED diagnoses of
earlier ED stays, and the Past Medical History of the latest earlier discharge note, all from
encounters that began before t0. A condition found there is at least partially supported.
"""

from __future__ import annotations

from datetime import datetime

from admitdx.synthetic.clinibench import EXTRA
from admitdx.synthetic.condition import Condition, long_title
from admitdx.synthetic.patient import Patient


def place_prior_history(p: Patient, conds: list[Condition], t0: datetime) -> bool:
    """Place prior-history evidence for ``conds``; True when the patient has any prior history at t0."""
    admissions = [a for a in p.admissions if a.admittime < t0]
    stays = [s for s in p.ed_stays if s.intime < t0]
    for c in conds:
        for adm in admissions:
            for key, code, version, title in adm.billed:
                # a secondary code CliniBench's calibration added names the condition all the same
                if key == c.key or (key == EXTRA and (code, version) == (c.code, c.version)):
                    c.place(
                        "prior_history",
                        "hosp.diagnoses_icd",
                        adm.hadm_id,
                        adm.admittime,
                        t0,
                        title,
                        direct=False,
                    )
        for stay in stays:
            for key, _code, _version, title in stay.diagnoses:
                if key == c.key:
                    c.place(
                        "prior_history", "ed.diagnosis", stay.stay_id, stay.intime, t0, title, direct=False
                    )
        if admissions:
            latest = admissions[-1]
            for key, phrase in latest.pmh:
                # an added code the note lists by its title names the condition all the same
                if key == c.key or (key == EXTRA and phrase == long_title(c.code, c.version)):
                    c.place(
                        "prior_history",
                        "note.discharge",
                        latest.note_id,
                        latest.admittime,
                        t0,
                        phrase,
                        direct=False,
                    )
    return bool(admissions or stays)
