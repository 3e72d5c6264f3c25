"""The shape of a scenario: one ED presentation and the diagnoses, findings and workup it leaves.

A scenario is data, not code: the encounter generator (``encounter.py``) reads it. Each diagnosis
(:class:`Dx`) names the single modality whose finding *confirms* it (a CT, a troponin, an ECG
rhythm, …) and two spellings of that finding: ``named`` states the diagnosis in words a reader
would match to its title (an impression "Acute pulmonary embolism"), ``implied`` shows it without
naming it ("filling defect in the right lower lobe segmental arteries"). Whether the finding is
charted before t0, after t0 or not at all is drawn per encounter; that draw sets the label's
intended evidence class (see ``truth.py``).
"""

from __future__ import annotations

from typing import NamedTuple

Codes = tuple[str, str]  # (ICD-10-CM, ICD-9-CM), dot-less

# Modalities that can confirm a diagnosis (direct evidence in the sense of EarlyDx §3.3).
CONFIRMING = ("radiology", "ecg", "labs", "echo", "vitals", "none")


class Dx(NamedTuple):
    """One codable diagnosis of a scenario."""

    key: str  # identity across encounters, e.g. "nstemi"; chronic ones match comorbidity keys
    icd10: str
    icd9: str
    confirm: str = "none"  # one of CONFIRMING
    named: str = ""  # confirming text naming the diagnosis (radiology impression, ECG statement)
    implied: str = ""  # confirming text showing it without naming it
    labs: tuple[tuple[str, float, float], ...] = ()  # confirming lab values: (lab key, low, high)
    exam: str = ""  # radiology exam that confirms it (radiology-confirmed only)
    p: float = 1.0  # probability it is coded in an encounter of the scenario (secondaries)


class Scenario(NamedTuple):
    """One ED presentation that ends in (or may end in) a hospital admission."""

    key: str
    system: str
    weight: float  # relative frequency among ED admissions
    cc: tuple[str, ...]  # chief-complaint spellings as triage nurses type them
    primary: Dx
    secondary: tuple[Dx, ...] = ()
    symptoms: tuple[Codes, ...] = ()  # R / 780-799 codes the ED often adds
    external: tuple[Codes, ...] = ()  # external-cause codes (injuries)
    esi: tuple[float, float, float] = (0.05, 0.5, 0.4)  # P(ESI 1), P(ESI 2), P(ESI 3); rest ESI 4
    ambulance: float = 0.5
    vitals: tuple[tuple[str, float], ...] = ()  # mean shifts: temp, hr, rr, o2, sbp, dbp
    labs: tuple[str, ...] = ()  # ED labs beyond CBC and chemistry
    exam: str = "CHEST (PORTABLE AP)"  # imaging done when not the confirming test
    ecg: tuple[str, ...] = ("Sinus rhythm", "Normal ECG")  # statements when the ECG is incidental
    ed_meds: tuple[str, ...] = ()
    unit: str = "medicine"
    los_days: tuple[float, float] = (1.5, 6.0)
    admit_p: float = 1.0  # probability an ED visit of this scenario is admitted
