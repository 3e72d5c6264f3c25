"""The condition lexicon of the offline concept extractor: ICD-10-CM titles and inclusion terms
(the CMS tabular list as packaged by ``simple-icd-10-cm``), each mapped to a 3-character category.

A phrase is a **whole** title or inclusion term, never a fragment of one: cutting titles at their
first comma (admitdx before issue 19) made "Blood, injection, injury type phobia" spell "blood"
(F40) and "Injury, poisoning … complicating pregnancy" spell "injury" (O9A). Two variants keep a
title's meaning and are admitted at a lower rank (:data:`AS_WRITTEN` < :data:`WITHOUT_QUALIFIER`):

- as written: without a trailing "NOS" and without the parenthesised nonessential modifiers of the
  ICD-10-CM conventions ("Essential (primary) hypertension" → "essential hypertension");
- without a qualifier that says only that nothing more is specified: a trailing ", unspecified …",
  ", site not specified" or ", not elsewhere classified" ("Pneumonia, unspecified organism" →
  "pneumonia"), a leading "Unspecified" or "Nontraumatic" (the alphabetic index's default for an
  unqualified haemorrhage: "Nontraumatic subarachnoid hemorrhage" → "subarachnoid hemorrhage");
  and, one rank lower still (:data:`WITHOUT_OTHER`), a leading "Other" ("Other tetanus" →
  "tetanus"), so that "appendicitis" is K37 "Unspecified appendicitis", not K36 "Other
  appendicitis".

External-cause codes (V00–Y99) give their titles but not their inclusion terms, whose catch-alls
("Exposure NOS", X58) would make a common word a concept. A phrase several codes spell is one
concept: the category of its best spelling — the lower rank, then the shorter code (the category
before its subdivisions), then the tabular list's order — so "pneumonia" is J18 wherever it is
written. Phrases that are not a condition on their own
("personal history of …", "encounter for …") and phrases under 4 characters are left out; words a
clinician writes that the tabular list spells only inside a longer title (syncope, hypertension)
and abbreviations come from the extractor's term table (:mod:`admitdx.metrics.concepts_terms`).
"""

from __future__ import annotations

import re
from functools import cache

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_NOT_CONDITIONS = ("personal history", "family history", "encounter", "history of")
MIN_CHARS = 4
MAX_TOKENS = 10
AS_WRITTEN, WITHOUT_QUALIFIER, WITHOUT_OTHER = 0, 1, 2
_UNSPECIFIED_TAIL = re.compile(
    r",\s*(?:unspecified\b|(?:site )?not specified\b|not elsewhere classified\b|nec\b).*$", re.I
)
_UNSPECIFIED_HEAD = re.compile(r"^(?:unspecified|nontraumatic)\s+", re.I)
_OTHER_HEAD = re.compile(r"^other\s+", re.I)
EXTERNAL_CAUSES = "VWXY"


def words(text: str) -> list[str]:
    """Lower-case word tokens: the unit phrases are matched on."""
    return _WORD.findall(text.lower())


def phrases(term: str) -> list[tuple[str, int]]:
    """(phrase, rank) of a title or inclusion term: as written, then without a bare qualifier, then
    without a leading "Other"."""
    written = re.sub(r"\s+NOS$", "", term.strip())
    written = re.sub(r"\s*\([^)]*\)", "", written).strip()
    out = [(written, AS_WRITTEN)]
    bare = _UNSPECIFIED_HEAD.sub("", _UNSPECIFIED_TAIL.sub("", written)).strip()
    if bare and bare.lower() != written.lower():
        out.append((bare, WITHOUT_QUALIFIER))
    if _OTHER_HEAD.match(bare):
        out.append((_OTHER_HEAD.sub("", bare), WITHOUT_OTHER))
    return out


@cache
def condition_lexicon() -> dict[str, str]:
    """Phrase (lower-case words joined by one space) → ICD-10-CM category, e.g. "migraine" → "G43"."""
    import simple_icd_10_cm as icd

    best: dict[str, tuple[int, int, int, str]] = {}
    for order, code in enumerate(icd.get_all_codes(False)):
        if len(code) < 3 or "-" in code or not code[0].isalpha():  # chapters and blocks
            continue
        inclusions = () if code[0] in EXTERNAL_CAUSES else icd.get_inclusion_term(code)
        for term in (icd.get_description(code), *inclusions):
            for phrase, rank in phrases(term):
                key = " ".join(words(phrase))
                if len(key) < MIN_CHARS or key.startswith(_NOT_CONDITIONS) or len(key.split()) > MAX_TOKENS:
                    continue
                candidate = (rank, len(code), order, code[:3])
                if key not in best or candidate < best[key]:
                    best[key] = candidate
    return {key: spelling[3] for key, spelling in best.items()}
