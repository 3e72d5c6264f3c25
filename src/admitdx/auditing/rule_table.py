"""The rule-based auditor's clinical knowledge, as data a clinician can read and correct.

Each :class:`Concept` names a diagnosis group by ICD code prefixes (ICD-10-CM and ICD-9-CM, dots
removed; the longest matching prefix wins, so ``4010`` malignant hypertension beats ``401``) and
lists what would establish it at admission, following EarlyDx §3.3 (supported = a specific
admission-time finding directly substantiates it; partial = only indirect or suggestive evidence):

- ``labs`` — direct: a :class:`Lab` criterion, or a tuple of them that must all hold;
- ``findings`` — direct: a pattern in an ECG, echo or radiology sentence, affirmed (not negated,
  not hedged, and for an ``acute`` concept not "old" / "healed" / "chronic");
- ``vitals`` — direct: a :class:`Vital` threshold over triage and ED vital signs;
- ``complaint`` — direct, for *sign-defined* labels only (haematemesis, melena, rectal bleeding,
  syncope …): the chief complaint names the very sign the label codes ("VOMITING BLOOD");
- ``context_signs`` — a lab or vital sign that is direct only together with indirect evidence that
  localises it (a fever with a leg-redness complaint for cellulitis, a low haemoglobin with a
  bleeding complaint for blood-loss anaemia), otherwise suggestive (partial);
- ``hint_labs`` / ``hint_findings`` — suggestive signs (a haemoglobin below 10 g/dL for a GI bleed,
  an "opacity" for pneumonia): partial;
- ``indirect`` — patterns in the prior history, home medications or chief complaint: partial.

A pattern is a regular expression, or a tuple of them that must all occur in one sentence (a
fracture *and* its site). Patterns are matched case-insensitively; they carry their own word
boundaries. The table covers common ED admission diagnoses, not all of ICD; a label outside it is
audited by the generic rule in :mod:`admitdx.auditing.rules` (its title's words in the findings or
history).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Pattern = str | tuple[str, ...]


@dataclass(frozen=True)
class Lab:
    """One lab criterion. ``analyte`` must match the *whole* result name, so ``lactate`` is not
    "Lactate Dehydrogenase (LD)" and ``hemoglobin`` is not "% Hemoglobin A1c". With ``threshold`` a
    clinical cut-off decides (the value is at least / at most it), whatever the lab's own range; a
    mildly abnormal flag is not enough where a cut-off is clinically meaningful. Without one, the
    builder's abnormal flag in ``direction`` decides ("positive": a flagged qualitative result)."""

    analyte: str
    direction: Literal["high", "low", "positive"]
    threshold: float | None = None


@dataclass(frozen=True)
class Vital:
    measure: Literal["sbp", "spo2", "temp", "hr", "rr"]
    op: Literal[">=", "<="]
    threshold: float


@dataclass(frozen=True)
class Concept:
    name: str
    codes: tuple[str, ...]
    labs: tuple[Lab | tuple[Lab, ...], ...] = ()
    findings: tuple[Pattern, ...] = ()
    vitals: tuple[Vital, ...] = ()
    complaint: tuple[Pattern, ...] = ()
    context_signs: tuple[Lab | Vital, ...] = ()
    hint_labs: tuple[Lab, ...] = ()
    hint_findings: tuple[Pattern, ...] = ()
    indirect: tuple[Pattern, ...] = ()
    acute: bool = False


