"""Value vocabularies copied from the open MIMIC-IV demo: lab items, units, reference ranges, and the
code lists of demographic and administrative columns.

Lab items carry their real ``itemid``, ``label``, ``fluid``, ``category`` and unit as in the demo's
``d_labitems``/``labevents``; ``normal`` is the range a healthy value is drawn from (inside the
reference range), ``decimals`` how MIMIC prints the value.
"""

from __future__ import annotations

from typing import NamedTuple


class LabItem(NamedTuple):
    itemid: int
    label: str
    fluid: str
    category: str
    unit: str | None
    ref: tuple[float, float] | None
    normal: tuple[float, float]
    decimals: int


LABS: dict[str, LabItem] = {
    "wbc": LabItem(51301, "White Blood Cells", "Blood", "Hematology", "K/uL", (4.0, 10.0), (4.8, 9.5), 1),
    "hgb": LabItem(51222, "Hemoglobin", "Blood", "Hematology", "g/dL", (13.7, 17.5), (12.5, 15.8), 1),
    "hct": LabItem(51221, "Hematocrit", "Blood", "Hematology", "%", (40.0, 51.0), (37.0, 47.0), 1),
    "plt": LabItem(51265, "Platelet Count", "Blood", "Hematology", "K/uL", (150.0, 400.0), (170.0, 360.0), 0),
    "na": LabItem(50983, "Sodium", "Blood", "Chemistry", "mEq/L", (133.0, 145.0), (136.0, 143.0), 0),
    "k": LabItem(50971, "Potassium", "Blood", "Chemistry", "mEq/L", (3.3, 5.1), (3.6, 4.8), 1),
    "cl": LabItem(50902, "Chloride", "Blood", "Chemistry", "mEq/L", (96.0, 108.0), (98.0, 106.0), 0),
    "hco3": LabItem(50882, "Bicarbonate", "Blood", "Chemistry", "mEq/L", (22.0, 32.0), (23.0, 30.0), 0),
    "bun": LabItem(51006, "Urea Nitrogen", "Blood", "Chemistry", "mg/dL", (6.0, 20.0), (8.0, 19.0), 0),
    "cr": LabItem(50912, "Creatinine", "Blood", "Chemistry", "mg/dL", (0.5, 1.2), (0.6, 1.1), 1),
    "glu": LabItem(50931, "Glucose", "Blood", "Chemistry", "mg/dL", (70.0, 100.0), (78.0, 125.0), 0),
    "ag": LabItem(50868, "Anion Gap", "Blood", "Chemistry", "mEq/L", (8.0, 20.0), (10.0, 16.0), 0),
    "ca": LabItem(50893, "Calcium, Total", "Blood", "Chemistry", "mg/dL", (8.4, 10.3), (8.6, 10.0), 1),
    "mg": LabItem(50960, "Magnesium", "Blood", "Chemistry", "mg/dL", (1.6, 2.6), (1.8, 2.4), 1),
    "trop": LabItem(51003, "Troponin T", "Blood", "Chemistry", "ng/mL", (0.0, 0.01), (0.0, 0.009), 2),
    "lactate": LabItem(50813, "Lactate", "Blood", "Blood Gas", "mmol/L", (0.5, 2.0), (0.7, 1.8), 1),
    "lipase": LabItem(50956, "Lipase", "Blood", "Chemistry", "IU/L", (0.0, 60.0), (12.0, 55.0), 0),
    "ast": LabItem(
        50878, "Asparate Aminotransferase (AST)", "Blood", "Chemistry", "IU/L", (0.0, 40.0), (14.0, 36.0), 0
    ),
    "alt": LabItem(
        50861, "Alanine Aminotransferase (ALT)", "Blood", "Chemistry", "IU/L", (0.0, 40.0), (10.0, 35.0), 0
    ),
    "alp": LabItem(
        50863, "Alkaline Phosphatase", "Blood", "Chemistry", "IU/L", (35.0, 105.0), (45.0, 100.0), 0
    ),
    "tbili": LabItem(50885, "Bilirubin, Total", "Blood", "Chemistry", "mg/dL", (0.0, 1.5), (0.2, 1.1), 1),
    "alb": LabItem(50862, "Albumin", "Blood", "Chemistry", "g/dL", (3.5, 5.2), (3.7, 4.8), 1),
    "inr": LabItem(51237, "INR(PT)", "Blood", "Hematology", None, (0.9, 1.1), (0.9, 1.1), 1),
    "pt": LabItem(51274, "PT", "Blood", "Hematology", "sec", (9.4, 12.5), (10.0, 12.3), 1),
    "ptt": LabItem(51275, "PTT", "Blood", "Hematology", "sec", (25.0, 36.5), (26.0, 34.0), 1),
    "bnp": LabItem(50963, "NTproBNP", "Blood", "Chemistry", "pg/mL", (0.0, 852.0), (40.0, 400.0), 0),
    "ddimer": LabItem(51196, "D-Dimer", "Blood", "Hematology", "ng/mL FEU", (0.0, 500.0), (120.0, 450.0), 0),
    "ck": LabItem(
        50910, "Creatine Kinase (CK)", "Blood", "Chemistry", "IU/L", (39.0, 308.0), (50.0, 250.0), 0
    ),
    "ph": LabItem(50820, "pH", "Blood", "Blood Gas", "units", (7.35, 7.45), (7.36, 7.44), 2),
    "pco2": LabItem(50818, "pCO2", "Blood", "Blood Gas", "mm Hg", (35.0, 45.0), (36.0, 44.0), 0),
    "neut": LabItem(51256, "Neutrophils", "Blood", "Hematology", "%", (34.0, 71.0), (45.0, 68.0), 1),
    "ua_wbc": LabItem(51516, "WBC", "Urine", "Hematology", "#/hpf", (0.0, 5.0), (0.0, 3.0), 0),
    "ammonia": LabItem(50866, "Ammonia", "Blood", "Chemistry", "umol/L", (11.0, 32.0), (12.0, 30.0), 0),
    "ethanol": LabItem(50922, "Ethanol", "Blood", "Chemistry", "mg/dL", None, (0.0, 0.0), 0),
}

