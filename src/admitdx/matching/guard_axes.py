"""The word tables behind the guarded matcher's contrasts (:mod:`admitdx.matching.guard_compare`): for
each axis the ICD hierarchy separates, the words that name its values. Two texts that name different
values of one axis name different conditions (an organ, an organism, a cause, a substance, a site …).
Each table cites the ICD codes it keeps apart; the tables are data, the comparing is
:mod:`admitdx.matching.guard_compare`'s.
"""

from __future__ import annotations

OPPOSITE_PREFIXES = (("hypo", "hyper"), ("brady", "tachy"))
EXCLUSIVE = (
    frozenset({"left", "right", "bilateral"}),
    frozenset({"upper", "lower"}),
    frozenset({"systolic", "diastolic"}),
    frozenset({"fibrillation", "flutter", "tachycardia"}),  # atrial tachycardia ↔ flutter, VT ↔ VF
    frozenset({"intoxication", "withdrawal"}),
    frozenset({"cervical", "thoracic", "lumbar"}),
    frozenset({"benign", "malignant"}),
    frozenset({"open", "closed"}),
    frozenset({"acidosis", "alkalosis"}),
    frozenset({"anterior", "inferior"}),
    frozenset({"viral", "bacterial"}),
    frozenset({"small", "large"}),
    frozenset({"central", "obstructive"}),
    frozenset({"lymphocytic", "myeloid"}),
    frozenset({"lymphocytic", "myelogenous"}),
    frozenset({"lymphocytic", "myeloblastic"}),  # ICD-10-CM's word for acute myeloid (C92.0)
    frozenset({"lymphoblastic", "myeloid"}),
    frozenset({"lymphoblastic", "myeloblastic"}),
    frozenset({"viral", "streptococcal"}),
    frozenset({"viral", "staphylococcal"}),
    frozenset({"abscess", "hematoma"}),
    frozenset({"infarction", "transient"}),
    frozenset({"insipidus", "mellitus"}),
    frozenset({"stenosis", "insufficiency"}),
    frozenset({"fatty", "steatohepatitis", "fibrosis", "cirrhosis"}),
    frozenset({"inflammatory", "irritable"}),  # inflammatory bowel disease ↔ irritable bowel syndrome
    frozenset({"simplex", "zoster"}),  # herpes simplex (B00) ↔ herpes zoster (B02)
    frozenset({"supraventricular", "ventricular"}),  # I47.1 ↔ I47.2
    frozenset({"deep", "superficial"}),  # deep ↔ superficial vein thrombosis, I82.4- ↔ I82.61-
    frozenset({"central", "branch"}),  # central ↔ branch retinal artery occlusion, H34.1- ↔ H34.23-
    frozenset({"mild", "moderate", "severe"}),  # E44.1 ↔ E44.0 ↔ E43; asthma's severities
    frozenset({"complete", "partial"}),  # complete ↔ partial intestinal obstruction, K56.691 ↔ K56.600
    frozenset({"complete", "incomplete"}),
    frozenset({"invasive", "situ"}),  # carcinoma in situ (D05) ↔ invasive carcinoma (C50)
    frozenset({"malignant", "situ"}),
    frozenset({"subdural", "subarachnoid", "epidural", "intracerebral", "intraventricular"}),
    frozenset({"primary", "secondary"}),  # E21.0 ↔ E21.1, C34 ↔ C78.0: the origin is the diagnosis
    frozenset({"traumatic", "nontraumatic"}),  # S06.6 ↔ I60: two chapters
    frozenset({"hypertrophic", "dilated", "restrictive"}),  # the cardiomyopathies, I42.0-I42.5
    frozenset({"immune", "thrombotic"}),  # immune (D69.3) ↔ thrombotic (M31.1) thrombocytopenic purpura
    frozenset({"thoracic", "abdominal"}),  # the aorta's two parts: I71.0x/I71.2 ↔ I71.3/I71.4, S25.0 ↔ S35.0
    frozenset({"stress", "urge", "overflow"}),  # the kinds of urinary incontinence, N39.3 ↔ N39.41 ↔ R39.81
    frozenset({"accidental", "intentional"}),  # a poisoning's intent is its code's 6th character
    frozenset({"diet", "insulin"}),  # gestational diabetes diet ↔ insulin controlled, O24.410 ↔ O24.414
    frozenset({"gestational", "existing"}),  # gestational ↔ pre-existing diabetes in pregnancy, O24.4 ↔ O24.1
    frozenset({"overweight", "obesity"}),  # E66.3 ↔ E66.9
    frozenset({"incontinence", "retention"}),  # of urine: R32, N39.4- ↔ R33.9
    frozenset({"abrasion", "ulcer"}),  # corneal abrasion S05.0- ↔ corneal ulcer H16.0-
    frozenset({"hemothorax", "pneumothorax"}),  # S27.1 ↔ S27.0
    frozenset({"hemolytic", "posthemorrhagic", "aplastic"}),  # the anemias D55-D59 ↔ D62 ↔ D61
    frozenset({"attempt", "ideation", "ideations"}),  # suicide attempt T14.91 ↔ suicidal ideation R45.851
    frozenset({"externa", "media", "interna"}),  # otitis externa H60 ↔ media H66 ↔ interna H83.0
    frozenset({"rheumatoid", "osteoarthritis"}),  # M06 ↔ M17
    frozenset({"discoid", "systemic"}),  # discoid lupus L93.0 ↔ systemic lupus erythematosus M32
    frozenset({"asthma", "obstructive"}),  # asthma J45 ↔ chronic obstructive pulmonary disease J44
    frozenset({"stable", "exacerbation"}),  # COPD (J44.9) ↔ its exacerbation (J44.1), asthma's J45.x0 ↔ x1
    frozenset({"stable", "unstable"}),  # stable (I20.8-, I25.118) ↔ unstable angina (I20.0, I25.110)
    frozenset({"prolapse", "insufficiency", "stenosis"}),  # the mitral valve's I34.1 ↔ I34.0 ↔ I34.2
    frozenset({"papillary", "tubular", "cortical"}),  # the kidney's necroses: N17.2 ↔ N17.0 ↔ N17.1
    frozenset({"traumatic", "spontaneous"}),  # a spontaneous bleed is nontraumatic: I62.0- ↔ S06.5-
    frozenset({"traumatic", "pathologic", "pathological"}),  # a fracture's cause: S12-S32 ↔ M84.4-, M80
    frozenset({"congenital", "acquired"}),  # congenital (E03.1, Q chapter) ↔ acquired (E03.9, Z89)
    frozenset({"ileus", "obstruction"}),  # (paralytic) ileus (K56.0, K56.7) ↔ intestinal obstruction (K56.6-)
    frozenset({"prerenal", "tubular"}),  # prerenal azotemia (R39.2) ↔ acute tubular necrosis (N17.0)
    frozenset({"tension", "primary"}),  # spontaneous tension (J93.0) ↔ primary pneumothorax (J93.11)
)
#: organ words, spelled out, by organ: two texts that each name an organ and share none name different
#: conditions (acute liver failure ↔ acute kidney failure, cardiac ↔ pulmonary sarcoidosis)
ORGANS = {"liver": "liver", "hepatic": "liver", "kidney": "kidney", "renal": "kidney", "heart": "heart",
           "cardiac": "heart", "lung": "lung", "lungs": "lung", "pulmonary": "lung", "brain": "brain",
           "cerebral": "brain", "anus": "anus", "anal": "anus", "rectum": "rectum", "rectal": "rectum",
           "esophagus": "esophagus", "esophageal": "esophagus", "stomach": "stomach", "gastric": "stomach",
           "pancreas": "pancreas", "pancreatic": "pancreas", "bladder": "bladder", "prostate": "prostate",
           "ovary": "ovary", "ovarian": "ovary", "uterus": "uterus", "uterine": "uterus",
           "duodenum": "duodenum", "duodenal": "duodenum", "colon": "colon", "colonic": "colon",
           "ureter": "ureter", "ureteral": "ureter", "urethra": "urethra", "urethral": "urethra",
           "gallbladder": "gallbladder", "spleen": "spleen", "splenic": "spleen", "thyroid": "thyroid",
           "breast": "breast", "testis": "testis", "testicle": "testis", "testicular": "testis",
           "adrenal": "adrenal", "biliary": "gallbladder", "coronary": "heart", "mouth": "mouth",
           "oral": "mouth",
           "intracranial": "brain", "spinal": "spine"}  # fmt: skip