# --- shared vocabulary ---------------------------------------------------------------------------
_ANTICOAG = r"\b(?:apixaban|eliquis|warfarin|coumadin|rivaroxaban|xarelto|dabigatran|edoxaban|enoxaparin)\b"
_INHALERS = (
    r"\b(?:albuterol|tiotropium|ipratropium|fluticasone|budesonide|salmeterol|formoterol|montelukast"
    r"|umeclidinium|advair|symbicort|spiriva)\b"
)
#: Essential hypertension, not pulmonary, portal or intracranial hypertension.
_HYPERTENSION = r"(?<!pulmonary )(?<!portal )(?<!intracranial )\bhypertension\b|\bhtn\b"
_CHEST_PAIN = r"\bcp\b|chest (?:pain|pressure|tightness|discomfort)"
_TROPONIN = Lab(r"troponin [ti]|troponin|hs-?troponin(?: [ti])?", "high")
_ST_ELEVATION = r"\bst elevation\b|\bstemi\b|acute (?:myocardial )?infarct\w*"
_ISCHAEMIA = r"\bst depression\b|t wave inversion|subendocardial (?:injury|ischemia)"
_ABNORMAL_LABS = r"\babn\w* labs?\b|\babnl labs?\b"
#: The lab line does not say whether a gas was arterial or venous, nor whether a "pH" was blood or
#: urine: pCO2 counts from 50 mm Hg (above the venous normal range); pO2 and pH are not used.
_HYPERCAPNIA = Lab(r"pco2", "high", 50)
_FEVER = Vital("temp", ">=", 100.4)
_TACHYCARDIA = Vital("hr", ">=", 100)
_HYPOXAEMIA = Vital("spo2", "<=", 89)
_URINE_LABS = (
    Lab(r"leukocytes|leukocyte esterase", "positive"),
    Lab(r"nitrite", "positive"),
    Lab(r"wbc", "high", 10),  # urine WBC per hpf (blood WBC is "White Blood Cells")
)
_WBC = r"white blood cells|wbc count"
_HGB = r"hemoglobin|hgb"
_CREATININE = r"creatinine(?:, (?:serum|whole blood))?"
_GLUCOSE = r"glucose(?:, whole blood)?"
_BICARB = r"bicarbonate|calculated bicarbonate, whole blood|total co2"
_KETONES = Lab(r"ketone|beta hydroxybutyrate|acetone", "positive")
_LEG_VEINS = r"\bveins?\b|femoral|popliteal|peroneal|tibial|gastrocnemius|soleal|saphenous"
_BRAIN = (
    r"\bbrain\b|\bhead\b|cerebr\w*|cerebell\w*|\bmca\b|\baca\b|\bpca\b|territory|lacun\w*|\bpon\w*"
    r"|thalam\w*|basal ganglia|frontal|parietal|temporal|occipital|hemispher\w*|cortical|corona radiata"
    r"|white matter"
)
_FX = r"\bfx\b|\bfxs\b|fractur\w*|\blucenc\w*|height loss|compression deformit\w*"
_FALL = (
    r"\bs/?p fall\b|\bfall\w*\b|\bfell\b|\btrauma\w*|\bmvc\b|\bmva\b|\bmcc\b|\bped(?:estrian)? struck\b"
    r"|\binjur\w*|\bassault\w*|\bcar vs\b|\bvs\.? (?:car|pole|tree)\b|motorcycle|bicycle"
)
_HEMATEMESIS = (
    r"\bhematemesis\b|\bhaematemesis\b|vomit\w* (?:up )?blood|\bbloody (?:emesis|vomit\w*)"
    r"|coffee[- ]?grounds?"
)
_MELENA = r"\bmelena\b|\bmelaena\b|\bblack(?:,)? (?:tarry )?stools?\b|\bhematochezia\b"
_RECTAL_BLEEDING = (
    r"\bbrbpr\b|\bhematochezia\b|rectal bleed\w*|blood(?:y)? (?:in|per) (?:the )?(?:stool|rectum)"
    r"|\bbloody stools?\b"
)
_GI_BLEED_SIGNS = rf"{_HEMATEMESIS}|{_MELENA}|{_RECTAL_BLEEDING}|\bgi ?bleed\w*|\bugib\b|\blgib\b"
_OCCULT_BLOOD = Lab(r"occult blood|guaiac|stool guaiac", "positive")


def _fracture(name: str, codes: tuple[str, ...], site: str) -> Concept:
    """A fracture at one site: imaging must name a fracture *and* the site in one sentence (a rib
    fracture does not support a hip fracture); the same pair in the complaint or history ("T-SPINE
    FX"), a fall or trauma, or pain at the site is indirect evidence."""
    pain = () if site == "." else ((r"\bpain\w*|tender\w*|deformit\w*", site),)
    return Concept(name, codes, findings=((_FX, site),), indirect=((_FX, site), _FALL, *pain), acute=True)


_CERVICAL = r"\bc-?spine\b|\bcervical\b|\bc[1-7]\b|\bdens\b|\bodontoid\b|\bhangman"
_THORACIC = r"\bt-?spine\b|\bthoracic (?:spine|vertebra\w*)\b|\bdorsal\b|\bt(?:[1-9]|1[0-2])\b"
_LUMBAR = r"\bl-?spine\b|\blumbar\b|\bl[1-5]\b"
_SPINE = rf"{_CERVICAL}|{_THORACIC}|{_LUMBAR}|\bspin\w*|\bvertebra\w*|\bsacr\w*"
_RIB = r"\bribs?\b|\bsternum\b|\bsternal\b"
_PELVIS = (
    r"\bpelvi\w*|\bsacr\w*|\bcoccy\w*|\biliac\b|\bilium\b|\bacetabul\w*|\bpubi\w*|\brami\b|\bramus\b"
    r"|\bischi\w*"
)
_SKULL = (
    r"\bskull\b|\bcalvari\w*|\borbit\w*|\bnasal bones?\b|\bmandib\w*|\bmaxill\w*|\bzygom\w*|\bfacial\b"
    r"|\btemporal bone\b|\boccipital\b|\bfrontal bone\b|\bparietal bone\b|\bsinus wall\b"
)
_SHOULDER = r"\bclavic\w*|\bscapul\w*|\bhumer\w*|\bshoulder\b|\bglenoid\b|\bacromi\w*"
_FOREARM = (
    r"\bradius\b|\bradial\b|\bulna\b|\bulnar\b|\bolecranon\b|\bforearm\b|\bwrist\b|\bcolles\b|\belbow\b"
)
_HAND = r"\bscaphoid\b|\bcarpal\b|\bmetacarpal\w*|\bphalan\w*|\bfingers?\b|\bthumb\b|\bhand\b|\bwrist\b"
_FEMUR = r"\bfemur\b|\bfemoral\b|\bhip\b|\btrochanter\w*|\bintertrochanteric\b|\bsubcapital\b"
_LEG = (
    r"\bpatell\w*|\btibia\w*|\bfibula\w*|\bmalleol\w*|\bankle\b|\bbimalleolar\b|\btrimalleolar\b"
    r"|\btibial plateau\b|\bknee\b"
)
_FOOT = (
    r"\bcalcane\w*|\btalus\b|\btalar\b|\bmetatars\w*|\bnavicular\b|\bcuboid\b|\bcuneiform\b|\btoes?\b"
    r"|\bfoot\b"
)

