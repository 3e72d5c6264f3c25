"""Chronic conditions: who has them, how they are billed, what they leave in the record.

A comorbidity is drawn once per patient (prevalence rising with age) and then shows up everywhere a
chronic condition does in MIMIC: billed on every admission (``hosp.diagnoses_icd``), sometimes on
the ED diagnosis list, in the "Past Medical History" of discharge notes (as clinicians abbreviate
it: "HTN", "DM2"), as home medications at ED arrival (``ed.medrecon``) and, for some, as a direct
finding (an ECG in atrial fibrillation, a low ejection fraction on echo).

Drug codes (GSN, NDC, ETC class) are real ones seen in the open MIMIC-IV-ED demo's medrecon.
"""

from __future__ import annotations

from typing import NamedTuple

# name → (gsn, ndc, etccode, etcdescription) as in ed.medrecon of the open demo.
HOME_MEDS: dict[str, tuple[str, str, str, str]] = {
    "lisinopril": ("000393", "10544058530", "00000224", "ACE Inhibitors"),
    "amlodipine": ("016927", "10135052603", "00004609", "Calcium Channel Blockers - Dihydropyridines"),
    "metoprolol succinate": ("016599", "12280005000", "00002530", "Beta Blockers Cardiac Selective"),
    "losartan": ("023382", "13107019630", "00000225", "Angiotensin II Receptor Blockers (ARBs)"),
    "hydrochlorothiazide": ("008179", "00054338303", "00000254", "Diuretic - Thiazides and Related"),
    "atorvastatin": (
        "029968",
        "10135065005",
        "00002747",
        "Antihyperlipidemic - HMG CoA Reductase Inhibitors (statins)",
    ),
    "simvastatin": (
        "016578",
        "10135051005",
        "00002747",
        "Antihyperlipidemic - HMG CoA Reductase Inhibitors (statins)",
    ),
    "metformin": ("040974", "10544063030", "00000156", "Insulin Response Enhancers - Biguanides"),
    "glipizide": ("021839", "10370019101", "00002578", "Antihyperglycemic - Sulfonylurea Derivatives"),
    "insulin lispro [Humalog KwikPen]": (
        "034731",
        "66733082201",
        "00006089",
        "Insulin Analogs - Rapid Acting",
    ),
    "aspirin": ("016995", "10135017301", "00000575", "Salicylate Analgesics"),
    "clopidogrel": (
        "038164",
        "13668014105",
        "00005795",
        "Platelet Aggregation Inhibitors - Thienopyridine Agents",
    ),
    "furosemide": ("008208", "10544013130", "00000250", "Diuretic - Loop"),
    "carvedilol": ("019293", "10135063701", "00000214", "Alpha-Beta Blockers"),
    "spironolactone": (
        "006818",
        "16729022601",
        "00005658",
        "Diuretic - Aldosterone Receptor Antagonist, Non-selective",
    ),
    "apixaban": ("070414", "50090143700", "00006182", "Direct Factor Xa Inhibitors"),
    "warfarin": ("006560", "12280031230", "00000806", "Anticoagulants - Coumarin"),
    "sevelamer carbonate": ("063473", "16714081401", "00000483", "Phosphate Binders"),
    "tiotropium bromide [Spiriva with HandiHaler]": (
        "050714",
        "35356021530",
        "00006461",
        "Asthma/COPD - Anticholinergic Agents, Inhaled Long Acting",
    ),
    "albuterol sulfate [ProAir HFA]": (
        "028090",
        "21695042308",
        "00005970",
        "Asthma/COPD Therapy - Beta 2-Adrenergic Agents, Inhaled, Short Acting",
    ),
    "fluticasone": ("018368", "12280027016", "00000301", "Nasal Corticosteroids"),
    "levothyroxine": ("006650", "10544025730", "00006081", "Thyroid Hormones - Synthetic T4 (Thyroxine)"),
    "sertraline": (
        "046229",
        "13668000601",
        "00000530",
        "Antidepressant - Selective Serotonin Reuptake Inhibitors (SSRIs)",
    ),
    "citalopram": (
        "046206",
        "10768706001",
        "00000530",
        "Antidepressant - Selective Serotonin Reuptake Inhibitors (SSRIs)",
    ),
    "lorazepam": ("003757", "11845015001", "00000523", "Antianxiety Agent - Benzodiazepines"),
    "quetiapine": (
        "034187",
        "12280003015",
        "00003707",
        "Antipsychotic -Atypical Dopamine-Serotonin Antag-Dibenzothiazepine Der",
    ),
    "lactulose": ("003143", "11845042013", "00000478", "Colonic Acidifier (Ammonia Inhibitor)"),
    "rifaximin [Xifaxan]": (
        "066295",
        "54868615400",
        "00005844",
        "Rifamycins and Related Derivative Antibiotics",
    ),
    "omeprazole": (
        "033530",
        "10544034130",
        "00000445",
        "Gastric Acid Secretion Reducing Agents - Proton Pump Inhibitors (PPIs)",
    ),
    "pantoprazole": (
        "027462",
        "13668009705",
        "00000445",
        "Gastric Acid Secretion Reducing Agents - Proton Pump Inhibitors (PPIs)",
    ),
    "thiamine HCl (vitamin B1)": (
        "002451",
        "10006070011",
        "00000659",
        "Vitamins - B-1, Thiamine and Derivatives",
    ),
    "folic acid": ("002366", "10135018201", "00000784", "Vitamins - Folic Acid and Derivatives"),
    "gabapentin": ("021414", "10135064501", "00006030", "Anticonvulsant - GABA Analogs"),
    "docusate sodium": ("003009", "10135011101", "00000414", "Laxative - Surfactant"),
    "tamsulosin [Flomax]": (
        "027546",
        "10370016901",
        "00000521",
        "Prostatic Hypertrophy Agent - alpha-1-Adrenoceptor Antagonists",
    ),
    "allopurinol": (
        "002535",
        "11289101302",
        "00002602",
        "Hyperuricemia Therapy - Xanthine Oxidase Inhibitors",
    ),
    "trazodone": (
        "046242",
        "10544053290",
        "00002812",
        "Antidepressant - Serotonin-2 Antagonist-Reuptake Inhibitors (SARIs)",
    ),
    "acetaminophen [Mapap (acetaminophen)]": (
        "004473",
        "10327003510",
        "00000577",
        "Analgesic or Antipyretic Non-Opioid",
    ),
}
BACKGROUND_MEDS = (
    "docusate sodium",
    "acetaminophen [Mapap (acetaminophen)]",
    "omeprazole",
    "gabapentin",
    "tamsulosin [Flomax]",
    "allopurinol",
    "trazodone",
)