#: organisms, by genus: two texts that each name an organism and share none name sibling conditions
#: (pneumococcal ↔ Klebsiella pneumonia, E. coli ↔ Staphylococcus aureus sepsis)
ORGANISMS = {"klebsiella": "klebsiella", "escherichia": "escherichia", "staphylococcus": "staphylococcus",
              "staphylococcal": "staphylococcus", "streptococcus": "streptococcus",
              "streptococcal": "streptococcus", "pseudomonas": "pseudomonas", "hemophilus": "hemophilus",
              "enterococcus": "enterococcus", "enterococcal": "enterococcus", "proteus": "proteus",
              "mycoplasma": "mycoplasma", "legionella": "legionella", "candida": "candida",
              "candidal": "candida", "aspergillus": "aspergillus"}  # fmt: skip
#: a vessel's kind: retinal vein ↔ artery occlusion (H34.8- ↔ H34.2-), subclavian artery ↔ vein thrombosis
VESSELS = {"vein": "vein", "veins": "vein", "venous": "vein", "artery": "artery", "arteries": "artery",
            "arterial": "artery"}  # fmt: skip
#: a tobacco product (F17.21- cigarettes ↔ F17.22- chewing tobacco ↔ F17.29- other products)
TOBACCO = {"cigarette": "cigarettes", "cigarettes": "cigarettes", "chewing": "chewing", "cigar": "cigars",
            "cigars": "cigars"}  # fmt: skip
