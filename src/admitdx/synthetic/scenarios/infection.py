"""Systemic and soft-tissue infection: sepsis by source, cellulitis."""

from __future__ import annotations

from admitdx.synthetic.scenarios.base import Dx, Scenario

SEPSIS_LABS = (("lactate", 2.6, 7.5), ("wbc", 14.5, 28.0))
SEVERE_SEPSIS = Dx("severe_sepsis", "R6520", "99592", "vitals", p=0.35)
SEPTIC_SHOCK = Dx("septic_shock", "R6521", "78552", "vitals", p=0.15)

SCENARIOS = (
    Scenario(
        "sepsis_urinary",
        "infection",
        3.0,
        ("Fever", "AMS", "Hypotension", "Fever, Confusion", "sepsis", "Weakness, fever", "Lethargy"),
        Dx("sepsis", "A419", "0389", "labs", labs=SEPSIS_LABS),
        secondary=(
            Dx("uti", "N390", "5990", "labs", labs=(("ua_wbc", 60, 182),), p=0.7),
            SEVERE_SEPSIS,
            SEPTIC_SHOCK,
            Dx("aki", "N179", "5849", "labs", labs=(("cr", 2.1, 4.5),), p=0.3),
        ),
        symptoms=(("R509", "78060"),),
        esi=(0.2, 0.7, 0.1),
        ambulance=0.7,
        vitals=(("temp", 2.6), ("hr", 30), ("sbp", -28), ("rr", 6)),
        labs=("lactate", "ua_leuk", "ua_nitrite", "ua_wbc", "pt", "inr"),
        ed_meds=("CefTRIAXone", "Vancomycin"),
        unit="icu",
        los_days=(4, 9),
    ),
    Scenario(
        "sepsis_pneumonia",
        "infection",
        2.5,
        ("Fever", "SOB", "Hypoxia", "Fever, Cough", "AMS", "Hypotension"),
        Dx("sepsis", "A419", "0389", "labs", labs=SEPSIS_LABS),
        secondary=(
            Dx(
                "pneumonia",
                "J189",
                "486",
                "radiology",
                exam="CHEST (PORTABLE AP)",
                named="Multifocal pneumonia (organism unspecified)",
                implied="Multifocal consolidations in the right lower and left lower lobes",
                p=0.8,
            ),
            SEVERE_SEPSIS,
            SEPTIC_SHOCK,
            Dx("resp_failure", "J9601", "51881", "vitals", p=0.3),
        ),
        symptoms=(("R0902", "79902"),),
        esi=(0.3, 0.65, 0.05),
        ambulance=0.75,
        vitals=(("temp", 2.4), ("hr", 28), ("sbp", -25), ("rr", 9), ("o2", -7)),
        labs=("lactate", "pt", "inr"),
        exam="CHEST (PORTABLE AP)",
        ed_meds=("Vancomycin", "Piperacillin-Tazobactam"),
        unit="icu",
        los_days=(4, 10),
    ),
    Scenario(
        "sepsis_mrsa_bacteremia",
        "infection",
        0.5,
        ("Fever", "Fever, chills", "Line infection", "Rigors"),
        Dx("mrsa_sepsis", "A4102", "03812"),
        secondary=(SEVERE_SEPSIS,),
        symptoms=(("R509", "78060"),),
        esi=(0.1, 0.8, 0.1),
        ambulance=0.5,
        vitals=(("temp", 2.8), ("hr", 25)),
        labs=("lactate",),
        ed_meds=("Vancomycin",),
        los_days=(5, 12),
    ),
    Scenario(
        "cellulitis",
        "infection",
        3.0,
        (
            "Cellulitis",
            "Leg redness",
            "R leg swelling",
            "RLE cellulitis",
            "leg pain/redness",
            "Wound infection",
        ),
        Dx("cellulitis", "L03115", "6826", "vitals"),
        symptoms=(("R509", "78060"),),
        esi=(0.0, 0.25, 0.75),
        ambulance=0.2,
        vitals=(("temp", 1.4), ("hr", 10)),
        labs=("lactate",),
        exam="UNILAT LOWER EXT VEINS RIGHT",
        ecg=(),
        ed_meds=("Vancomycin", "CeFAZolin"),
        los_days=(2, 5),
        admit_p=0.4,
    ),
)