_FRACTURES = (
    _fracture("fracture", ("80", "81", "82"), r"."),
    _fracture("skull / facial fracture", ("S02", "800", "801", "802", "803", "804"), _SKULL),
    _fracture("cervical vertebral fracture", ("S12", "8050", "8051", "8060", "8061"), _CERVICAL),
    _fracture("thoracic vertebral fracture", ("S220", "8052", "8053", "8062", "8063"), _THORACIC),
    _fracture("lumbar vertebral fracture", ("S320", "8054", "8055", "8064", "8065"), _LUMBAR),
    _fracture("vertebral fracture, level unspecified", ("8058", "8059", "8068", "8069"), _SPINE),
    _fracture("rib / sternum fracture", ("S222", "S223", "S224", "S225", "S229", "807"), _RIB),
    _fracture(
        "pelvic fracture",
        ("S321", "S322", "S323", "S324", "S325", "S326", "S328", "S329", "808", "8056", "8057"),
        _PELVIS,
    ),
    _fracture("shoulder / upper arm fracture", ("S42", "810", "811", "812"), _SHOULDER),
    _fracture("forearm fracture", ("S52", "813"), _FOREARM),
    _fracture("wrist / hand fracture", ("S62", "814", "815", "816", "817"), _HAND),
    _fracture("femur / hip fracture", ("S72", "820", "821"), _FEMUR),
    _fracture("lower leg / ankle fracture", ("S82", "822", "823", "824"), _LEG),
    _fracture("foot fracture", ("S92", "825", "826"), _FOOT),
)


def _pain(name: str, codes: tuple[str, ...], site: str) -> Concept:
    """A pain label (a symptom coded outside ICD chapter R): pain is what the patient reports, so a
    chief complaint of pain at the site is the sign itself."""
    return Concept(name, codes, complaint=((r"\bpain\w*|\bache\w*|\w+algia\b|tender\w*", site),))


def _bleeding(
    name: str,
    codes: tuple[str, ...],
    sign: str,
    *,
    labs: tuple[Lab, ...] = (),
    findings: tuple[Pattern, ...] = (),
    also: str = r"\bbleed\w*|hemorrhag\w*",
) -> Concept:
    """A sign-defined GI bleeding label: the complaint that names the sign ("VOMITING BLOOD") is
    direct; a haemoglobin under 10 g/dL, or any bleeding sign or history, is only suggestive (a
    mildly low haemoglobin is not evidence of a bleed at all)."""
    hint = (Lab(_HGB, "low", 10),)
    return Concept(
        name, codes, labs, findings, complaint=(sign,), hint_labs=hint, indirect=(_GI_BLEED_SIGNS, also)
    )


_GI_BLEED = (
    _bleeding(
        "gastrointestinal hemorrhage",
        ("K922", "5789"),
        _GI_BLEED_SIGNS,
        labs=(_OCCULT_BLOOD,),
        findings=(r"active extravasation|\bgi bleed\w*|gastrointestinal (?:bleed\w*|hemorrhage)",),
    ),
    _bleeding(
        "hematemesis", ("K920", "5780"), _HEMATEMESIS, also=r"\bbleed\w*|hemorrhag\w*|\bvarice\w*|\bulcer\w*"
    ),
    _bleeding(
        "melena", ("K921", "5781"), _MELENA, labs=(_OCCULT_BLOOD,), also=r"\bbleed\w*|hemorrhag\w*|\bulcer\w*"
    ),
    _bleeding("rectal hemorrhage", ("K625", "5693"), _RECTAL_BLEEDING, also=r"\bhemorrhoid\w*|\bbleed\w*"),
)