#: an organ system named as a whole: gastrointestinal ↔ genitourinary hemorrhage (K92.2 ↔ N99.82-, R31)
SYSTEMS = {"gastrointestinal": "digestive", "genitourinary": "genitourinary"}
#: methicillin (or vancomycin) resistant ↔ susceptible: MRSA ↔ MSSA are two codes (B95.62 ↔ B95.61)
RESISTANCE = {"resistant": "resistant", "susceptible": "susceptible", "sensitive": "susceptible"}
#: where a pneumonia was acquired: community (J18.9) ↔ ventilator (J95.851) ↔ hospital
ACQUIRED = {"community": "community", "hospital": "hospital", "nosocomial": "hospital",
             "ventilator": "ventilator", "healthcare": "healthcare"}  # fmt: skip
#: a respiratory failure's kind, by its gas: with hypoxia (J96.01) ↔ with hypercapnia (J96.02)
GASES = {"hypoxia": "hypoxia", "hypoxic": "hypoxia", "hypoxemia": "hypoxia", "hypoxemic": "hypoxia",
          "hypercapnia": "hypercapnia", "hypercapnic": "hypercapnia", "hypercarbia": "hypercapnia",
          "hypercarbic": "hypercapnia"}  # fmt: skip
#: the two inflammatory bowel diseases: Crohn's (K50) ↔ ulcerative colitis (K51)
BOWEL_DISEASES = {"crohn": "crohn", "crohns": "crohn", "ulcerative": "ulcerative"}
#: two causes of one condition ICD-10-CM codes apart (alcoholic ↔ diabetic ketoacidosis, neuropathy)
CAUSES = {"diabetic": "diabetes", "diabetes": "diabetes", "alcoholic": "alcohol", "alcohol": "alcohol",
           "traumatic": "trauma", "aneurysmal": "aneurysm", "aneurysm": "aneurysm",
           "hypertensive": "hypertension", "hypertension": "hypertension"}  # fmt: skip
