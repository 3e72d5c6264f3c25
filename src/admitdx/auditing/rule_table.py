"""The rule-based auditor's clinical knowledge, as data a clinician can read and correct.

Each :class:`Concept` names a diagnosis group by ICD code prefixes (ICD-10-CM and ICD-9-CM, dots
removed; the longest matching prefix wins, so ``4010`` malignant hypertension beats ``401``) and
lists what would establish it at admission, following EarlyDx §3.3:

- ``labs``: (analyte pattern, "high" | "low" | "abnormal") — a *flagged* result in that direction
  is direct evidence (supported);
- ``findings``: patterns in the ECG, echo or radiology text (a sentence that starts with a
  negation — "No acute fracture" — does not count) — direct evidence;
- ``vitals``: (measure, ">=" | "<=", threshold) over triage and ED vital signs — direct evidence;
- ``indirect``: patterns in the prior history, home medications or chief complaint — indirect
  evidence (partially supported).

The table covers common ED admission diagnoses, not all of ICD; a label outside it is audited by
the generic rule in :mod:`admitdx.auditing.rules` (its title's words in the findings or history).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Concept:
    name: str
    codes: tuple[str, ...]
    labs: tuple[tuple[str, str], ...] = ()
    findings: tuple[str, ...] = ()
    vitals: tuple[tuple[str, str, float], ...] = ()
    indirect: tuple[str, ...] = field(default=())


_ANTICOAG = r"apixaban|warfarin|rivaroxaban|dabigatran|edoxaban"
_URINE = r"leukocyte esterase|nitrite|bacteria|urine wbc|wbc(?= #/hpf)|^wbc$"  # urinalysis, not blood WBC
_INHALERS = r"albuterol|tiotropium|ipratropium|fluticasone|budesonide|salmeterol|formoterol|montelukast"

CONCEPTS: tuple[Concept, ...] = (
    Concept("acute kidney injury", ("N17", "584"), labs=(("creatinine", "high"),), indirect=(r"kidney",)),
    Concept("chronic kidney disease", ("N18", "585"), indirect=(r"chronic kidney|ckd|renal insufficiency",)),
    Concept(
        "sepsis",
        ("A40", "A41", "038", "99591", "99592", "R652", "78552"),
        labs=(("lactate", "high"), ("white blood cells", "abnormal")),
        indirect=(r"fever|sepsis|septic",),
    ),
    Concept(
        "pneumonia",
        ("J12", "J13", "J14", "J15", "J16", "J17", "J18", "480", "481", "482", "483", "485", "486"),
        findings=(r"consolidation|pneumonia|infiltrate",),
        indirect=(r"cough|fever|pneumonia",),
    ),
    Concept(
        "urinary tract infection",
        ("N39", "599", "N30", "595"),
        labs=((_URINE, "abnormal"),),
        indirect=(r"dysuria|urinary",),
    ),
    Concept(
        "pyelonephritis",
        ("N10", "N11", "N12", "590"),
        labs=((_URINE, "abnormal"),),
        findings=(r"pyelonephritis",),
        indirect=(r"flank|dysuria",),
    ),
    Concept(
        "atrial fibrillation",
        ("I48", "42731"),
        findings=(r"atrial fibrillation|atrial flutter",),
        indirect=(r"atrial fibrillation|afib|a-fib", _ANTICOAG),
    ),
    Concept(
        "heart failure",
        ("I50", "428", "I110", "40291", "40491"),
        labs=(("bnp", "high"),),
        findings=(r"lvef [1-3]\d %|pulmonary edema|interstitial edema|vascular congestion",),
        indirect=(r"heart failure|chf|furosemide|torsemide|bumetanide",),
    ),
    Concept(
        "myocardial infarction",
        ("I21", "I22", "410"),
        labs=(("troponin", "high"),),
        findings=(r"st elevation|st depression",),
        indirect=(r"chest pain|myocardial infarction|\bmi\b",),
    ),
    Concept(
        "unstable angina",
        ("I20", "411"),
        findings=(r"st depression|t wave inversion",),
        indirect=(r"chest pain|angina|nitroglycerin",),
    ),
    Concept(
        "coronary artery disease",
        ("I25", "414"),
        indirect=(r"coronary|\bcad\b|angina|clopidogrel|nitroglycerin|myocardial infarction",),
    ),
    Concept(
        "malignant hypertension / hypertensive urgency",
        ("I16", "4010", "I674"),
        vitals=(("sbp", ">=", 180),),
        indirect=(r"hypertension|amlodipine|lisinopril|losartan|hydrochlorothiazide",),
    ),
    Concept(
        "hypertension",
        ("I10", "401", "I11", "I12", "I13", "402", "403", "404"),
        indirect=(
            r"hypertension|\bhtn\b|amlodipine|lisinopril|losartan|hydrochlorothiazide|metoprolol|valsartan",
        ),
    ),
    Concept(
        "diabetic ketoacidosis",
        ("E101", "E111", "E131", "2501"),
        labs=(
            ("bicarbonate", "low"),
            ("anion gap", "high"),
            ("ketone|acetone|beta-hydroxybutyrate", "abnormal"),
        ),
        indirect=(r"diabetes|insulin|metformin",),
    ),
    Concept(
        "diabetes mellitus",
        ("E10", "E11", "E13", "250"),
        labs=(("a1c", "high"),),
        indirect=(r"diabetes|\bdm\b|insulin|metformin|glipizide|glyburide|sitagliptin|empagliflozin",),
    ),
    Concept(
        "hypoglycemia", ("E16", "E160", "E162", "251"), labs=(("glucose", "low"),), indirect=(r"insulin",)
    ),
    Concept("hyperkalemia", ("E875", "2767"), labs=(("potassium", "high"),)),
    Concept("hypokalemia", ("E876", "2768"), labs=(("potassium", "low"),)),
    Concept("hyponatremia", ("E871", "2761"), labs=(("sodium", "low"),)),
    Concept("hypernatremia", ("E870", "2760"), labs=(("sodium", "high"),)),
    Concept("dehydration / hypovolemia", ("E86", "2765"), labs=(("urea nitrogen", "high"),)),
    Concept(
        "acute posthemorrhagic anemia",
        ("D62", "2851"),
        labs=(("hemoglobin", "low"),),
        indirect=(r"melena|hematemesis|bleed|blood",),
    ),
    Concept("anemia", ("D64", "D63", "D50", "2859", "280", "281"), labs=(("hemoglobin", "low"),)),
    Concept(
        "gastrointestinal hemorrhage",
        ("K92", "578", "K922", "5789", "K625", "5693"),
        labs=(("occult blood|guaiac", "abnormal"), ("hemoglobin", "low")),
        findings=(r"active extravasation|gi bleed",),
        indirect=(r"melena|hematemesis|brbpr|blood|bleed|hemoglobin",),
    ),
    Concept("diverticulitis", ("K57", "562"), findings=(r"diverticul",), indirect=(r"llq|diverticul",)),
    Concept(
        "appendicitis",
        ("K35", "K36", "K37", "540", "541"),
        findings=(r"appendicitis|dilated .*appendix|periappendiceal",),
        indirect=(r"rlq",),
    ),
    Concept(
        "cholecystitis / cholelithiasis",
        ("K80", "K81", "574", "575"),
        findings=(r"cholecystitis|gallstone|cholelithiasis",),
        indirect=(r"ruq|gallstone",),
    ),
    Concept(
        "acute pancreatitis",
        ("K85", "5770"),
        labs=(("lipase", "high"),),
        findings=(r"pancreatitis",),
        indirect=(r"epigastric|pancreatitis|alcohol",),
    ),
    Concept(
        "intestinal obstruction",
        ("K56", "560"),
        findings=(r"obstruction|dilated (small )?bowel|dilated loops",),
        indirect=(r"n/v|vomiting|obstruction",),
    ),
    Concept(
        "fracture",
        ("S02", "S12", "S22", "S32", "S42", "S52", "S62", "S72", "S82", "S92", "80", "81", "82"),
        findings=(r"fracture|displaced|lucency",),
        indirect=(r"fall|trauma|mvc|injury",),
    ),
    Concept(
        "intracranial hemorrhage",
        ("I60", "I61", "I62", "430", "431", "432", "S064", "S065", "S066", "852", "853"),
        findings=(r"hemorrhage|hematoma|subarachnoid|subdural",),
        indirect=(r"headache|unresponsive|fall|head", _ANTICOAG),
    ),
    Concept(
        "ischemic stroke",
        ("I63", "433", "434"),
        findings=(r"infarct|occlusion|ischemi",),
        indirect=(r"weakness|aphasia|facial droop|numbness|stroke|slurred",),
    ),
    Concept(
        "transient ischemic attack", ("G45", "435"), indirect=(r"weakness|aphasia|numbness|tia|slurred",)
    ),
    Concept("concussion", ("S060", "850"), indirect=(r"fall|head|concussion",)),
    Concept(
        "pulmonary embolism",
        ("I26", "4151"),
        findings=(r"embol",),
        indirect=(r"dyspnea|pleuritic", _ANTICOAG),
    ),
    Concept("deep vein thrombosis", ("I82", "453"), findings=(r"thromb|dvt",), indirect=(r"leg swelling",)),
    Concept(
        "copd exacerbation",
        ("J44", "491", "492", "496"),
        labs=(("pco2", "high"), ("ph", "low")),
        indirect=(r"copd|emphysema|chronic obstructive", _INHALERS),
    ),
    Concept("asthma", ("J45", "493"), vitals=(("spo2", "<=", 89),), indirect=(r"asthma|wheez", _INHALERS)),
    Concept(
        "acute respiratory failure",
        ("J96", "51881", "51882", "51884"),
        labs=(("po2", "low"), ("pco2", "high")),
        vitals=(("spo2", "<=", 89),),
        indirect=(r"dyspnea|sob|short",),
    ),
    Concept("pleural effusion", ("J90", "J91", "511"), findings=(r"effusion",), indirect=(r"dyspnea",)),
    Concept(
        "pneumothorax",
        ("J93", "S270", "512", "860"),
        findings=(r"pneumothorax",),
        indirect=(r"chest|trauma",),
    ),
    Concept(
        "cellulitis",
        ("L03", "681", "682"),
        labs=(("white blood cells", "high"),),
        findings=(r"cellulitis|soft tissue",),
        vitals=(("temp", ">=", 100.4),),
        indirect=(r"swelling|redness|erythema|cellulitis",),
    ),
    Concept(
        "hypothyroidism",
        ("E03", "E02", "244"),
        labs=(("tsh", "high"),),
        indirect=(r"hypothyroid|levothyroxine",),
    ),
    Concept("hyperlipidemia", ("E78", "272"), indirect=(r"lipid|cholesterol|statin",)),
    Concept(
        "depression",
        ("F32", "F33", "311", "2962", "2963"),
        indirect=(r"depress|sertraline|citalopram|escitalopram|fluoxetine|paroxetine|bupropion|mirtazapine",),
    ),
    Concept(
        "epilepsy / seizure",
        ("G40", "345"),
        indirect=(r"seizure|epilep|levetiracetam|phenytoin|lamotrigine|valproate|carbamazepine",),
    ),
    Concept("migraine", ("G43", "346"), indirect=(r"migraine|headache|sumatriptan",)),
    Concept(
        "hepatic encephalopathy",
        ("K7682", "5722"),
        labs=(("ammonia", "high"),),
        indirect=(r"cirrhosis|lactulose|rifaximin|confusion|altered",),
    ),
    Concept(
        "pericarditis",
        ("I30", "420"),
        findings=(r"pericarditis|diffuse st elevation|pr depression|pericardial effusion (?!none)",),
        indirect=(r"chest pain",),
    ),
)
