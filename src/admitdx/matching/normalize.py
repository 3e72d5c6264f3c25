"""Normalising a diagnosis string so that spelling variants compare equal.

Steps, in order (each documented because the exact matcher's strictness depends on it):

1. Unicode compatibility form, accents stripped, lower case.
2. Punctuation becomes a space ("non-ST-elevation" → "non st elevation", "A-fib" → "a fib").
3. British spellings become American (haemorrhage → hemorrhage, oedema → edema, …).
4. Clinical abbreviations and short synonyms are expanded, whole tokens only, longest first
   (:data:`ABBREVIATIONS`); an abbreviation inside a longer word is left alone.
5. Stop words (:data:`STOP_WORDS`) are dropped; with ``drop_qualifiers`` so are words that add no
   clinical content to a title (:data:`EMPTY_QUALIFIERS`: "unspecified", "NOS", …).
6. The remaining distinct words are sorted, so word order and repetition do not matter
   ("fracture of hip" equals "hip fracture"; "AKI (acute kidney injury)" equals "AKI").

The abbreviation list is deliberately conservative: an abbreviation with two common clinical
meanings (ARF: acute renal or acute respiratory failure; SBP: systolic blood pressure or
spontaneous bacterial peritonitis; PID) is *not* expanded, because a wrong expansion would create a
false match. Anything semantic beyond spelling (heart attack ↔ myocardial infarction) is the job of
the embedding matcher or the LLM judge, not of this one.
"""

from __future__ import annotations

import re
import unicodedata

#: Abbreviation or short form → expansion, matched as whole (space-separated) token sequences.
ABBREVIATIONS: dict[str, str] = {
    "aaa": "abdominal aortic aneurysm",
    "acs": "acute coronary syndrome",
    "a fib": "atrial fibrillation",
    "afib": "atrial fibrillation",
    "af": "atrial fibrillation",
    "a flutter": "atrial flutter",
    "aki": "acute kidney injury",
    "ams": "altered mental status",
    "ards": "acute respiratory distress syndrome",
    "bph": "benign prostatic hyperplasia",
    "cad": "coronary artery disease",
    "cap": "community acquired pneumonia",
    "chf": "congestive heart failure",
    "ckd": "chronic kidney disease",
    "copd": "chronic obstructive pulmonary disease",
    "cva": "cerebrovascular accident",
    "dka": "diabetic ketoacidosis",
    "dm": "diabetes mellitus",
    "dm2": "type 2 diabetes mellitus",
    "t2dm": "type 2 diabetes mellitus",
    "t1dm": "type 1 diabetes mellitus",
    "dvt": "deep vein thrombosis",
    "esrd": "end stage renal disease",
    "etoh": "alcohol",
    "gerd": "gastroesophageal reflux disease",
    "gi": "gastrointestinal",
    "gib": "gastrointestinal hemorrhage",
    "hf": "heart failure",
    "hfref": "heart failure with reduced ejection fraction",
    "hfpef": "heart failure with preserved ejection fraction",
    "hhs": "hyperosmolar hyperglycemic state",
    "hld": "hyperlipidemia",
    "htn": "hypertension",
    "ich": "intracranial hemorrhage",
    "mi": "myocardial infarction",
    "nstemi": "non st elevation myocardial infarction",
    "osa": "obstructive sleep apnea",
    "pe": "pulmonary embolism",
    "pna": "pneumonia",
    "sah": "subarachnoid hemorrhage",
    "sbo": "small bowel obstruction",
    "sdh": "subdural hemorrhage",
    "stemi": "st elevation myocardial infarction",
    "svt": "supraventricular tachycardia",
    "tia": "transient ischemic attack",
    "uti": "urinary tract infection",
    "vt": "ventricular tachycardia",
    # Short synonyms of a single word, so "GI bleed" equals "gastrointestinal hemorrhage".
    "bleed": "hemorrhage",
    "bleeding": "hemorrhage",
}

#: British → American spelling, applied to word stems inside tokens.
BRITISH_SPELLINGS: dict[str, str] = {
    "haem": "hem",
    "oedema": "edema",
    "oesophag": "esophag",
    "ischaem": "ischem",
    "anaem": "anem",
    "diarrhoea": "diarrhea",
    "tumour": "tumor",
    "faec": "fec",
    "paediatric": "pediatric",
}

#: Words that carry no meaning for matching a diagnosis title.
STOP_WORDS: frozenset[str] = frozenset({"a", "an", "the", "of", "and", "with", "in", "to", "or"})

#: Words ICD titles add that do not change the condition named ("Pneumonia, unspecified").
EMPTY_QUALIFIERS: frozenset[str] = frozenset({"unspecified", "nos", "nec"})

_PUNCT = re.compile(r"[^\w\s]|_")
_ABBREV_PATTERN = re.compile(
    r"\b(" + "|".join(re.escape(k) for k in sorted(ABBREVIATIONS, key=len, reverse=True)) + r")\b"
)
#: American words that hold a British stem are left as they are: "angioedema" (angio + edema),
#: "gastroesophageal" and "tracheoesophageal" (a British "oesophag" only begins a word)
_BRITISH_PATTERN = re.compile(
    "|".join(re.escape(k) for k in sorted(BRITISH_SPELLINGS, key=len, reverse=True))
    .replace("oedema", "(?<!angi)oedema")
    .replace("oesophag", r"\boesophag")
)


def expand_diagnosis(text: str) -> str:
    """Steps 1–4 only: readable text with abbreviations spelled out, word order kept.

    This is what the embedding matcher embeds: a sentence encoder knows "congestive heart
    failure" far better than "CHF".
    """
    if not text.isascii():  # ASCII is its own NFKD form, without combining marks: skip the work
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.lower()
    text = _PUNCT.sub(" ", text)
    text = " ".join(text.split())
    text = _BRITISH_PATTERN.sub(lambda m: BRITISH_SPELLINGS[m.group(0)], text)
    return _ABBREV_PATTERN.sub(lambda m: ABBREVIATIONS[m.group(0)], text)


def normalize_diagnosis(text: str, *, drop_qualifiers: bool = True) -> str:
    """The canonical form of a diagnosis string (see the module docstring for the steps)."""
    text = expand_diagnosis(text)
    drop = STOP_WORDS | EMPTY_QUALIFIERS if drop_qualifiers else STOP_WORDS
    return " ".join(sorted({w for w in text.split() if w not in drop}))
