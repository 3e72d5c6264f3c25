"""Calibration targets (EarlyDx's published cohort statistics) and the generator knobs that meet them.

``TARGETS`` are the paper's figures (§3.2 Figure 3, §3.3, §3.4, §5.2, §5.4 and appendix F); the
report (``report.py``) prints what a generated root achieves next to each. ``Knobs`` are the
probabilities the generator draws with; their defaults were tuned so that a few thousand patients
land near the targets (see the report). They are parameters, not constants, so a user can generate
data with, say, richer imaging coverage.
"""

from __future__ import annotations

from typing import NamedTuple

# name → (target, how it is measured)
TARGETS: dict[str, tuple[float, str]] = {
    "labels_per_encounter": (
        1.43,
        "reference labels left after the EarlyDx filter, per admitted ED stay "
        "with at least one (paper: ~1.4; 1.42-1.72 across age groups)",
    ),
    "supported": (0.327, "share of labels whose intended evidence class is supported"),
    "partial": (0.370, "share of labels partially supported"),
    "unsupported": (0.304, "share of labels unsupported"),
    "verbatim_supported": (0.43, "share of supported labels named verbatim by evidence at t0"),
    "cc_triage": (1.00, "stays with chief complaint and triage vitals"),
    "ecg": (0.74, "stays with an ECG between ED arrival and t0"),
    "radiology": (0.65, "stays with a radiology report charted between ED arrival and t0"),
    "echo": (0.34, "stays with an echo study between ED arrival and t0"),
    "labs_admission": (0.16, "stays with a lab result carrying the admission's hadm_id, charted by t0"),
    "esi_1_2": (0.57, "stays triaged ESI 1 or 2"),
    "ambulance": (0.53, "stays arriving by ambulance"),
    "lab_storetime_drop": (0.027, "lab results charted in the ED before t0 whose storetime is after t0"),
    "radiology_storetime_drop": (0.193, "pre-t0 radiology reports whose storetime is after t0"),
}


class Knobs(NamedTuple):
    """Probabilities the generator draws with (defaults tuned to ``TARGETS``)."""

    # An acute diagnosis has its confirming finding charted by t0, by confirming modality. Imaging and
    # ECG confirm before admission more often than labs (EarlyDx appendix H: imaging is the largest
    # single source of support, 32 %, labs 19 %).
    supported_radiology: float = 0.6
    supported_ecg: float = 0.6
    supported_labs: float = 0.32
    supported_vitals: float = 0.4
    acute_partial: float = 0.2  # … has only a suggestive sign by t0 (rest: nothing at t0)
    unconfirmed_partial: float = 0.55  # an acute diagnosis without a confirming test is suggested at t0
    named: float = 0.85  # a confirming report or ECG names the diagnosis (else shows it)
    late_confirmation: float = 0.8  # a diagnosis not confirmed by t0 is confirmed within 24 h after
    comorbidity_coded: float = 0.13  # a chronic condition is put on the ED diagnosis list
    symptom_coded: float = 0.45
    status_coded: float = 0.35
    generic_coded: float = 0.03  # an over-generic title ("Disorder of kidney and ureter, unspecified")
    ecg: float = 0.74  # ECG by t0 when the scenario does not depend on one
    ecg_rare: float = 0.3  # … in scenarios that rarely get one (injury, abdominal surgery)
    radiology: float = 0.55  # routine imaging by t0 when no confirming exam is charted
    echo: float = 0.26  # echo by t0 (cardiac scenarios: doubled)
    labs_admission: float = 0.16  # a repeat draw linked to the admission before t0
    medrecon: float = 0.85
    transfer: float = 0.3  # an unsupported primary diagnosis came as an outside-hospital transfer
    esi_shift: float = -0.1  # added to each scenario's P(ESI 1-2) split evenly (calibration)
    ambulance_shift: float = 0.02
    # Before each planned encounter, P(another ED visit that ends without an admission): tuned so
    # that 68 % of ED stays end ADMITTED, as on the open MIMIC-IV-ED demo (facts.py)
    release_visit: float = 0.25
    # A secondary code added for CliniBench's codes per note is listed in the discharge note's Past
    # Medical History, so the admission text supports it (the paper is silent; before issue 21 none
    # was, and two thirds of CliniBench labels had no support in the text)
    coded_in_history: float = 0.6
    # A patient's clinics chart "Weight" / "Height" / "BMI" without units, as the MIMIC-IV omr
    # documentation lists beside "Weight (Lbs)" … (our share: the demo has only the unit spellings)
    omr_unitless: float = 0.15