CONCEPTS: tuple[Concept, ...] = (
    *_FRACTURES,
    *_GI_BLEED,
    Concept(
        "acute kidney injury",
        ("N17", "584"),
        labs=(Lab(_CREATININE, "high"),),
        indirect=(
            r"\bkidney\b|\brenal\b|\bckd\b|\baki\b|\barf\b|creatinine|decreased po|poor po",
            _ABNORMAL_LABS,
        ),
    ),
    Concept(
        "chronic kidney disease",
        ("N18", "585"),
        hint_labs=(Lab(_CREATININE, "high"),),
        indirect=(r"chronic kidney|\bckd\b|\besrd\b|end stage renal|renal insufficiency|dialysis|\bhd\b",),
    ),
    Concept(
        "sepsis",
        ("A40", "A41", "038", "99591", "99592", "R652", "78552"),
        labs=(Lab(r"lactate", "high", 2.0), Lab(_WBC, "high", 12.0), Lab(_WBC, "low", 4.0)),
        hint_findings=(r"\bpneumonia\b|\bconsolidation\b|\bpyelonephritis\b|\babscess\b",),
        indirect=(
            r"\bsepticemi\w*|\bsepsis\b",
            r"\bfevers?\b|\bfebrile\b|\bsepsis\b|\bseptic\b|\bhypotension\b|\brigors?\b|\bchills\b|"
            r"\binfection\b",
        ),
    ),
    Concept(
        "pneumonia",
        (
            "J12",
            "J13",
            "J14",
            "J15",
            "J16",
            "J17",
            "J18",
            "J69",
            "480",
            "481",
            "482",
            "483",
            "485",
            "486",
            "507",
        ),
        findings=(r"\bpneumonia\b|\bpneumonitis\b|\bconsolidation\w*|\binfiltrates?\b|airspace disease",),
        hint_findings=(r"\bopacit\w*|\bairspace opacit\w*",),
        indirect=(
            r"\bcough\w*|\bfevers?\b|\bpneumonia\b|\bsob\b|short(?:ness)? of breath|\bdyspnea\b|\bhypoxi\w*",
        ),
    ),
    Concept(
        "urinary tract infection",
        ("N390", "5990", "N30", "595"),
        labs=_URINE_LABS,
        indirect=(
            r"\burin\w* tract infection",
            r"\bdysuria\b|\burinary\b|\buti\b|\bfrequency\b|\burgency\b|\bsuprapubic\b|\bcystitis\b"
            r"|\bhematuria\b|\bfoley\b",
        ),
    ),
    Concept(
        "pyelonephritis",
        ("N10", "N11", "N12", "590"),
        findings=(r"\bpyelonephritis\b|striated nephrogram",),
        # a positive urinalysis shows a UTI; flank pain or fever places it in the kidney
        context_signs=_URINE_LABS,
        hint_labs=_URINE_LABS,
        indirect=(r"pyelonephritis", r"\bflank\b|\bcva tenderness\b|\bfevers?\b|\bfebrile\b"),
    ),
    Concept(
        "atrial fibrillation",
        ("I48", "42731", "42732"),
        findings=(r"atrial fibrillation|atrial flutter|\bafib\b",),
        indirect=(
            r"atrial fibrillation|atrial flutter|\ba-?fib\b|\baf\b|\brvr\b|palpitation\w*|racing heart",
            _ANTICOAG,
        ),
    ),
    Concept(
        "heart failure",
        (
            "I50",
            "428",
            "I110",
            "I130",
            "I132",
            "40201",
            "40211",
            "40291",
            "40401",
            "40403",
            "40411",
            "40413",
            "40491",
            "40493",
        ),
        labs=(Lab(r"ntprobnp|nt-probnp|bnp|b-type natriuretic peptide", "high"),),
        findings=(
            r"\blvef (?:[1-3]\d|[5-9])\s?%|pulmonary edema|interstitial edema|vascular congestion"
            r"|\bcongestive heart failure\b|severely (?:depressed|reduced) (?:lv|left ventricular)",
        ),
        indirect=(
            r"\bh(?:ea)?rt fail\w*",
            r"\bsob\b|short(?:ness)? of breath|\bdoe\b|dyspnea|orthopnea|\bedema\b",
            r"heart failure|\bchf\b|\bhfref\b|\bhfpef\b|\bcardiomyopathy\b|\bfurosemide\b|\blasix\b"
            r"|\btorsemide\b|\bbumetanide\b|\bsacubitril\b",
        ),
    ),
    Concept(
        "myocardial infarction",
        ("I21", "I22", "410"),
        labs=(_TROPONIN,),
        findings=(_ST_ELEVATION,),
        hint_findings=(_ISCHAEMIA,),
        indirect=(
            _CHEST_PAIN,
            r"myocardial infarction|\bmi\b|\bcad\b|coronary|\bnstemi\b|\bstemi\b|nitroglycerin",
        ),
    ),
    Concept(
        "ST elevation myocardial infarction",
        ("I210", "I211", "I212", "I213", "4100", "4101", "4102", "4103", "4104", "4105", "4106", "4108"),
        labs=(_TROPONIN,),
        findings=(_ST_ELEVATION,),
        indirect=(_CHEST_PAIN, r"myocardial infarction|\bmi\b|\bcad\b|coronary|\bstemi\b|nitroglycerin"),
    ),
    Concept(
        "non-ST elevation myocardial infarction",
        ("I214", "4107"),
        labs=(
            _TROPONIN,
        ),  # the definition: a troponin rise; ST depression alone may be ischaemia of any kind
        hint_findings=(_ISCHAEMIA,),
        indirect=(_CHEST_PAIN, r"myocardial infarction|\bmi\b|\bcad\b|coronary|\bnstemi\b|nitroglycerin"),
    ),
    Concept(
        "unstable angina",
        ("I20", "411"),
        findings=(_ISCHAEMIA,),
        indirect=(_CHEST_PAIN, r"angina|nitroglycerin|\bcad\b|coronary"),
    ),
    Concept(
        "coronary artery disease",
        ("I25", "414"),
        indirect=(
            _CHEST_PAIN,
            r"coronary|\bcad\b|angina|clopidogrel|nitroglycerin|myocardial infarction|\bcabg\b"
            r"|\bpci\b|\bstent\w*",
        ),
    ),
    Concept(
        "malignant hypertension / hypertensive urgency",
        ("I16", "4010", "I674"),
        vitals=(Vital("sbp", ">=", 180),),
        indirect=(_HYPERTENSION, r"amlodipine|lisinopril|losartan|hydrochlorothiazide"),
    ),
    Concept(
        "hypertensive kidney disease",
        ("I12", "403"),
        hint_labs=(Lab(_CREATININE, "high"),),
        indirect=(r"chronic kidney|\bckd\b|\besrd\b|renal insufficiency", _HYPERTENSION),
    ),
    Concept(
        "hypertension",
        ("I10", "401", "I11", "I13", "402", "404"),
        indirect=(
            _HYPERTENSION,
            r"amlodipine|lisinopril|losartan|hydrochlorothiazide|metoprolol|valsartan|hydralazine|chlorthalidone"
            r"|nifedipine",
        ),
    ),
    Concept(
        "diabetic ketoacidosis",
        ("E101", "E111", "E131", "2501"),
        labs=(
            (Lab(_BICARB, "low", 18), Lab(r"anion gap", "high", 16)),
            (Lab(_BICARB, "low", 18), _KETONES),
            (Lab(_GLUCOSE, "high", 250), _KETONES),
        ),
        hint_labs=(Lab(_GLUCOSE, "high", 250), Lab(r"anion gap", "high", 16)),
        indirect=(r"diabetes|\bdm\b|\biddm\b|insulin|metformin|\bdka\b|hyperglycemi\w*",),
    ),
    Concept(
        "diabetes with hyperglycemia",
        ("E1065", "E1165", "E1365", "25002", "25003"),
        labs=(Lab(_GLUCOSE, "high", 180),),
        indirect=(r"diabetes|\bdm\b|\biddm\b|insulin|metformin|hyperglycemi\w*",),
    ),
    Concept(
        "diabetes mellitus",
        ("E10", "E11", "E13", "250"),
        labs=(Lab(r"% hemoglobin a1c|hemoglobin a1c|hba1c|a1c", "high", 6.5),),
        hint_labs=(Lab(_GLUCOSE, "high", 200),),  # one random value needs confirmation (ADA)
        indirect=(
            r"diabetes|\bdm\b|\biddm\b|\bniddm\b|hyperglycemi\w*|insulin|metformin|glipizide|glyburide|sitagliptin"
            r"|empagliflozin|dapagliflozin|liraglutide|semaglutide",
        ),
    ),
    Concept(
        "hypoglycemia",
        ("E160", "E161", "E162", "2510", "2511", "2512"),
        labs=(Lab(_GLUCOSE, "low", 70),),
        indirect=(r"insulin|glipizide|glyburide|hypoglycemi\w*",),
    ),
    Concept(
        "hyperkalemia",
        ("E875", "2767"),
        labs=(Lab(r"potassium(?:, whole blood)?", "high"),),
        indirect=(r"potassium|hyperkal\w*", _ABNORMAL_LABS),
    ),
    Concept("hypokalemia", ("E876", "2768"), labs=(Lab(r"potassium(?:, whole blood)?", "low"),)),
    Concept(
        "hyponatremia",
        ("E871", "2761"),
        labs=(Lab(r"sodium(?:, whole blood)?", "low"),),
        indirect=(r"hyponatremi\w*|\bsiadh\b|hypo-osmolality|\bsodium\b", _ABNORMAL_LABS),
    ),
    Concept("hypernatremia", ("E870", "2760"), labs=(Lab(r"sodium(?:, whole blood)?", "high"),)),
    Concept(
        "dehydration / hypovolemia",
        ("E86", "2765"),
        labs=(Lab(r"urea nitrogen|bun", "high"),),
        indirect=(r"\bn/v\b|vomiting|diarrh\w*|poor po|dehydrat\w*",),
    ),
    Concept(
        "acute posthemorrhagic anemia",
        ("D62", "2851"),
        context_signs=(Lab(_HGB, "low"),),
        hint_labs=(Lab(_HGB, "low"),),
        indirect=(_GI_BLEED_SIGNS, r"\bbleed\w*|hemorrhag\w*"),
    ),
    Concept(
        "anemia",
        ("D64", "D63", "D50", "2859", "280", "281"),
        labs=(Lab(_HGB, "low"),),
        indirect=(r"\banemi\w*|\bferrous\b|\biron\b|epoetin",),
    ),
    Concept(
        "diverticulitis",
        (
            "K570",
            "K572",
            "K574",
            "K578",
            "K5712",
            "K5713",
            "K5732",
            "K5733",
            "K5752",
            "K5753",
            "K5792",
            "K5793",
            "56201",
            "56203",
            "56211",
            "56213",
        ),
        findings=(r"\bdiverticulitis\b",),
        indirect=(r"\bllq\b|left lower quadrant|diverticul\w*",),
    ),
    Concept(
        "diverticular bleeding",
        ("K5711", "K5731", "K5751", "K5791", "56202", "56212"),
        findings=((r"\bbleed\w*|hemorrhag\w*|extravasation", r"diverticul\w*"),),
        hint_labs=(Lab(_HGB, "low", 10),),
        indirect=(_GI_BLEED_SIGNS, r"diverticul\w*"),
    ),
    Concept(
        "diverticulosis",
        ("K5710", "K5730", "K5750", "K5790", "56200", "56210"),
        findings=(r"\bdiverticulosis\b|\bdiverticula\b",),
        indirect=(r"diverticul\w*",),
    ),
    Concept(
        "appendicitis",
        ("K35", "K36", "K37", "540", "541"),
        findings=(r"\bappendicitis\b|dilated\b[^.]*\bappendix|periappendiceal",),
        indirect=(
            r"appendicitis",
            r"\brlq\b|right lower quadrant|\babd\w* pain",
        ),
    ),
    Concept(
        "cholecystitis / cholelithiasis",
        ("K80", "K81", "574", "575"),
        findings=(r"\bcholecystitis\b|\bgallstones?\b|\bcholelithiasis\b|pericholecystic",),
        indirect=(
            r"cholecystitis|cholelithiasis|cholelith",
            r"\bruq\b|right upper quadrant|gallstone|\babd\w* pain",
        ),
    ),
    Concept(
        "acute pancreatitis",
        ("K85", "5770"),
        labs=(Lab(r"lipase", "high", 180),),  # at least 3 x the upper limit (revised Atlanta)
        findings=(r"\bpancreatitis\b|peripancreatic (?:fat stranding|fluid|inflammat\w*)",),
        hint_labs=(Lab(r"lipase", "high"),),
        indirect=(r"epigastric|pancreatitis|\balcohol\w*|\betoh\b|\babd\w* pain",),
    ),
    Concept(
        "intestinal obstruction",
        ("K56", "560"),
        findings=(r"\bobstruction\b|dilated (?:loops of )?(?:small )?bowel|transition point",),
        indirect=(
            r"obstruct\w*",
            r"\bn/v\b|vomiting|obstruction|distension",
        ),
    ),
    Concept(
        "intracranial hemorrhage",
        ("I61", "I62", "431", "432", "S064", "852", "853"),
        findings=(
            r"(?:intracranial|intraparenchymal|intracerebral|parenchymal|subdural|subarachnoid|epidural"
            r"|extra-?axial|intraventricular)\s+(?:hemorrhage|haemorrhage|hematoma|haematoma|bleed|blood)"
            r"|\bsah\b|\bsdh\b|\bich\b|hyperdense (?:collection|hematoma)",
        ),
        indirect=(
            r"intracerebral hem\w*|intracranial hem\w*",
            r"head bleed|\bsdh\b|\bsah\b|\bich\b|\bbleed\b|headache|\bfall\w*|\bhead\b",
            _ANTICOAG,
        ),
        acute=True,
    ),
    Concept(
        "subarachnoid hemorrhage",
        ("I60", "430", "S066", "8520", "8521"),
        findings=(r"subarachnoid (?:hemorrhage|haemorrhage|blood|bleed)|\bsah\b|hyperdens\w*[^.]*cisterns",),
        indirect=(r"subarachnoid|subrac", r"\bsah\b|head bleed|headache|\bfall\w*|\bhead\b", _ANTICOAG),
        acute=True,
    ),
    Concept(
        "subdural hemorrhage",
        ("I620", "4321", "S065", "8522", "8523"),
        findings=(r"subdural (?:hemorrhage|haemorrhage|hematoma|haematoma|collection|blood)|\bsdh\b",),
        indirect=(r"subdural", r"\bsdh\b|head bleed|\bfall\w*|\bhead\b", _ANTICOAG),
    ),
    Concept(
        "ischemic stroke",
        ("I63", "433", "434"),
        findings=(
            (
                r"\binfarct\w*|\bocclusion\b|\bischemi\w*|restricted diffusion|loss of (?:the )?gray-white",
                _BRAIN,
            ),
        ),
        indirect=(
            r"cerebral infarct\w*|\bstroke\b",
            r"weakness|aphasia|facial droop|numbness|stroke|slurred|\bcva\b|hemiparesis|neglect"
            r"|code stroke",
        ),
        acute=True,
    ),
    Concept(
        "transient ischemic attack",
        ("G45", "435"),
        indirect=(
            r"weakness|aphasia|numbness|\btia\b|slurred|facial droop|transient|word finding|dysarthria"
            r"|vision loss",
        ),
    ),
    Concept("concussion", ("S060", "850"), indirect=(r"\bfall\w*|\bhead\b|concussion|\bloc\b|\bmvc\b",)),
    Concept(
        "pulmonary embolism",
        ("I26", "4151"),
        findings=(r"pulmonary embol\w*|\bpe\b", (r"filling defects?", r"pulmonary|arter\w*|lobar|segmental")),
        hint_labs=(Lab(r"d-dimer", "high"),),
        indirect=(
            r"pulm\w* embol\w*",
            r"\bdyspnea\b|\bsob\b|pleuritic|\bdvt\b|\bpe\b|pulmonary embol\w*",
            _ANTICOAG,
        ),
    ),
    Concept(
        "deep vein thrombosis",
        ("I824", "I825", "I826", "I829", "4534", "4535", "4538", "4539"),
        findings=(r"\bdvt\b|deep ve(?:in|nous) thromb\w*", (r"thromb\w*|noncompressible", _LEG_VEINS)),
        hint_labs=(Lab(r"d-dimer", "high"),),
        indirect=(
            r"\bthrombosis\b|deep vein",
            r"(?:leg|calf|lle|rle) (?:swelling|pain)|swelling|\bdvt\b",
            _ANTICOAG,
        ),
        acute=True,
    ),
    Concept(
        "copd exacerbation",
        ("J44", "491", "492", "496"),
        labs=(_HYPERCAPNIA,),
        indirect=(
            r"\bcopd\b|emphysema|chronic obstructive|chronic bronchitis",
            _INHALERS,
            r"wheez\w*|\bsob\b|short(?:ness)? of breath|dyspnea|\bcough\w*",
        ),
    ),
    Concept(
        "asthma",
        ("J45", "493"),
        context_signs=(Vital("spo2", "<=", 92), Vital("rr", ">=", 24)),
        indirect=(r"\basthma\w*|\bwheez\w*", _INHALERS),
    ),
    Concept(
        "acute respiratory failure",
        ("J96", "51881", "51882", "51884"),
        labs=(_HYPERCAPNIA,),
        vitals=(_HYPOXAEMIA,),
        indirect=(
            r"respirat\w* failure",
            r"\bdyspnea\b|\bsob\b|short(?:ness)? of breath|\bhypoxi\w*|respiratory distress",
        ),
    ),
    Concept(
        "pleural effusion",
        ("J90", "J91", "511"),
        findings=(r"pleural effusions?|(?<!pericardial )\beffusions?\b|costophrenic angle",),
        indirect=(
            r"pleural effusion",
            r"\bdyspnea\b|\bsob\b",
        ),
    ),
    Concept(
        "pneumothorax",
        ("J93", "S270", "512", "860"),
        findings=(r"\bpneumothora\w*|pleural (?:air|line)",),
        indirect=(
            r"pneumothorax",
            r"\bchest\b|\bribs?\b|\btrauma\w*|\bptx\b|\bmvc\b|\bassault\w*",
        ),
    ),
    Concept(
        "cellulitis",
        ("L03", "681", "682"),
        findings=(
            r"\bcellulitis\b|subcutaneous (?:edema|stranding)|soft tissue (?:swelling|stranding|edema)",
        ),
        context_signs=(_FEVER, Lab(_WBC, "high", 12.0)),
        indirect=(r"\bswelling\b|\bredness\b|\berythema\b|\bcellulitis\b|\binfection\b|\bwound\b|\bulcer\b",),
    ),
    Concept(
        "hypothyroidism",
        ("E03", "E02", "244"),
        labs=(Lab(r"thyroid stimulating hormone|tsh", "high"),),
        indirect=(r"hypothyroid|levothyroxine|synthroid",),
    ),
    Concept(
        "hyperlipidemia",
        ("E78", "272"),
        indirect=(
            r"lipid|cholesterol|\b(?:atorva|simva|rosuva|prava|lova|pitava|fluva)statin\b|ezetimibe|fenofibrate",
        ),
    ),
    Concept(
        "depression",
        ("F32", "F33", "311", "2962", "2963"),
        indirect=(
            r"\bsi\b|suicid\w*|(?<!respiratory )\bdepress\w*|sertraline|citalopram|escitalopram|fluoxetine"
            r"|paroxetine|bupropion|mirtazapine"
            r"|venlafaxine|duloxetine",
        ),
    ),
    Concept(
        "epilepsy / seizure",
        ("G40", "345"),
        indirect=(
            r"seizure|\bsz\b|epilep|levetiracetam|keppra|phenytoin|lamotrigine|valproate|divalproex|carbamazepine",
        ),
    ),
    Concept("migraine", ("G43", "346"), indirect=(r"migraine|headache|sumatriptan",)),
    Concept(
        "hepatic encephalopathy",
        ("K7682", "5722"),
        labs=(Lab(r"ammonia", "high"),),
        indirect=(
            r"hepatic encephalopathy",
            r"cirrhosis|lactulose|rifaximin|confusion|altered|\bams\b",
        ),
    ),
    Concept(
        "alcohol intoxication",
        ("F1012", "F1022", "F1092", "3050", "3030"),
        labs=(Lab(r"ethanol", "high", 80),),  # mg/dL, the legal limit
        indirect=(r"\betoh\b|\balcohol\w*|intoxicat\w*|\bdrunk\b",),
    ),
    Concept(
        "alcohol withdrawal",
        ("F1023", "F1013", "F1093", "29181", "2910", "2913"),
        context_signs=(_TACHYCARDIA, Vital("sbp", ">=", 160)),
        indirect=(
            r"\betoh\b|\balcohol\w*|withdraw\w*|\bdts\b|delirium tremens|chlordiazepoxide|\bciwa\b"
            r"|tremor\w*|\bshak\w*",
        ),
    ),
    Concept(
        "syncope",
        ("R55", "7802"),
        complaint=(r"\bsyncop\w*|\bpresyncop\w*|\bnear[- ]syncop\w*|\bpassed out\b|\bfaint\w*|\bloc\b",),
        indirect=(r"dizz\w*|lightheaded\w*|\bfall\w*|\bcollapse\w*",),
    ),
    Concept(
        "leukocytosis",
        ("D7282", "2886"),
        labs=(Lab(_WBC, "high"),),
        indirect=(r"leukocytosis|elevated white blood cell",),
    ),
    Concept(
        "acidosis",
        ("E872", "2762"),
        labs=(Lab(_BICARB, "low"), Lab(r"lactate", "high", 4.0)),
        indirect=(r"\bacidosis\b",),
    ),
    Concept(
        "hypotension",
        ("I95", "458"),
        vitals=(Vital("sbp", "<=", 90),),
        complaint=(r"hypotensi\w*|low (?:bp|blood pressure)",),
        indirect=(r"dizz\w*|lightheaded\w*|syncop\w*",),
    ),
    _pain("neck pain", ("M542", "7231"), r"\bneck\b|cervical|c-?spine"),
    _pain("low back pain", ("M545", "7242", "7245"), r"\bback\b|lumbar|l-?spine|\blbp\b"),
    _pain("shoulder pain", ("M2551", "71941"), r"\bshoulders?\b"),
    _pain(
        "pain in limb",
        ("M796", "7295"),
        r"\blegs?\b|\barms?\b|\bcalf\b|\bthigh\b|\bfoot\b|\bfeet\b|\bhand\b|\b[rl][ul]e\b"
        r"|extremit\w*",
    ),
    Concept(
        "opioid overdose",
        ("T400", "T401", "T402", "T403", "T404", "T406", "9650"),
        context_signs=(Vital("rr", "<=", 10), Vital("spo2", "<=", 90)),
        indirect=(
            r"overdose|\bod\b|heroin|opioid|opiate|found down|unresponsive|narcan|naloxone|methadone"
            r"|oxycodone|fentanyl|buprenorphine",
        ),
    ),
    Concept(
        "supraventricular tachycardia",
        ("I471", "4270"),
        findings=(
            r"supraventricular tachycardia|\bsvt\b|atrial tachycardia|\bavnrt\b|narrow complex tachycardia",
        ),
        indirect=(r"palpitation\w*|racing heart|\bsvt\b|adenosine",),
    ),
    Concept(
        "complete heart block",
        ("I442", "4260"),
        findings=(
            r"complete heart block|third[- ]degree|(?:av|atrioventricular) block, complete"
            r"|complete (?:av|atrioventricular) block",
        ),
        indirect=(
            r"(?:heart|av|atrioventricular|atriovent) block",
            r"bradycardi\w*|syncop\w*|dizz\w*|heart block",
        ),
    ),
    Concept(
        "aortic dissection",
        ("I710", "4410"),
        findings=((r"dissection|intimal flap", r"aort\w*"),),
        indirect=(r"chest pain|back pain|tearing|dissection",),
        acute=True,
    ),
    Concept(
        "ureteral calculus",
        ("N201", "N202", "N209", "5921", "5929"),
        findings=((r"calcul\w*|\bstones?\b", r"ureter\w*|\buvj\b|ureterovesical|ureteropelvic"),),
        hint_findings=(r"hydronephrosis",),
        indirect=(
            r"calcul\w*|\bstones?\b|nephrolithiasis|urolithiasis",
            r"flank pain|renal colic|kidney stone|nephrolithiasis",
        ),
    ),
    Concept(
        "cirrhosis",
        ("K703", "K746", "5712", "5715"),
        findings=(r"\bcirrho\w*|nodular (?:liver|contour)",),
        indirect=(r"cirrho\w*|lactulose|rifaximin|spironolactone|nadolol|ascites|\besld\b|\bhcv\b",),
    ),
    Concept(
        "metabolic / toxic encephalopathy",
        ("G9341", "G9340", "G9349", "34831", "34830", "34839"),
        indirect=(r"confus\w*|altered|\bams\b|letharg\w*|encephalopathy|delirium",),
    ),
    Concept(
        "gastro-oesophageal reflux",
        ("K21", "53081"),
        indirect=(
            r"omeprazole|pantoprazole|esomeprazole|lansoprazole|rabeprazole|famotidine|ranitidine"
            r"|(?<!vesicoureteral )(?<!hepatojugular )\breflux\b|\bgerd\b",
        ),
    ),
    Concept(
        "anxiety",
        ("F41", "3000"),
        indirect=(r"anxiety|lorazepam|alprazolam|clonazepam|diazepam|buspirone|hydroxyzine",),
    ),
    Concept(
        "dementia",
        ("F01", "F02", "F03", "G30", "290", "3310"),
        indirect=(r"dementia|alzheimer\w*|donepezil|memantine|rivastigmine|galantamine",),
    ),
    Concept(
        "alcohol dependence / abuse",
        ("F1010", "F1020", "3039", "3050"),
        labs=(Lab(r"ethanol", "high", 80),),
        indirect=(r"\betoh\b|\balcohol\w*|thiamine|naltrexone|acamprosate|disulfiram",),
    ),
    Concept(
        "influenza",
        ("J09", "J10", "J11", "487", "488"),
        labs=(Lab(r"influenza a|influenza b|influenza a/b|flu a|flu b", "positive"),),
        indirect=(r"\bfevers?\b|\bcough\w*|\bili\b|body aches|\bflu\b|influenza|myalgia\w*",),
    ),
    Concept(
        "gastroenteritis",
        ("K52", "558", "A08", "A09", "0085", "0088", "009"),
        indirect=(
            r"gastroenteritis|colitis",
            r"\bn/v\b|n/v/d|diarrh\w*|vomit\w*|nausea",
        ),
    ),
    Concept(
        "hemiplegia",
        ("G81", "342"),
        indirect=(r"weakness|hemipar\w*|hemipleg\w*|stroke|\bcva\b|aphasia",),
    ),
    Concept(
        "hematuria",
        ("R31", "5997"),
        labs=(Lab(r"blood", "positive"), Lab(r"rbc", "high", 3)),  # urine dipstick blood, RBC per hpf
        complaint=(r"hematuria|blood in (?:the )?urine|bloody urine",),
        indirect=(r"flank pain|\bfoley\b|catheter|kidney stone",),
    ),
    Concept(
        "swelling of limb",
        ("M7989", "72981", "R226", "R224", "7823"),
        complaint=(
            r"(?:leg|arm|limb|calf|ankle|foot|hand|\b[rl]le|\b[rl]ue)\w* (?:swelling|swollen|edema)"
            r"|swelling of (?:the )?(?:leg|arm|limb|calf|ankle|foot|hand)",
        ),
        indirect=(r"\bswelling\b|\bedema\b|leg pain|calf pain",),
    ),
    Concept(
        "pericarditis",
        ("I30", "420"),
        findings=(r"\bpericarditis\b|diffuse st elevation|\bpr depression\b",),
        indirect=(
            r"pericarditis",
            r"chest pain",
        ),
    ),
)