# Sex-specific (reference range, healthy range) where MIMIC's ranges differ for women.
FEMALE_RANGES: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "hgb": ((11.2, 15.7), (11.8, 14.8)),
    "hct": ((34.0, 45.0), (35.0, 43.0)),
}

# Urine dipstick items are text results in MIMIC ('NEG.', 'LG.'); they carry no valuenum or range.
TEXT_LABS = {
    "ua_leuk": (51486, "Leukocytes", "Urine", "Hematology", "NEG.", ("SM.", "MOD.", "LG.")),
    "ua_nitrite": (51487, "Nitrite", "Urine", "Hematology", "NEG.", ("POS.",)),
    "ua_ketone": (51484, "Ketone", "Urine", "Hematology", "NEG.", ("40.", "80.", "150.")),
}

CBC = ("wbc", "hgb", "hct", "plt")
CHEM = ("na", "k", "cl", "hco3", "bun", "cr", "glu", "ag")

RACES = (
    ("WHITE", 60),
    ("BLACK/AFRICAN AMERICAN", 15),
    ("HISPANIC/LATINO - PUERTO RICAN", 3),
    ("HISPANIC/LATINO - DOMINICAN", 2),
    ("WHITE - OTHER EUROPEAN", 3),
    ("ASIAN - CHINESE", 2),
    ("ASIAN", 2),
    ("WHITE - RUSSIAN", 2),
    ("PORTUGUESE", 1),
    ("OTHER", 3),
    ("UNKNOWN", 4),
    ("UNABLE TO OBTAIN", 1),
    ("HISPANIC OR LATINO", 1),
    ("PATIENT DECLINED TO ANSWER", 1),
)
INSURANCE = (("Medicare", 45), ("Medicaid", 15), ("Other", 40))
MARITAL = (("MARRIED", 40), ("SINGLE", 33), ("WIDOWED", 14), ("DIVORCED", 8), (None, 5))
ANCHOR_YEAR_GROUPS = (
    ("2008 - 2010", 20),
    ("2011 - 2013", 25),
    ("2014 - 2016", 25),
    ("2017 - 2019", 20),
    ("2020 - 2022", 10),
)
# Real calendar date from which US billing switched from ICD-9-CM to ICD-10-CM (1 Oct 2015).
ICD10_START_YEAR = 2015.75

ADMIT_UNITS = {
    "medicine": ("Medicine", "Med/Surg", "Medicine"),
    "cardiology": ("Medicine/Cardiology", "Coronary Care Unit (CCU)", "Medicine/Cardiology"),
    "neurology": ("Neurology", "Neuro Surgical Intensive Care Unit (Neuro SICU)", "Neurology"),
    "icu": (
        "Medical Intensive Care Unit (MICU)",
        "Medical/Surgical Intensive Care Unit (MICU/SICU)",
        "Medicine",
    ),
    "surgery": ("Med/Surg", "Surgical Intensive Care Unit (SICU)", "Med/Surg/Trauma"),
    "trauma": ("Trauma SICU (TSICU)", "Med/Surg/Trauma", "Surgery/Trauma"),
}
SERVICE_NAME = {
    "medicine": "MEDICINE",
    "cardiology": "MEDICINE",
    "neurology": "NEUROLOGY",
    "icu": "MEDICINE",
    "surgery": "SURGERY",
    "trauma": "SURGERY",
}
