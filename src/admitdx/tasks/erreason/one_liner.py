"""The one-liner reference on MIMIC-IV-Note (admitdx's adaptation; ER-Reason's is the physician's
``One_Sentence_Extracted``): the first sentence of the current admission's History of Present
Illness, which in MIMIC discharge summaries usually is the one-liner ("___ is a 67 y/o M with …
who presents with …").

The first sentence ends at the first ``.``, ``!`` or ``?`` followed by white space, unless the
word it ends is a clinical abbreviation that itself ends in a period (``y.o.``, ``Dr.``, ``Mr.``,
``h.o.``, ``approx.``, ``e.g.``), which would otherwise cut "67 y.o. M with …" after "y.o.".
"""

from __future__ import annotations

import re

_HPI = re.compile(r"History of Present Illness:\s*(.*?)(?:\n\s*\n|\n[A-Z][A-Za-z /&]+:\s*\n|\Z)", re.S | re.I)
_END = re.compile(r"[.!?](?=\s)")
_ABBREVIATIONS = frozenset(
    {
        "y.o.",
        "yo.",
        "dr.",
        "mr.",
        "ms.",
        "mrs.",
        "mr./ms.",
        "h.o.",
        "approx.",
        "e.g.",
        "i.e.",
        "vs.",
        "pt.",
        "s.p.",
    }
)
MIN_CHARS = 20


def hpi(note: str) -> str | None:
    """The HPI section's text, whitespace-collapsed; None when the note has none."""
    m = _HPI.search(note)
    text = " ".join(m.group(1).split()) if m else ""
    return text or None


def first_sentence(text: str) -> str:
    for m in _END.finditer(text):
        word = text[: m.end()].rsplit(None, 1)[-1].casefold()
        if word not in _ABBREVIATIONS:
            return text[: m.end()].strip()
    return text.strip()


def reference_one_liner(note: str | None) -> str | None:
    """The reference one-liner of a discharge note, or None when there is no usable HPI sentence
    (shorter than 20 characters: a de-identified stub such as "___." is not a one-liner)."""
    body = hpi(note or "")
    if body is None:
        return None
    sentence = first_sentence(body)
    return sentence if len(sentence.replace("_", "")) >= MIN_CHARS else None