#: how many: one rib fractured ↔ several (S22.3- ↔ S22.4-), four ↔ seven ribs (807.04 ↔ 807.07)
NUMBERS = {"one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "multiple": 0}  # 0: two or more  # fmt: skip
#: a seizure's kind (G40.0-/G40.1- focal ↔ G40.3- generalized ↔ G40.A- absence), read only where both
#: texts name a seizure, convulsion or epilepsy
SEIZURE_KIND = {"focal": "focal", "partial": "focal", "absence": "absence", "petit": "absence",
                 "grand": "generalized", "generalized": "generalized"}  # fmt: skip
SEIZURE_WORDS = ("seizure", "convuls", "epilep")
#: a heart block's degree (I44.0 ↔ I44.1 ↔ I44.2), read only where both texts name a block
DEGREE = {"1st": "first", "first": "first", "2nd": "second", "second": "second", "mobitz": "second",
           "3rd": "third", "third": "third", "complete": "third"}  # fmt: skip
#: substances, by the class ICD-10-CM's Table of Drugs codes them under: two poisonings by two
#: classes are two codes (cocaine T40.5 ↔ heroin T40.1); heroin, methadone and fentanyl are opioids
SUBSTANCES = {"alcohol": "alcohol", "alcoholic": "alcohol", "ethanol": "alcohol",
               "cocaine": "cocaine", "heroin": "opioid", "opioid": "opioid", "opioids": "opioid",
               "methadone": "opioid", "fentanyl": "opioid", "oxycodone": "opioid",
               "benzodiazepine": "benzodiazepine", "benzodiazepines": "benzodiazepine",
               "acetaminophen": "aminophenol", "aminophenol": "aminophenol", "aspirin": "salicylate",
               "salicylates": "salicylate", "amphetamine": "amphetamine",
               "methamphetamine": "amphetamine", "cannabis": "cannabis", "digoxin": "digoxin",
               "lithium": "lithium", "insulin": "insulin", "tricyclic": "tricyclic",
               # selective serotonin reuptake inhibitors (T43.22-) ↔ tricyclic antidepressants (T43.0-)
               "serotonin": "ssri", "antiplatelet": "antiplatelet", "antiplatelets": "antiplatelet",
               "anticoagulant": "anticoagulant", "anticoagulants": "anticoagulant"}  # fmt: skip
#: words that name a malignancy: a text with one and a text with none name different conditions
#: (pancreatic cancer ↔ pancreatitis, breast cancer ↔ breast mass)
MALIGNANT = frozenset({"cancer", "malignant", "malignancy", "neoplasm", "neoplastic", "carcinoma", "tumor",
                        "metastases", "metastatic", "metastasis", "sarcoma", "lymphoma", "leukemia",
                        "myeloma", "melanoma", "glioblastoma", "glioma", "mesothelioma",
                        "carcinomatosis"})  # fmt: skip
MALIGNANT_ENDINGS = ("carcinoma", "sarcoma", "blastoma", "seminoma")  # adenocarcinoma, neuroblastoma
#: words that name a malignancy only when "benign" is absent ("benign neoplasm of colon" is D12)
NEOPLASM = frozenset({"neoplasm", "neoplastic", "tumor"})
#: what a drug did, ICD-10-CM's 6th character in T36-T50: a poisoning (1-4: an overdose, wrong drug or
#: dose) ↔ an adverse effect of a drug rightly taken (5) ↔ underdosing (6); T45.511A ↔ T45.515A.
#: Read from the text as written (a "toxicity" is either, by circumstance: see guard_compare)
DRUG_EVENTS = {"poisoning": "poisoning", "overdose": "poisoning", "adverse": "adverse effect",
                "underdosing": "underdosing"}  # fmt: skip
NAMED_AXES = (("organ", ORGANS), ("organism", ORGANISMS), ("cause", CAUSES), ("substance", SUBSTANCES),
               ("resistance", RESISTANCE), ("acquired", ACQUIRED), ("vessel", VESSELS),
               ("tobacco", TOBACCO), ("system", SYSTEMS), ("bowel disease", BOWEL_DISEASES),
               ("gas", GASES))  # fmt: skip
#: limb (and back) sites, each as the path from its limb down: two texts whose sites neither hold the
#: other name two places (cellulitis of thigh ↔ of foot, L03.11- ↔ L03.03-). "Leg" is the limb less
#: the foot and "arm" the limb less the hand, as ICD-9-CM has them (682.6 "leg, except foot", 682.3
#: "upper arm and forearm") and as three blind writers labelled them; the digits are apart from the foot
#: and hand likewise (681.1 toe ↔ 682.7 "foot, except toes", 681.0 finger ↔ 682.4 "hand, except fingers")
LOWER, UPPER = "lower limb", "upper limb"
LEG, ARM = (LOWER, "leg"), (UPPER, "arm")
SITES = {"leg": LEG, "hip": (*LEG, "hip"), "thigh": (*LEG, "thigh"), "knee": (*LEG, "knee"),
          "shin": (*LEG, "lower leg"), "calf": (*LEG, "lower leg"), "ankle": (*LEG, "ankle"),
          "foot": (LOWER, "foot"), "heel": (LOWER, "foot", "heel"), "toe": (LOWER, "toe"),
          "arm": ARM, "shoulder": (*ARM, "shoulder"), "elbow": (*ARM, "elbow"),
          "forearm": (*ARM, "forearm"), "wrist": (UPPER, "wrist"), "hand": (UPPER, "hand"),
          "finger": (UPPER, "finger"), "thumb": (UPPER, "finger"), "trunk": ("trunk",),
          "back": ("back",), "lumbar": ("back", "lower back"), "sacral": ("back", "lower back", "sacral"),
          "sacrum": ("back", "lower back", "sacral"), "buttock": ("buttock",), "groin": ("groin",),
          "scalp": ("scalp",), "neck": ("neck",), "cervicalgia": ("neck",),
          "dorsalgia": ("back",), "backache": ("back",),
          # the tineas' Latin sites (B35.0-B35.6)
          "pedis": (LOWER, "foot"), "manuum": (UPPER, "hand"), "cruris": ("groin",), "capitis": ("scalp",),
          "barbae": ("beard",), "corporis": ("body",)}  # fmt: skip