class Comorbidity(NamedTuple):
    key: str
    icd10: str
    icd9: str
    pmh: str  # how a discharge note's Past Medical History writes it
    prevalence: float  # at age 40
    per_decade: float  # added prevalence per decade above 40 (negative: falls with age)
    meds: tuple[str, ...]
    status: tuple[str, str] | None = None  # (ICD-10 Z, ICD-9 V) status code it brings, e.g. insulin use
    finding: str = ""  # a direct finding it can leave: "ecg_af", "echo_low_ef", "labs_cr"


COMORBIDITIES: tuple[Comorbidity, ...] = (
    Comorbidity(
        "htn",
        "I10",
        "4019",
        "HTN",
        0.25,
        0.08,
        ("lisinopril", "amlodipine", "losartan", "hydrochlorothiazide"),
    ),
    Comorbidity("hld", "E785", "2724", "HLD", 0.2, 0.06, ("atorvastatin", "simvastatin")),
    Comorbidity(
        "dm2",
        "E119",
        "25000",
        "DM2",
        0.1,
        0.04,
        ("metformin", "glipizide", "insulin lispro [Humalog KwikPen]"),
        status=("Z794", "V5867"),
    ),
    Comorbidity(
        "cad", "I2510", "41401", "CAD s/p PCI", 0.04, 0.05, ("aspirin", "clopidogrel", "metoprolol succinate")
    ),
    Comorbidity(
        "chf",
        "I5022",
        "42822",
        "sCHF (EF 30%)",
        0.02,
        0.035,
        ("furosemide", "carvedilol", "spironolactone"),
        finding="echo_low_ef",
    ),
    Comorbidity(
        "afib",
        "I4891",
        "42731",
        "Afib on anticoagulation",
        0.02,
        0.04,
        ("apixaban", "warfarin", "metoprolol succinate"),
        status=("Z7901", "V5861"),
        finding="ecg_af",
    ),
    Comorbidity("ckd", "N189", "5859", "CKD", 0.04, 0.03, ("furosemide", "allopurinol"), finding="labs_cr"),
    Comorbidity(
        "copd",
        "J449",
        "496",
        "COPD",
        0.04,
        0.025,
        ("tiotropium bromide [Spiriva with HandiHaler]", "albuterol sulfate [ProAir HFA]"),
    ),
    Comorbidity(
        "asthma", "J45909", "49390", "asthma", 0.08, -0.01, ("albuterol sulfate [ProAir HFA]", "fluticasone")
    ),
    Comorbidity("hypothyroid", "E039", "2449", "hypothyroidism", 0.05, 0.015, ("levothyroxine",)),
    Comorbidity("depression", "F329", "311", "depression", 0.12, 0.0, ("sertraline", "citalopram")),
    Comorbidity("anxiety", "F419", "30000", "anxiety", 0.08, -0.01, ("lorazepam",)),
    Comorbidity(
        "cirrhosis",
        "K7469",
        "5715",
        "EtOH cirrhosis",
        0.015,
        0.005,
        ("lactulose", "rifaximin [Xifaxan]", "spironolactone"),
    ),
    Comorbidity(
        "aud",
        "F1020",
        "30390",
        "EtOH use disorder",
        0.04,
        -0.005,
        ("thiamine HCl (vitamin B1)", "folic acid"),
    ),
    Comorbidity("gerd", "K219", "53081", "GERD", 0.1, 0.01, ("omeprazole", "pantoprazole")),
    Comorbidity("dementia", "F0390", "2900", "dementia", 0.0, 0.025, ("quetiapine",)),
)
BY_KEY = {c.key: c for c in COMORBIDITIES}


def prevalence(c: Comorbidity, age: int) -> float:
    return min(0.85, max(0.0, c.prevalence + c.per_decade * (age - 40) / 10))
