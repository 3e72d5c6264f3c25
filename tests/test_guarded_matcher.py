"""The guarded matcher (issue 33): each guard class, the code reading, the calibration record in the
match summary and results.json, and the precision floor on the adjudicated dev pairs.

The examples in the class tests are ours (clinical knowledge, ICD-10-CM as shipped); the dev pairs
were written blind (``tests/data/blind/pairs/pairs_dev.jsonl``); the held-out pairs are never read
by a test. One model is loaded for the module, and the dev set is matched once.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tests.matching_data import write_case_dirs

from admitdx.embeddings import Embedder
from admitdx.matching import guard_text
from admitdx.matching.adjudicated import read_pairs, score_matcher
from admitdx.matching.base import MatchTask
from admitdx.matching.guard_calibration import calibrate, choose_thresholds, recorded_guard_calibration
from admitdx.matching.guard_clauses import (
    added_complication,
    only_the_cause,
    uncovered_complication,
    uncovered_sequel,
)
from admitdx.matching.guard_cms import cms_abbreviations
from admitdx.matching.guard_codes import (
    chapter,
    codes_less_organism,
    compatible,
    exact_codes,
    given_codes,
    is_open,
    stands_for,
)
from admitdx.matching.guard_compare import contrast
from admitdx.matching.guard_contained import contained
from admitdx.matching.guard_text import TERMS_FILE, _rows, guard_expand, readings, terms
from admitdx.matching.guarded import GuardedMatcher
from admitdx.matching.quality import matcher_quality, quality_line, recorded_scores
from admitdx.matching.runner import run_matcher
from admitdx.runs import sha256_file

DEV_PAIRS = Path(__file__).parent / "data" / "blind" / "pairs" / "pairs_dev.jsonl"
#: the pair sets the shipped calibration was chosen on (every set measured so far is used for development)
BLIND = DEV_PAIRS.parent.parent
USED_PAIRS = (DEV_PAIRS, DEV_PAIRS.with_name("pairs_heldout.jsonl"),
              *(BLIND / f"pairs{n}" / f"pairs_heldout{n}.jsonl" for n in range(2, 39)),
              BLIND / "pairs9" / "pairs_reserve9.jsonl")  # fmt: skip


@pytest.mark.parametrize(
    ("a", "b", "said"),
    [
        ("Hypokalemia", "HYPERPOTASSEMIA", "hypo- vs hyper-"),
        ("Sinus bradycardia", "TACHYCARDIA NOS", "brady- vs tachy-"),
        ("Acute on chronic systolic heart failure", "CHR SYSTOLIC HRT FAILURE", "acute vs chronic"),
        ("Chronic diastolic heart failure", "AC ON CHR DIAST HRT FAIL", "acute vs chronic"),
        ("Right leg DVT", "Acute embolism and thrombosis of deep veins of l up extrem", "right vs left"),
        ("NSTEMI", "STEMI", "non-st vs st"),
        ("Diverticulitis", "Diverticulosis of large intestine", "diverticulitis vs diverticulosis"),
        (
            "Diabetic ketoacidosis",
            "Type 1 diabetes mellitus without complications",
            "uncomplicated vs ketoacidosis",
        ),
        # round 6: a complication against "uncomplicated", a denied alternative, new axes and terms
        ("opioid withdrawal", "Opioid dependence, uncomplicated", "uncomplicated vs withdrawal"),
        ("type 1 diabetes with retinopathy", "DIABETES UNCOMPL JUVEN", "uncomplicated vs retinopathy"),
        ("Crohn's ileitis", "Crohn's disease, unspecified, without complications", None),
        (
            "thyroid storm",
            "Thyrotoxicosis, unspecified without thyrotoxic crisis or storm",
            "with vs without",
        ),
        (
            "CAD with unstable angina",
            "Atherosclerotic heart disease of native coronary artery without angina pectoris",
            "with vs without angina",
        ),
        (
            "Traumatic subdural hematoma without loss of consciousness",
            "Subdural hemorrhage following injury without open intracranial wound, "
            "with no loss of consciousness",
            None,
        ),
        ("Eclampsia", "Unspecified pre-eclampsia, unspecified trimester", "preeclampsia vs eclampsia"),
        ("preeclampsia", "Unspecified pre-eclampsia, third trimester", None),  # one word or two
        ("suicide attempt by overdose", "Suicidal ideations", "attempt vs ideations"),
        ("corneal ulcer OS", "Unspecified corneal ulcer, right eye", "left vs right"),
        ("LUL lung cancer", "Malignant neoplasm of upper lobe, right bronchus or lung", "left vs right"),
        (
            "subclavian artery thrombosis",
            "Acute venous embolism and thrombosis of subclavian veins",
            "vessel",
        ),
        ("GU bleed", "Gastrointestinal hemorrhage, unspecified", "system genitourinary vs digestive"),
        (
            "Chewing tobacco dependence",
            "Nicotine dependence, cigarettes, uncomplicated",
            "tobacco chewing vs",
        ),
        ("SSRI overdose", "Poisoning by tricyclic antidepressants", "substance ssri vs tricyclic"),
        ("GDM on insulin", "Gestational diabetes mellitus in pregnancy, diet controlled", "insulin vs diet"),
        ("Leptomeningeal carcinomatosis", "Secondary malignant neoplasm of cerebral meninges", None),
        ("Chemo-induced neutropenia", "Agranulocytosis secondary to cancer chemotherapy", None),
        # after sets 14 and 15: stages, statuses, devices, seizures, hedges, a few more axes
        (
            "hypertensive CKD with ESRD",
            "Hypertensive chronic kidney disease w stg 1-4/unsp chr kdny",
            "stage 5 vs",
        ),
        (
            "CKD stage 3 secondary to hypertension",
            "Hypertensive chronic kidney disease w stg 1-4/unsp chr kdny",
            None,
        ),
        ("pacemaker lead malfunction", "Presence of cardiac pacemaker", "a device's status vs its trouble"),
        ("PPM in situ", "Presence of cardiac pacemaker", None),
        ("carcinoma in situ of breast", "Malignant neoplasm of breast", "situ"),  # a carcinoma's, no device's
        ("grand mal seizure, single episode", "GRAND MAL STATUS", "status epilepticus on one side only"),
        ("seizure disorder", "Epilepsy, unspecified, not intractable, without status epilepticus", None),
        ("heart attack", "Old myocardial infarction", "status: active vs history"),
        ("breast cancer survivor", "HX OF BREAST MALIGNANCY", None),
        ("HIV positive", "ASYMPTOMATIC HIV INFECTION", None),
        ("COPD exacerbation", "Chronic obstructive pulmonary disease, unspecified", None),
        ("AKI", "Chronic kidney disease, unspecified", "acuity: acute vs chronic"),
        ("neck pain", "Backache, unspecified", "site neck vs back"),
        ("femoral neck fracture", "Fracture of hip", None),
        (
            "diabetic foot osteomyelitis",
            "Type 2 diabetes mellitus with foot ulcer",
            None,
        ),  # see the next test
        (
            "long-term antiplatelet therapy",
            "LONG TERM USE ANTIGOAGULANT",
            "substance antiplatelet vs anticoagulant",
        ),
        ("overweight", "Obesity, unspecified", "overweight vs obesity"),
        ("hemolytic anemia", "Acute posthemorrhagic anemia", "hemolytic vs posthemorrhagic"),
        # after set 16
        ("Low K", "Hyperkalemia", "opposite prefixes"),
        ("Cellulitis of thigh", "Cellulitis and abscess of trunk", "site thigh vs trunk"),
        ("Hepatic encephalopathy", "Hepatic failure, unspecified without coma", "with vs without coma"),
        # after sets 20 and 21
        ("right otitis externa", "Otitis media, unspecified, right ear", "externa vs media"),
        (
            "rheumatoid arthritis of right knee",
            "Unilateral primary osteoarthritis, right knee",
            "rheumatoid vs",
        ),
        ("ruptured berry aneurysm with SAH", "TRAUM SUBARACHNOID HEM", "cause aneurysm vs trauma"),
        (
            "ESRD due to diabetic nephropathy",
            "Hyp chr kidney disease w stage 5 chr kidney disease or ESRD",
            "cause diabetes vs hypertension",
        ),
        ("CKD stage 3", "CHRONIC KIDNEY DISEASE, STAGE V", "stage 3 vs stage 5"),
        ("Atrial fibrillation", "ATRIAL FLUTTER", "fibrillation vs flutter"),
        # no contrast: the acute part of "AKI on CKD" is the reference; laterality on one side only
        ("Acute kidney injury on chronic kidney disease", "Acute kidney failure, unspecified", None),
        ("Hip fracture", "Displaced intertrochanteric fracture of left femur, init", None),
        # two spinal levels are two injuries; the forerunner is not the disease; another inflamed organ
        ("L4 compression fracture", "FX L2 VERTEBRA-CLOSED", "level l4 vs l2"),
        ("Prediabetes", "Diabetes mellitus", "prediabetes vs diabetes"),
        ("Cholecystitis", "Cholangitis", "cholangitis"),
        ("Tracheobronchitis", "Bronchitis", None),  # one compound names the other's organ
        ("Type B aortic dissection", "Dissection of thoracic aorta, type A", "type b vs type a"),
        ("Obstructive sleep apnea", "Central sleep apnea", "central"),
        ("Acute myeloid leukemia", "Acute lymphocytic leukemia", "lymphocytic"),
        ("Streptococcal pneumonia", "Viral pneumonia", "streptococcal"),
        ("HFrEF", "Chronic diastolic heart failure", "systolic vs diastolic"),
        # organs and organisms: each side names one, and they share none
        ("Acute liver failure", "Acute kidney failure, unspecified", "organ"),
        ("Cardiac sarcoidosis", "Sarcoidosis of lung", "organ"),
        ("Hypertensive heart and kidney disease", "Hypertensive chronic kidney disease", None),
        ("Pneumococcal pneumonia", "Pneumonia due to Klebsiella pneumoniae", "organism"),
        ("Pneumococcal pneumonia", "Pneumonia due to Streptococcus pneumoniae", None),
        ("Strep pharyngitis", "Streptococcal pharyngitis", None),  # genus by noun or adjective
        # a denied clause the other side names (not one it only half names)
        ("Rib contusion without fracture", "FX MULT RIBS NOS-CLOSED", "without fracture"),
        ("Acute pulmonary embolism", "Other pulmonary embolism without acute cor pulmonale", None),
        (
            "Subdural hematoma without loss of consciousness",
            "Subdural hemorrhage, no loss of consciousness",
            None,
        ),
        ("Ischemic stroke", "Transient cerebral ischemic attack, unspecified", "infarction vs transient"),
        ("Traumatic subdural hematoma", "TRAUM SUBARACHNOID HEM", "subarachnoid"),
        # two causes, two kinds of diabetes, two classes of substance
        ("Alcoholic ketoacidosis", "Diabetic ketoacidosis", "cause alcohol vs diabetes"),
        ("Diabetic ketoacidosis", "Type 1 diabetes mellitus with ketoacidosis", None),
        ("Diabetes insipidus", "Diabetes mellitus", "insipidus"),
        ("Cocaine overdose", "Poisoning by heroin, accidental", "substance cocaine vs opioid"),
        ("Opioid overdose", "Poisoning by heroin, accidental", None),  # heroin is an opioid
        ("Pancreatic cancer", "Acute pancreatitis", "malignancy"),  # a malignancy on one side only
        ("Breast mass", "MAL NEO BREAST NOS", "malignancy"),
        ("Rectal adenocarcinoma", "Malignant neoplasm of rectum", None),
        ("Aortic stenosis", "Aortic regurgitation", "insufficiency"),
        ("Fatty liver", "Unspecified cirrhosis of liver", "cirrhosis"),
        ("Multiple rib fractures", "FRACTURE ONE RIB-CLOSED", "count several vs 1"),
        ("Hypertrophic cardiomyopathy", "Dilated cardiomyopathy", "hypertrophic vs dilated"),
        ("TTP", "Immune thrombocytopenic purpura", "thrombotic vs immune"),
        ("Anal cancer", "MALIGNANT NEOPL RECTUM", "organ anus vs rectum"),
        ("Cocaine intoxication", "Alcohol abuse with intoxication", "substance cocaine vs alcohol"),
        ("Hepatitis A", "Unspecified viral hepatitis C without hepatic coma", "hepatitis a vs hepatitis c"),
        ("Acute exacerbation of chronic systolic heart failure", "AC ON CHR SYST HRT FAIL", None),
        # limb sites (a limb holds its parts), more organs, the aorta's parts, rhythms, incontinence
        ("Cellulitis of right hand", "Cellulitis of right foot", "site hand vs foot"),
        ("Cellulitis of leg", "Cellulitis of left foot", "site leg vs foot"),  # 682.6 "leg, except foot"
        ("Cellulitis of thigh", "Cellulitis of right calf", "site thigh vs lower leg"),
        ("Cellulitis of knee", "Cellulitis of leg", None),  # the leg holds the knee
        ("Duodenal ulcer", "Gastric ulcer, unspecified", "organ duodenum vs stomach"),
        ("Ureteral obstruction", "Urethral obstruction", "organ ureter vs urethra"),
        ("Thoracic aortic aneurysm", "Abdominal aortic aneurysm", "thoracic"),
        ("Ventricular tachycardia", "Ventricular fibrillation", "fibrillation"),
        ("Urge incontinence", "Stress incontinence", "stress"),
        # resistance, stages (a range read whole), kindred condition words, status, benign neoplasms
        ("MRSA pneumonia", "Pneumonia due to methicillin susceptible Staphylococcus aureus", "resistance"),
        ("CKD 5", "Chronic kidney disease, stage 4 (severe)", "stage 5 vs stage 4"),
        ("Hypertensive CKD stage 2", "Hypertensive chronic kidney disease w stg 1-4/unsp chr kdny", None),
        ("Pancreatitis", "Pancreatolithiasis", "pancreatolithiasis"),
        ("History of colon cancer", "Malignant neoplasm of colon, unspecified", "status: history vs active"),
        ("Myeloma in remission", "Multiple myeloma not having achieved remission", "status: remission"),
        ("Dementia with behavioural disturbance", "Dementia without behavioral disturbance", "without"),
        ("Single rib fracture", "FRACTURE ONE RIB-CLOSED", None),
        ("Colonic adenoma", "Benign neoplasm of colon, unspecified", None),
        ("COPD exacerbation", "AECOPD", None),  # an exacerbation is acute
        ("New-onset atrial flutter", "Chronic atrial flutter", "acuity"),  # so is a new onset
        # origin, intent, count, a heart block's degree, cause of a bleed
        ("Secondary hypothyroidism", "Primary hypothyroidism", "primary"),
        ("Intentional paracetamol overdose", "Poisoning by 4-aminophenol derivatives, accidental", "intent"),
        ("Fractured single rib", "Multiple fractures of ribs, left side", "count 1 vs several"),
        ("Second degree heart block", "Atrioventricular block, first degree", "degree"),
        ("Complete heart block", "Atrioventricular block, complete", None),
        ("Traumatic subarachnoid hemorrhage", "Nontraumatic subarachnoid hemorrhage", "traumatic"),
        ("Biliary colic", "Renal colic", "organ"),
        ("CML in molecular remission", "Chronic myeloid leukemia, not having achieved remission", "status"),
        ("Varices, non-bleeding", "Esophageal varices without bleeding", None),
        ("Nonalcoholic fatty liver", "Alcoholic fatty liver", "non-alcoholic vs alcoholic"),  # one word
        # status, kinds, acquisition, herpes viruses, tinea and back sites, more organs
        ("HIV disease", "Asymptomatic HIV infection status", "status: active vs asymptomatic"),
        ("Inflammatory bowel disease", "Irritable bowel syndrome", "inflammatory vs irritable"),
        ("Absence seizures", "Generalized convulsive epilepsy", "seizure absence vs generalized"),
        ("Hospital-acquired pneumonia", "Community acquired pneumonia", "acquired"),
        ("Herpes simplex", "Herpes zoster", "simplex"),
        ("Tinea pedis", "Tinea cruris", "site foot vs groin"),
        ("Ringworm of the foot", "Tinea pedis", None),
        ("Pressure ulcer of heel", "Pressure ulcer of sacral region", "site"),
        ("Coronary atherosclerosis", "Cerebral atherosclerosis", "organ"),
        # rhythm origin, completeness, in situ, denied rupture, origin of a malignancy, substance, counts
        ("PSVT", "Ventricular tachycardia", "supraventricular vs ventricular"),
        ("Complete bowel obstruction", "Partial intestinal obstruction", "complete vs partial"),
        ("Ductal carcinoma in situ", "Malignant neoplasm of breast", "situ"),
        ("Candidiasis of mouth", "Esophageal candidiasis", "organ"),
        ("Ruptured aortic aneurysm", "Aortic aneurysm without rupture", "without rupture"),
        ("Lung adenocarcinoma", "Secondary malignant neoplasm of lung", "secondary vs primary"),
        ("Cocaine-induced psychosis", "Psychosis not due to a substance", "not due to a substance"),
        ("Five rib fractures", "Fracture of three ribs", "count 5 vs 3"),
        ("Multiple rib fractures", "Fracture of three ribs", None),
        ("Decompensated heart failure", "Chronic heart failure", "acuity"),
        # late effects, vein/artery, deep/superficial, severity, spelled levels, malignancy as a cause
        ("Acute ischemic stroke with dysphasia", "Dysphasia following cerebral infarction", "status"),
        ("Dysphasia after a stroke", "Dysphasia following cerebral infarction", None),
        ("Central retinal vein occlusion", "Central retinal artery occlusion", "vein vs artery"),
        (
            "DVT of the left arm",
            "Superficial thrombophlebitis of left upper extremity",
            "deep vs superficial",
        ),
        ("Severe persistent asthma", "Mild persistent asthma", "severe"),
        ("C5 fracture", "Fracture of fifth cervical vertebra", None),
        ("C5 fracture", "Fracture of sixth cervical vertebra", "level c5 vs c6"),
        ("Hypercalcemia due to malignancy", "Hypercalcemia", None),
        ("History of colon cancer", "Personal history of malignant neoplasm of large intestine", None),
    ],
)
def test_contrasts(a: str, b: str, said: str | None) -> None:
    found = contrast(a, b)
    assert (found is None) if said is None else (found is not None and said in found)
    assert (contrast(b, a) is None) == (found is None)  # symmetric


def test_the_broad_table_is_read_after_ours_and_its_ambiguous_terms_are_tried_in_each_meaning() -> None:
    t = terms()
    assert guard_expand("Quinsy") == "peritonsillar abscess"  # a row of the broad table only
    assert guard_expand("Tylenol overdose") == "poisoning by 4 aminophenol derivatives"
    assert set(readings("AI")) == {"aortic insufficiency", "adrenal insufficiency"}  # broad, ambiguous
    assert guard_expand("Bell's palsy") == guard_expand("Bell’s palsy") == guard_expand("Bells palsy")
    ours = _rows(TERMS_FILE)
    assert all(t.table.get(k) == v[0] or t.meanings.get(k) == tuple(v) for k, v in ours.items())  # ours wins
    assert len(t.table) > 2000


def test_terms_spell_out_mimic_titles_and_lay_terms() -> None:
    assert guard_expand("AC ON CHR DIAST HRT FAIL") == "acute on chronic diastolic heart failure"
    assert guard_expand("Low blood sugar") == "hypoglycemia"
    assert guard_expand("T12 compression fracture").startswith("thoracic vertebra ")  # the level spelled out
    assert guard_expand("heart attack") == "myocardial infarction"
    assert guard_expand("Low serum magnesium") == "hypomagnesemia"  # the lay form of an ion's hypo-
    assert guard_expand("High potassium") == "hyperkalemia"
    assert guard_expand("Hives") == "urticaria"
    assert guard_expand("Coffee-ground emesis") == "hematemesis"
    assert guard_expand("Slipped disc in lower back") == "intervertebral disc displacement in lumbar region"
    assert guard_expand("DVRTCLI COLON W/O HMRHG") == "diverticulitis colon without hemorrhage"
    assert guard_expand("GRAND MAL STATUS") == "generalized convulsive status"  # ICD-9 345.1 inclusion
    # a second pass spells out what the first produced: tylenol → acetaminophen, overdose → poisoning
    assert guard_expand("Tylenol overdose") == "poisoning by 4 aminophenol derivatives"
    assert guard_expand("Fatty liver") == "fatty liver disease"  # a row holding its own term: once
    assert guard_expand("CHB") == "complete atrioventricular block"  # heart block → AV block


def test_cms_short_title_words_are_learned_and_read_in_upper_case_titles_only() -> None:
    learned = cms_abbreviations()
    assert len(learned) > 1000
    assert (learned["hrt"], learned["hmrhg"], learned["gastrtis"]) == ("heart", "hemorrhage", "gastritis")
    assert "dis" not in learned  # split between disease and disorder: under the 60 % share
    assert "arm" not in learned and "cord" not in learned  # words of the long titles themselves
    assert guard_expand("ACUTE GASTRTIS W/O HMRHG") == "acute gastritis without hemorrhage"
    assert guard_expand("Acute gastrtis w/o hmrhg") == "acute gastrtis without hemorrhage"  # not a title
    assert exact_codes("ACUTE GASTRTIS W/O HMRHG") == {"K2900"}  # 535.00 through the GEM


def test_every_term_names_its_source_and_ambiguous_terms_stay_unexpanded() -> None:
    import csv

    with guard_text.TERMS_FILE.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) > 550 and all(r["source"].strip() and r["expansion"].strip() for r in rows)
    t = guard_text.terms()
    assert t.meanings["ich"] == ("intracerebral hemorrhage", "intracranial hemorrhage")
    assert "ms" not in t.table and set(t.meanings["ms"]) == {"multiple sclerosis", "mitral stenosis"}
    assert guard_expand("MS") == "ms"  # no meaning is preferred in the text itself


def test_an_ambiguous_abbreviation_is_read_in_every_meaning() -> None:
    assert guard_text.readings("Hives") == ("Hives",)  # nothing ambiguous: the text as given
    assert guard_text.readings("ICH") == ("intracerebral hemorrhage", "intracranial hemorrhage")
    assert guard_text.readings("ARF, ICH") == (
        "acute kidney failure, intracerebral hemorrhage",
        "acute kidney failure, intracranial hemorrhage",
        "acute respiratory failure, intracerebral hemorrhage",
        "acute respiratory failure, intracranial hemorrhage",
    )


@pytest.mark.parametrize(
    ("general", "specific", "titles", "expected"),
    [
        ("Anemia", "AC POSTHEMORRHAG ANEMIA", (), True),
        ("Pneumonia", "Right lower lobe pneumonia", (), True),
        ("Unspecified cirrhosis of liver", "Alcoholic cirrhosis", ("Alcoholic cirrhosis of liver",), True),
        ("Unspecified cirrhosis of liver", "Alcoholic cirrhosis", (), False),  # "liver" is in no title
        ("Fracture", "Displaced intertrochanteric fracture of left femur", (), False),  # a catch-all
        ("Kidney disease", "Chronic kidney disease, stage 5", (), False),  # organ + disease: a catch-all
        ("Cholelithiasis", "Gallstone pancreatitis", (), False),  # adds a second condition
        ("Systolic heart failure", "Combined systolic and diastolic heart failure", (), False),  # 2nd value
        ("Cholecystitis", "Calculus of gallbladder without cholecystitis", (), False),  # denied
        ("Bacteremia", "MRSA bacteremia", (), True),
        ("Obstruction", "Small bowel obstruction", (), False),  # a catch-all
        ("Kidney failure", "Acute kidney failure", (), True),  # failure with its organ is no catch-all
        ("Heart failure", "Hypertensive heart disease with heart failure", (), True),
        ("Lumbar vertebra fracture", "L1 compression fracture", (), True),  # "closed" is the default
    ],
)
def test_containment_credits_detail_not_a_second_condition(
    general: str, specific: str, titles: tuple[str, ...], expected: bool
) -> None:
    assert contained(general, specific, titles) is expected


@pytest.mark.parametrize(
    ("prediction", "reference", "refused"),
    [
        ("Duodenal ulcer", "Duodenal ulcer with hemorrhage", True),
        ("Duodenal ulcer", "Duodenal ulcer without hemorrhage or perforation", False),  # a denied bleed
        ("Subdural hematoma", "Subdural hemorrhage", False),  # the bleed named by its form
        ("Cystitis", "Cystitis with hematuria", False),  # "hematuria" is no hemorrhage word
        ("Sigmoid diverticulitis", "Diverticulitis of colon (without mention of hemorrhage)", False),
        ("Bright red blood per rectum", "RECTAL & ANAL HEMORRHAGE", False),  # blood names the bleed
        ("Diverticulitis", "Diverticulitis of colon with hemorrhage", True),
        # other complications named in the reference's own words
        ("Abdominal aortic aneurysm", "Dissection of abdominal aorta", True),
        ("Aortic tear", "Dissection of thoracic aorta", False),  # a tear names the dissection
        ("Gastric ulcer", "Acute gastric ulcer with perforation", True),
        ("Alcohol dependence", "Alcohol withdrawal delirium", True),
        ("Type 2 diabetes", "Diabetic ketoacidosis in type 2 diabetes", True),
        ("Acute confusional state", "Delirium due to known physiological condition", False),
    ],
)
def test_a_bleed_the_prediction_does_not_name(prediction: str, reference: str, refused: bool) -> None:
    assert (uncovered_sequel(prediction, reference) is not None) is refused


def test_icd_residual_clauses_are_no_complication() -> None:
    assert uncovered_complication("Adjustment disorder", "Adjustment disorder with other symptoms") is None
    assert uncovered_complication("Liver failure with encephalopathy", "Hepatic failure with coma") is None
    assert uncovered_complication("Influenza", "Influenza with other respiratory manifestations") is None
    assert (
        uncovered_complication("Foot ulcer", "Chronic ulcer of right foot with unspecified severity") is None
    )
    assert uncovered_complication("Influenza", "Influenza with pneumonia") is not None
    # "with no …" denies; a site names no complication; ICD's parenthesised words are nonessential;
    # an uncontrolled diabetes is one with hyperglycemia (ICD-10-CM Index)
    assert (
        uncovered_complication("Subdural hematoma", "Subdural hemorrhage, with no loss of consciousness")
        is None
    )
    assert uncovered_complication("diabetic foot osteomyelitis", "Type 2 diabetes mellitus with foot ulcer")
    assert uncovered_sequel("Essential thrombocytosis", "Essential (hemorrhagic) thrombocythemia") is None
    assert (
        uncovered_complication("uncontrolled type 2 diabetes", "Type 2 diabetes mellitus with hyperglycemia")
        is None
    )


def test_after_sets_18_and_19() -> None:
    # ICD-10-CM Index: a UTI's sites are coded apart from N39.0 "site not specified"
    assert compatible("N3000", "N390") and compatible("N390", "N10") and not compatible("N3000", "N10")
    # "unspecified whether with hypoxia or hypercapnia" stands for its parent and names no complication
    assert compatible("J9601", "J9600")
    assert uncovered_complication("Acute respiratory failure", "Acute respiratory failure, unspecified "
                                  "whether with hypoxia or hypercapnia") is None  # fmt: skip
    assert uncovered_complication("hypertensive CKD stage 3", "Hypertensive chronic kidney disease, "
                                  "with chronic kidney disease stage I through stage IV") is None  # fmt: skip
    assert uncovered_sequel("Melena", "Blood in stool") is None  # melena is a bleed's form
    assert uncovered_sequel("internal hemorrhoids", "Hemorrhage of anus and rectum")  # a vein, no bleed
    assert exact_codes("status post CABG") == exact_codes("Presence of coronary artery bypass graft")
    assert (
        guard_expand("bladder infection") == "cystitis" and guard_expand("EtOH w/d") == "alcohol withdrawal"
    )


def test_after_sets_24_and_25() -> None:
    # ICD-10-CM Index: hyperlipidemia's kinds are coded beside E78.5, not under it
    assert compatible("E785", "E7800") and compatible("E784", "E785") and not compatible("E780", "E781")
    assert not compatible("E785", "E786")  # a lipoprotein deficiency is no hyperlipidemia
    # controlled ↔ uncontrolled, but ICD-9-CM's "not stated as uncontrolled" leaves it open
    assert contrast("well-controlled type 2 diabetes", "Diabetes mellitus type II, uncontrolled")
    assert not contrast("type 2 diabetes", "Diabetes mellitus type II, not stated as uncontrolled")
    assert not contrast("controlled type 2 diabetes", "Diabetes type II, not stated as uncontrolled")
    # a poisoning ↔ an adverse effect (T45.511 ↔ T45.515); a "toxicity" is either
    assert contrast("warfarin overdose", "Adverse effect of anticoagulants")
    assert not contrast("Antiepileptic toxicity", "Adverse effect of antiepileptic drugs")
    assert contrast("Stable COPD", "COPD exacerbation") and not contrast("COPD", "COPD exacerbation")
    # "not bleeding" denies as "without bleeding" does
    assert not contrast("esophageal varices, not bleeding", "Esophageal varices without bleeding")
    assert contrast("bleeding esophageal varices", "Esophageal varices without bleeding")
    # h/o, sobriety, TKA, one-sided weakness (a hemiparesis, not R53.1 generalized weakness)
    assert not contrast("h/o breast cancer", "Personal history of malignant neoplasm of breast")
    assert contrast("alcoholism, sober for 5 years", "Alcohol dependence, uncomplicated")
    assert not contrast("alcoholism, sober for 5 years", "Alcohol dependence, in remission")
    assert guard_expand("s/p left TKA") == "presence of left total knee replacement"
    assert guard_expand("Left-sided weakness") == "left hemiparesis"
    assert guard_expand("juvenile-onset diabetes") == "type 1 diabetes mellitus"


def test_after_sets_26_and_27() -> None:
    # "malignant" hypertension names no neoplasm (I10's inclusion term); "non infectious" in two words
    # is "noninfectious" in one
    assert not contrast("malignant hypertension", "Essential (primary) hypertension")
    assert contrast("malignant neoplasm of kidney", "Essential (primary) hypertension")
    assert not contrast("non-infectious gastroenteritis", "NONINF GASTROENTERIT NEC")
    assert contrast("infectious gastroenteritis", "NONINF GASTROENTERIT NEC")
    assert contrast("discoid lupus", "Systemic lupus erythematosus") and contrast("asthma", "COPD")
    assert contrast("status asthmaticus", "Unspecified asthma, uncomplicated")
    # a prediction that names only the reference's cause; ICD's "due to" is left alone ("C. diff")
    assert only_the_cause("pneumonia", "Sepsis secondary to pneumonia")
    assert not only_the_cause("sepsis", "Sepsis secondary to pneumonia")
    assert not only_the_cause("C. diff", "Enterocolitis due to Clostridium difficile")
    # a kidney failure on dialysis is N18.6 (its inclusion term); an acute one stays acute
    assert exact_codes("kidney failure on dialysis") == exact_codes("CKD on HD") == {"N186"}
    assert "acute" in guard_expand("acute renal failure requiring dialysis")
    assert guard_expand("ESRD on hemodialysis") == "end stage renal disease on hemodialysis"
    # confusion and delirium NOS (R41.0) are altered mental status (R41.82)
    assert compatible("R410", "R4182") and not compatible("R4182", "R402")
    assert guard_expand("low neutrophil count") == "neutropenia"


def test_after_sets_29_to_31() -> None:
    assert contrast("CAD with stable angina", "Atherosclerotic heart disease with unstable angina pectoris")
    assert contrast("spontaneous subdural hematoma", "TRAUMATIC SUBDURAL HEM")
    assert contrast("traumatic vertebral fracture", "Pathologic fracture of vertebrae")
    # the digits are sites apart from the foot and hand (ICD-9-CM 681.1 ↔ 682.7 "foot, except toes"),
    # but ICD-10-CM's joint site "ankle and foot" holds the toes
    assert contrast("cellulitis of the toe", "CELLULITIS OF FOOT")
    assert contrast("finger abscess", "hand abscess")
    assert not contrast("Acute gout of left great toe", "Idiopathic gout, left ankle and foot")
    # a malignancy as a cause names no neoplasm of its own, on either side
    assert not contrast("cancer-related anemia", "Anemia in neoplastic disease")
    assert contrast("anemia", "Anemia in neoplastic disease") is None and contrast("cancer", "anemia")
    # an organism is detail a condition's code leaves open (B96.-)
    assert codes_less_organism("Klebsiella urinary tract infection") == {"N390"}
    assert "N309" in codes_less_organism("E. coli cystitis") and not codes_less_organism("cystitis")


def test_after_sets_28_and_32_to_34() -> None:
    # Crohn's ↔ ulcerative colitis, a low ↔ high cell count, healthcare ↔ community acquired, the
    # mitral valve's prolapse ↔ insufficiency, the kidney's papillary ↔ tubular necrosis
    assert contrast("Crohn colitis", "Ulcerative colitis")
    assert not contrast("Crohn's colitis", "Crohns disease")
    assert contrast("neutrophilia", "Neutropenia") and contrast("thrombocytosis", "thrombocytopenia")
    assert contrast("healthcare-associated pneumonia", "Community-acquired pneumonia")
    assert contrast("Mitral valve prolapse", "Nonrheumatic mitral (valve) insufficiency")
    assert contrast("renal papillary necrosis", "Acute kidney failure with tubular necrosis")
    # an "upper extremity" is a limb site ("l up extrem" spelled out), apart from the leg
    assert contrast("left leg DVT", "Acute embolism and thrombosis of deep veins of l up extrem")
    # a lobe's pneumonia is lobar, of that lobe; a past MI is an old one; raised ions; lay counts
    assert guard_expand("RLL pneumonia") == "lobar pneumonia right lower lobe"
    assert contrast("LLL pneumonia", "Right lower lobe pneumonia")
    assert guard_expand("remote NSTEMI") == guard_expand("prior heart attack") == "old myocardial infarction"
    assert guard_expand("elevated K") == "hyperkalemia" and guard_expand("low O2") == "hypoxemia"
    assert guard_expand("low plt") == "thrombocytopenia"
    assert contrast("Type A aortic dissection", "Type B aortic dissection")


def test_after_sets_35_to_38() -> None:
    # a relative's history is not the patient's; congenital ↔ acquired; fatty liver ↔ cirrhosis;
    # ileus ↔ obstruction; tension ↔ primary pneumothorax; prerenal ↔ tubular; hypoxia ↔ hypercapnia
    assert contrast("family history of breast cancer", "Personal history of malignant neoplasm of breast")
    assert not contrast("family history of CAD", "Family history of ischemic heart disease")
    assert contrast("Congenital hypothyroidism", "Unspecified acquired hypothyroidism")
    assert contrast("hepatic steatosis", "Unspecified cirrhosis of liver")
    assert contrast("paralytic ileus", "Unspecified intestinal obstruction")
    assert contrast("Tension pneumothorax", "Primary spontaneous pneumothorax")
    assert contrast("prerenal AKI", "Acute kidney failure with tubular necrosis")
    assert contrast(
        "acute on chronic hypercapnic respiratory failure",
        "Acute and chronic respiratory failure with hypoxia",
    )
    # hematochezia ↔ melena, though the term table spells a bleed in the stool as either
    assert contrast("hematochezia", "Melena") and not contrast("melena", "Blood in stool")
    # an incarcerated or strangulated hernia is coded with obstruction; agitation is a behavioural disturbance
    assert contrast(
        "Strangulated inguinal hernia", "Unilateral inguinal hernia, without obstruction or gangrene"
    )
    assert contrast("dementia with agitation", "Dementia, unspecified, without behavioral disturbance")
    # "malignant" pleural effusion and cancer pain name no neoplasm of their own
    assert not contrast("malignant pleural effusion", "PLEURAL EFFUSION NOS")
    assert not contrast("cancer pain", "Neoplasm related pain (acute) (chronic)")
    # a respiratory failure's gas and a kidney failure's lesion are its kind, not a complication
    assert (
        uncovered_complication("acute respiratory failure", "Acute respiratory failure with hypoxia") is None
    )
    assert uncovered_complication("AKI", "Acute kidney failure with lesion of tubular necrosis") is None
    assert uncovered_complication("T2DM", "Type 2 diabetes mellitus with foot ulcer")
    # a complication the prediction adds, or a seizure the reference adds, is a second diagnosis
    assert added_complication("thyroid storm", "Thyrotoxicosis, unspecified")
    assert added_complication("HHS", "Type 2 diabetes mellitus with hyperglycemia")
    assert not added_complication("hepatic coma", "Hepatic encephalopathy")
    assert uncovered_sequel("alcohol withdrawal", "Alcohol withdrawal seizure")
    assert not uncovered_sequel("epilepsy", "OTHER CONVULSIONS")
    # a title's "with" clause does not make its text name that condition (J85.1 lung abscess with pneumonia)
    assert not contained("pneumonia", "lung abscess", ["Abscess of lung with pneumonia"])
    assert contained("thrombocytopenia", "immune thrombocytopenic purpura")


def test_codes_read_from_titles_inclusion_terms_and_gems() -> None:
    assert "G40909" in exact_codes("EPILEP NOS W/O INTR EPIL")  # ICD-9 short title 345.90 → GEM
    assert "G40909" in exact_codes("Seizure disorder")  # an ICD-10-CM inclusion term of G40.909
    assert given_codes("5849", "ICD-9-CM") == {"N179"}
    assert given_codes("I21.4", "ICD-10-CM") == {"I214"}


def test_code_agreement_follows_the_hierarchy() -> None:
    # "Pneumonia, unspecified organism" stands for J18, not for the block "Influenza and pneumonia",
    # which names two diseases (pneumonia ↔ pneumococcal pneumonia J13 is left to the containment rule)
    assert stands_for("J189") == "J18"
    assert not compatible("J189", "J111") and not compatible("J189", "J13")
    assert stands_for("I509") == "I50" and compatible("I509", "I5033")  # heart failure ↔ its kind
    assert not compatible("J129", "J13")  # viral pneumonia is not pneumococcal
    assert compatible("I219", "I214")  # acute MI, unspecified ↔ NSTEMI
    assert not compatible("I213", "I214")  # STEMI ↔ NSTEMI: specified siblings
    assert not compatible("E870", "E875")  # hypernatremia ↔ hyperkalemia: one category, two diseases
    assert not compatible("E119", "E11621")  # type 2 diabetes ↔ its foot ulcer
    assert not compatible("I509", "N179")  # heart failure ↔ acute kidney failure


def test_open_codes_and_chapters() -> None:
    assert is_open("D649") and is_open("J9383") and is_open("J18")  # unspecified, other, a category
    assert not is_open("K7030") and not is_open("I10")  # specified leaves
    assert chapter("K7460") == chapter("K7030") != chapter("N179")


@pytest.fixture(scope="module")
def matcher() -> GuardedMatcher:
    return GuardedMatcher(embedder=Embedder(precision="float32"))


def _verdict(matcher: GuardedMatcher, prediction: str, reference: str, code: str | None, system: str | None):
    task = MatchTask("i", "s", [prediction], [reference], [(code, system)])
    outcome = matcher.match(task)
    verdicts = outcome.details["verdicts"]
    return bool(outcome.pairs), (verdicts[0]["reason"] if verdicts else "")


@pytest.mark.parametrize(
    ("prediction", "reference", "code", "system", "accepted", "said"),
    [
        ("Epilepsy", "EPILEP NOS W/O INTR EPIL", "34590", "ICD-9-CM", True, ""),  # truncated ED title
        ("Heart attack", "Non-ST elevation (NSTEMI) myocardial infarction", "I214", "ICD-10-CM", True, ""),
        ("Pneumonia", "Pneumonia due to Streptococcus pneumoniae", "J13", "ICD-10-CM", True, "more detail"),
        ("Heart failure", "Acute kidney failure, unspecified", "N179", "ICD-10-CM", False, ""),
        ("Hyperkalemia", "HYPOPOTASSEMIA", "2768", "ICD-9-CM", False, "contrast"),
        ("Acute kidney injury", "Chronic kidney disease, unspecified", "N189", "ICD-10-CM", False, ""),
        (
            "Right lower extremity cellulitis",
            "Cellulitis of left lower limb",
            "L03116",
            "ICD-10-CM",
            False,
            "left",
        ),
        (
            "Type 2 diabetes mellitus",
            "Type 2 diabetes mellitus with foot ulcer",
            "E11621",
            "ICD-10-CM",
            False,
            "",
        ),
        ("Pneumonia", "Sepsis, unspecified organism", "A419", "ICD-10-CM", False, ""),
        # an ambiguous abbreviation matches in any of its meanings, and only in those
        ("ICH", "INTRACEREBRAL HEMORRHAGE", "431", "ICD-9-CM", True, ""),
        ("MS", "Multiple sclerosis", "G35", "ICD-10-CM", True, ""),
        ("MS", "Myasthenia gravis without (acute) exacerbation", "G7000", "ICD-10-CM", False, ""),
        # a parent and its child across ICD categories: the general side's code is left open
        ("Alcoholic cirrhosis", "Unspecified cirrhosis of liver", "K7460", "ICD-10-CM", True, "more detail"),
        ("Iron deficiency anemia", "Anemia, unspecified", "D649", "ICD-10-CM", True, "more detail"),
        ("Septic shock", "SHOCK NOS", "78550", "ICD-9-CM", True, "more detail"),
        ("Iron deficiency anemia", "AC POSTHEMORRHAG ANEMIA", "2851", "ICD-9-CM", False, ""),  # siblings
        ("Pulmonary hypertension", "Essential (primary) hypertension", "I10", "ICD-10-CM", False, ""),
        ("Diabetes insipidus", "Diabetes mellitus", None, None, False, ""),
        (
            "Breast CA",
            "Malignant neoplasm of unsp site of unspecified female breast",
            "C50919",
            "ICD-10-CM",
            True,
            "",
        ),  # "CA" read as cancer (and calcium): the malignancy contrast does not refuse it
        (
            "Hodgkin's disease",
            "Hodgkin lymphoma, unspecified, unspecified site",
            "C8190",
            "ICD-10-CM",
            True,
            "",
        ),
        # J18.9 stands for J18, not for the block "Influenza and pneumonia", which names two diseases
        ("Influenza", "Pneumonia, unspecified organism", "J189", "ICD-10-CM", False, ""),
        ("Pneumococcal pneumonia", "Pneumonia, unspecified organism", "J189", "ICD-10-CM", True, ""),
        # a catch-all whose code is only a search's guess is no specific disease
        ("Thyroid disease", "Hypothyroidism, unspecified", "E039", "ICD-10-CM", False, "catch-all"),
        ("Drug overdose", "Poisoning by heroin, init", "T401X1A", "ICD-10-CM", False, "catch-all"),
        ("Psychiatric disorder", "SCHIZOAFFECTIVE-UNSPEC", "29570", "ICD-9-CM", False, "catch-all"),
        # a symptom's code (chapter R) is named by a diagnosis with its words and more detail
        ("MRSA bacteremia", "Bacteremia", "R7881", "ICD-10-CM", True, "more detail"),
    ],
)
def test_guard_classes(
    matcher: GuardedMatcher,
    prediction: str,
    reference: str,
    code: str,
    system: str,
    accepted: bool,
    said: str,
) -> None:
    got, reason = _verdict(matcher, prediction, reference, code, system)
    assert got is accepted, reason
    assert said in reason


def test_thresholds_honour_the_precision_floor() -> None:
    cases = ["uncoded"] * 4 + ["agree"] * 4 + ["identical", "contrast"]
    sims = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.99])
    truth = np.array([True, True, False, True, True, True, False, False, True, False])
    t, scores, met = choose_thresholds(cases, sims, truth, 1.0)
    assert met and scores["precision"] == 1.0
    # the best recall without a false match: uncoded down to 0.8, agree down to 0.4
    assert (t.threshold, t.agree_threshold) == (0.8, 0.4)
    assert scores["recall"] == pytest.approx(5 / 6, abs=1e-4)
    # a threshold is rounded down to 4 decimals, so it keeps the pair it was taken from
    sims, truth = np.array([0.80077, 0.2]), np.array([True, False])
    t, scores, _ = choose_thresholds(["agree", "agree"], sims, truth, 1.0)
    assert t.agree_threshold == 0.8007 and scores["recall"] == 1.0


CASES = {
    "e1": (
        [("Non-ST elevation (NSTEMI) myocardial infarction", "I214"), ("Hypokalemia", "E876")],
        ["heart attack", "hyperkalemia"],
    ),
    "e2": ([("Pneumonia, unspecified organism", "J189")], ["Pneumonia"]),
}


def test_summary_carries_the_calibration_and_the_verdicts(matcher: GuardedMatcher, tmp_path: Path) -> None:
    dataset, pred = write_case_dirs(tmp_path, CASES)
    run = run_matcher(matcher, dataset, pred)
    recorded = recorded_guard_calibration()
    assert recorded is not None and run.summary["calibration"] == recorded.to_dict()
    assert run.summary["calibration"]["set_version"].startswith("pairs_dev.jsonl+pairs_heldout.jsonl+")
    assert {"precision", "recall", "thresholds", "precision_floor"} <= set(run.summary["calibration"])
    e1, e2 = run.matches
    assert e1.pairs == [(0, 0)] and e2.pairs == [(0, 0)]
    # neither accepted pair is equal as the exact matcher normalises ("organism" is a word to it)
    assert run.summary["accepted_non_identical"] == 2
    accepted, refused = e1.details["verdicts"][0], e1.details["verdicts"][-1]
    assert accepted["verdict"] == "accepted" and accepted["similarity"] == e1.details["similarity"][0]
    assert (refused["prediction"], refused["reference"], refused["verdict"]) == (1, 1, "refused")
    assert "hypo- vs hyper-" in refused["reason"] and run.summary["refused_near_misses"] >= 1


@pytest.mark.skipif(not DEV_PAIRS.exists(), reason=f"{DEV_PAIRS} is not in this checkout")
def test_dev_pairs_reach_the_precision_floor(matcher: GuardedMatcher) -> None:
    recorded = recorded_guard_calibration()
    # the 0.95, with a margin: raised from 0.98 once the first measurements on unseen pairs
    # fell about four points below the calibration's precision (README, round 11)
    assert recorded is not None and recorded.precision_floor == 0.985
    on_dev = {f["file"]: f for f in recorded.files}["pairs_dev.jsonl"]
    scores = score_matcher(matcher, read_pairs(DEV_PAIRS))
    assert recorded.precision >= recorded.precision_floor and scores.precision >= 0.95  # union, then dev
    assert (round(scores.precision, 4), round(scores.recall, 4)) == (on_dev["precision"], on_dev["recall"])
    assert on_dev["sha256"] == sha256_file(DEV_PAIRS)  # calibrated on this very file (among others)
    assert [f["file"] for f in recorded.files] == [p.name for p in USED_PAIRS]
    # each set reaches 0.92 on its own: the level the guard reached on each new set's unseen pairs
    # (0.86-0.95, README); the union reaches the floor
    for f, path in zip(recorded.files, USED_PAIRS, strict=True):
        assert f["precision"] >= 0.92
        assert not path.exists() or sha256_file(path) == f["sha256"]


def test_calibration_on_several_files_records_each(matcher: GuardedMatcher, tmp_path: Path) -> None:
    rows = [
        ("Heart attack", "Acute myocardial infarction, unspecified", "same"),
        ("Hyperkalemia", "Hypokalemia", "different"),
        ("Hives", "Urticaria, unspecified", "same"),
    ]
    paths = []
    for name, chunk in (("a.jsonl", rows[:2]), ("b.jsonl", rows[2:])):
        lines = [json.dumps({"prediction": p, "reference": r, "label": lab, "class": "x", "reason": "r"})
                 for p, r, lab in chunk]  # fmt: skip
        (tmp_path / name).write_text("\n".join(lines) + "\n")
        paths.append(tmp_path / name)
    result = calibrate(matcher, paths, 0.95)
    assert result.pairs_file == "a.jsonl+b.jsonl" and (result.n_pairs, result.n_same) == (3, 2)
    assert [(f["file"], f["n_pairs"], f["sha256"]) for f in result.files] == [
        ("a.jsonl", 2, sha256_file(paths[0])), ("b.jsonl", 1, sha256_file(paths[1]))]  # fmt: skip
    assert result.pairs_sha256 not in {f["sha256"] for f in result.files}  # the union's own version
    assert (result.precision, result.recall) == (1.0, 1.0) and result.files[1]["recall"] == 1.0


def test_quality_is_quoted_only_for_the_measured_parameters(tmp_path: Path) -> None:
    recorded = recorded_scores()["embedding"]
    for name, threshold in (("measured", recorded["params"]["threshold"]), ("other", 0.7)):
        summary = {"matcher": "embedding", "params": {**recorded["params"], "threshold": threshold}}
        (tmp_path / name / "matches").mkdir(parents=True)
        (tmp_path / name / "matches" / "embedding.summary.json").write_text(json.dumps(summary))
    measured = matcher_quality("embedding", [tmp_path / "measured"])
    assert (measured["precision"], measured["recall"]) == (recorded["precision"], recorded["recall"])
    assert "precision 0.530, recall 0.773" in quality_line(measured)
    other = matcher_quality("embedding", [tmp_path / "other"])
    assert other["precision"] is None and "not measured" in quality_line(other)


def test_match_verb_says_what_calibration_and_matching_need(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from admitdx.cli import app
    from admitdx.errors import AdmitdxError

    for args, said in (
        (["match", "--calibrate"], "--calibrate needs --pairs FILE"),
        (["match", "--calibrate", "--pairs", str(tmp_path / "none.jsonl")], "no pair file"),
        (["match", "--calibrate", "--pairs", str(DEV_PAIRS), "--pairs", str(tmp_path / "b")], "no pair file"),
        (["match"], "match needs --dataset and --predictions"),
    ):
        result = CliRunner().invoke(app, args)
        assert isinstance(result.exception, AdmitdxError) and result.exception.exit_code == 2
        assert said in str(result.exception)
