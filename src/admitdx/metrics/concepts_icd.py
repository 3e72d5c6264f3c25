"""The condition lexicon of the offline concept extractor: ICD-10-CM titles and inclusion terms
(the CMS tabular list as packaged by ``simple-icd-10-cm``), each mapped to a 3-character category.

A title is used whole and up to its first comma ("Pneumonia, unspecified organism" also gives
"pneumonia"), without parentheses ("Essential (primary) hypertension" → "essential hypertension")
and without leading qualifiers ("Unspecified acute appendicitis" → "acute appendicitis",
"appendicitis"); an inclusion term also without its trailing "NOS" ("Septicemia NOS" →
"septicemia"). So the words a clinician writes can meet the classification's. A phrase is one concept: the
category of the first code (in the tabular list's order) that spells it, so "pneumonia" is J18
wherever it is written. Phrases that are not a condition on their own ("other", "unspecified",
"personal history of ...") and phrases under 4 characters are left out.
"""

from __future__ import annotations

import re
from functools import cache

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_NOT_CONDITIONS = ("other", "unspecified", "personal history", "family history", "encounter", "history of")
MIN_CHARS = 4
MAX_TOKENS = 10


def words(text: str) -> list[str]:
    """Lower-case word tokens: the unit phrases are matched on."""
    return _WORD.findall(text.lower())


_QUALIFIERS = re.compile(
    r"^(?:unspecified|other|acute|chronic|essential|primary|secondary|type [12]|mild|moderate|severe|"
    r"recurrent|simple|complicated)\s+"
)


def _phrases(title: str) -> list[str]:
    title = re.sub(r"\s+NOS$", "", title.strip())
    heads = [title, title.split(",", 1)[0]]
    heads += [re.sub(r"\s*\([^)]*\)", "", h) for h in heads]
    out = []
    for head in heads:
        head = head.strip().lower()
        out.append(head)
        while (stripped := _QUALIFIERS.sub("", head)) != head:
            head = stripped
            out.append(head)
    return out


@cache
def condition_lexicon() -> dict[str, str]:
    """Phrase (lower-case words joined by one space) → ICD-10-CM category, e.g. "migraine" → "G43"."""
    import simple_icd_10_cm as icd

    lexicon: dict[str, str] = {}
    for code in icd.get_all_codes(False):
        if len(code) < 3 or "-" in code or not code[0].isalpha():  # chapters and blocks
            continue
        category = code[:3]
        for term in (icd.get_description(code), *icd.get_inclusion_term(code)):
            for phrase in _phrases(term):
                key = " ".join(words(phrase))
                if len(key) < MIN_CHARS or key.startswith(_NOT_CONDITIONS) or len(key.split()) > MAX_TOKENS:
                    continue
                lexicon.setdefault(key, category)
    return lexicon
