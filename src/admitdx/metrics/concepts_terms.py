"""The offline extractor's term table (``concept_terms.csv``): abbreviations of conditions
(NSTEMI, DVT, PE), words the ICD-10-CM tabular list spells only inside a longer title (syncope in
"Syncope and collapse"), and the laboratory tests, imaging and procedures an ED plan names
(troponin, CT, lumbar puncture), which no ICD-10-CM diagnosis title covers.

No maintained package on PyPI ships such a list for offline use (the lexicons of cTAKES and
QuickUMLS come from the licensed UMLS), so the table was written for admitdx: a condition maps to
the ICD-10-CM category whose title names it, so that "NSTEMI" and "non-ST elevation myocardial
infarction" are one concept; a test, imaging study or procedure gets a concept of its own
(``LAB:TROPONIN``, ``IMAGING:CT``, ``PROC:LUMBAR_PUNCTURE``). Abbreviations are matched on
lower-case words like every phrase, so "PE" and "pe" are both pulmonary embolism.
"""

from __future__ import annotations

import csv
from functools import cache
from importlib import resources

from admitdx.metrics.concepts_icd import words

TERMS_FILE = "concept_terms.csv"
KINDS = ("abbreviation", "synonym", "finding", "lab", "imaging", "procedure")


def terms_text() -> str:
    """The table's text (its bytes are part of the lexicon cache key)."""
    return resources.files("admitdx.metrics").joinpath(TERMS_FILE).read_text(encoding="utf-8")


@cache
def term_table() -> dict[str, tuple[str, str]]:
    """Phrase (lower-case words joined by one space) → (concept, kind)."""
    rows = csv.DictReader(line for line in terms_text().splitlines() if not line.startswith("#"))
    table: dict[str, tuple[str, str]] = {}
    for row in rows:
        key = " ".join(words(row["term"]))
        if not key or row["kind"] not in KINDS or key in table:
            raise ValueError(f"{TERMS_FILE}: bad or repeated term {row['term']!r}")
        table[key] = (row["concept"], row["kind"])
    return table


def term_concepts() -> dict[str, str]:
    """Phrase → concept, the shape of the extractor's other tables."""
    return {key: concept for key, (concept, _) in term_table().items()}
