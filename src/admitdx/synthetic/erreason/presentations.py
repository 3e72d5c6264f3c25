"""The clinical library of the synthetic ER-Reason release: ED presentations, each with a chief
complaint, its ICD-10-CM codes (main first; titles as the ICD-10-CM tabular list spells them), the
ESI and disposition it usually gets, a vitals profile, exam and course phrases, and the physician
rationales (rule-out, decision factors, treatment plan) written the way the release's are."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Presentation:
    key: str
    complaint: str
    codes: tuple[tuple[str, str], ...]
    esi: tuple[int, ...]  # drawn uniformly: the spread of levels this presentation gets
    dispositions: tuple[str, ...]  # drawn uniformly
    vitals: tuple[float, float, float, float, float, float]  # T °F, HR, RR, SpO2, SBP, DBP (means)
    exam: str
    assessment: str
    course: str
    rule_out: str
    decision_factors: str
    treatment_plan: str


PRESENTATIONS: tuple[Presentation, ...] = (
    Presentation(
        "nstemi", "Chest Pain", (("I21.4", "Non-ST elevation (NSTEMI) myocardial infarction"),
                                 ("I10", "Essential (primary) hypertension")),
        (2, 2, 3), ("Admit", "Admit", "Observation"), (98.4, 98, 18, 97, 152, 90),
        "diaphoretic, regular rhythm, lungs clear",
        "Troponin elevated, ECG with ST depressions, concerning for NSTEMI.",
        "Aspirin and heparin started, cardiology consulted.",
        "Acute coronary syndrome, aortic dissection, pulmonary embolism, pneumothorax, pericarditis.",
        "Serial troponin, ECG, chest radiograph, D-dimer, bedside echocardiogram, "
        "blood pressure in both arms.",
        "Aspirin, heparin infusion, nitroglycerin for pain, cardiology consultation, admit to telemetry.",
    ),
    Presentation(
        "pneumonia", "Shortness of Breath", (("J18.9", "Pneumonia, unspecified organism"),
                                             ("R09.02", "Hypoxemia")),
        (2, 3, 3), ("Admit", "Admit", "Discharge"), (101.2, 108, 24, 91, 128, 76),
        "crackles at the right base, tachypneic",
        "Right lower lobe consolidation on chest radiograph, community acquired pneumonia.",
        "Ceftriaxone and azithromycin given, oxygen by nasal cannula.",
        "Pneumonia, heart failure exacerbation, pulmonary embolism, COPD exacerbation.",
        "Chest radiograph, complete blood count, lactate, blood cultures, procalcitonin, oxygen saturation.",
        "Ceftriaxone, azithromycin, supplemental oxygen, admit to medicine if hypoxemic.",
    ),
    Presentation(
        "ankle", "Ankle Injury",
        (("S93.401A", "Sprain of unspecified ligament of right ankle, initial encounter"),),
        (4, 4, 5), ("Discharge", "Discharge", "Discharge"), (98.2, 84, 16, 99, 124, 78),
        "lateral malleolus tenderness, able to bear weight",
        "Ottawa rules negative, ankle sprain.",
        "Ice, elevation and ibuprofen; splint applied.",
        "Ankle fracture, ligament sprain, Achilles tendon rupture.",
        "Ottawa ankle rules, ankle radiograph if bony tenderness, neurovascular exam.",
        "Ibuprofen, ice, elevation, ankle brace, orthopedic follow-up, discharge home.",
    ),
    Presentation(
        "sepsis_uti", "Fever", (("A41.9", "Sepsis, unspecified organism"),
                                ("N39.0", "Urinary tract infection, site not specified")),
        (1, 2, 2), ("Admit", "Admit", "Admit"), (102.6, 122, 26, 94, 88, 52),
        "confused, warm extremities, suprapubic tenderness",
        "Sepsis from a urinary source, lactate elevated.",
        "Fluid bolus, blood cultures and cefepime given.",
        "Sepsis, pyelonephritis, pneumonia, meningitis, intra-abdominal infection.",
        "Lactate, blood and urine cultures, urinalysis, chest radiograph, mental status.",
        "Thirty milliliters per kilogram crystalloid, cefepime, vasopressors if hypotensive, admit to ICU.",
    ),
    Presentation(
        "migraine", "Headache",
        (("G43.909", "Migraine, unspecified, not intractable, without status migrainosus"),),
        (3, 4, 4), ("Discharge", "Discharge", "Eloped"), (98.6, 88, 16, 99, 132, 84),
        "photophobia, normal neurologic exam",
        "Typical migraine without red flags.",
        "Metoclopramide and diphenhydramine given with relief.",
        "Migraine, subarachnoid hemorrhage, meningitis, temporal arteritis.",
        "Neurologic exam, onset and severity, head CT if thunderclap, lumbar puncture if febrile.",
        "Metoclopramide, diphenhydramine, intravenous fluids, discharge with neurology follow-up.",
    ),
    Presentation(
        "stroke", "Weakness", (("I63.9", "Cerebral infarction, unspecified"),
                               ("I48.91", "Unspecified atrial fibrillation")),
        (1, 2), ("Admit", "Admit", "Transfer to Another Facility"), (98.8, 96, 18, 96, 178, 98),
        "right arm drift, expressive aphasia",
        "Acute ischemic stroke within the treatment window.",
        "Stroke alert called, CT angiography performed, neurology at bedside.",
        "Ischemic stroke, intracranial hemorrhage, hypoglycemia, seizure with Todd paralysis.",
        "Finger-stick glucose, non-contrast head CT, CT angiography, last known well, NIH stroke scale.",
        "Alteplase if eligible, thrombectomy evaluation, blood pressure control, admit to stroke unit.",
    ),
    Presentation(
        "abdominal", "Abdominal Pain", (("K35.80", "Unspecified acute appendicitis"),),
        (3, 3, 2), ("OR Admit", "Admit", "OR Admit"), (100.4, 102, 18, 98, 130, 80),
        "right lower quadrant tenderness, rebound",
        "Acute appendicitis on CT.",
        "Surgery consulted, cefoxitin started, kept nil by mouth.",
        "Appendicitis, ovarian torsion, ectopic pregnancy, kidney stone, diverticulitis.",
        "Pregnancy test, CT abdomen and pelvis, complete blood count, urinalysis.",
        "Cefoxitin, analgesia, surgical consultation for appendectomy.",
    ),
    Presentation(
        "laceration", "Laceration",
        (("S61.411A", "Laceration without foreign body of right hand, initial encounter"),),
        (4, 5, 5), ("Discharge", "Discharge", "LWBS after Triage"), (98.1, 80, 14, 100, 122, 76),
        "two centimeter laceration, tendon function intact",
        "Simple laceration.",
        "Irrigated and repaired with sutures; tetanus updated.",
        "Simple laceration, tendon injury, retained foreign body.",
        "Tendon and neurovascular exam, radiograph for foreign body.",
        "Irrigation, suture repair, tetanus booster, wound care and discharge.",
    ),
)  # fmt: skip

HISTORY = (
    "hypertension",
    "type 2 diabetes",
    "hyperlipidemia",
    "COPD",
    "CKD stage 3",
    "atrial fibrillation",
    "asthma",
    "depression",
    "heart failure with preserved ejection fraction",
)
RACES = ("White", "Black or African American", "Asian", "Latinx", "Other")
LANGUAGES = ("English", "English", "English", "Spanish", "Chinese - Cantonese")
