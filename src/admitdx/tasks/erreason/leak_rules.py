"""The leak audit's rules for ER-Reason (release and MIMIC-IV-ED): the gold answer in an input.

* ``gold_category``: the target category as a word-bounded phrase, any case ("Admit", "HOME",
  "Less Urgent"); MIMIC's "OTHER" names no disposition and is not searched.
* ``gold_text``: a text target (a one-liner, a planning part) whole, white space and case folded.
* ``gold_code``: a gold ICD code, with or without its dot ("I21.4", "I214"); an ICD-9 code of
  digits only ("4280") is searched in its dotted form alone ("428.0"), since a bare number is a
  lab value far more often than a code.
* ``gold_title``: a gold title (``primaryeddiagnosisname`` for the release's main code), its words
  in order with any punctuation or space between them, any case.
* ``disposition_lexicon``: for the release's disposition task, every span the disposition
  lexicon matches (:mod:`.disposition_lexicon`).

No rule reads the ``[Discharge Summary, 2019]`` lines that introduce previous notes: they are left
readable by choice and name a document of an earlier visit, not this visit's disposition.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from admitdx.sources.erreason import PREVIOUS_NOTE_TYPES
from admitdx.tasks.erreason.disposition_lexicon import disposition_spans
from admitdx.tasks.leak_audit import Finding, visible_fields

_UNSEARCHED_CATEGORIES = frozenset({"OTHER"})
_CATEGORY_TASKS = ("-acuity", "-disposition")
_LEXICON_TASK = "er-reason-release-disposition"
_NOTE_HEADER = re.compile(
    r"^\[(?:" + "|".join(t.replace("_", " ") for t in PREVIOUS_NOTE_TYPES) + r")(?:, [^\]\n]*)?\]$", re.M
)


def phrase_pattern(text: str) -> re.Pattern[str] | None:
    """``text``'s words in order, any punctuation or space between them, any case (None: no word)."""
    words = re.findall(r"[a-z0-9]+", text.casefold())
    if not words:
        return None
    return re.compile(r"(?<![a-z0-9])" + r"[^a-z0-9]+".join(words) + r"(?![a-z0-9])", re.I)


def code_pattern(code: str) -> re.Pattern[str] | None:
    """A gold code with or without its dot; a digits-only code only dotted (None: too short)."""
    bare = code.replace(".", "").strip().upper()
    if len(bare) < 3:
        return None
    head, tail = re.escape(bare[:3]), re.escape(bare[3:])
    dot = r"\." if bare.isdigit() else r"\.?"
    body = head + (dot + tail if tail else "")
    return re.compile(r"(?<![A-Za-z0-9.])" + body + r"(?![A-Za-z0-9])", re.I)


def _gold(record: dict[str, Any]) -> Iterator[tuple[str, re.Pattern[str]]]:
    target = record.get("target")
    if isinstance(target, str) and target.strip() and target not in _UNSEARCHED_CATEGORIES:
        kind = "gold_category" if str(record.get("task")).endswith(_CATEGORY_TASKS) else "gold_text"
        if (p := phrase_pattern(target)) is not None:
            yield kind, p
    if isinstance(target, dict):
        for part in target.values():
            if isinstance(part, str) and (p := phrase_pattern(part)) is not None:
                yield "gold_text", p
    for ref in record.get("references") or []:
        if ref.get("code") and (p := code_pattern(ref["code"])) is not None:
            yield "gold_code", p
        for title in dict.fromkeys(
            t for t in (ref.get("ed_title"), ref.get("text")) if t and t != ref.get("code")
        ):
            if (p := phrase_pattern(title)) is not None:
                yield "gold_title", p


def _without_note_headers(text: str) -> str:
    """``text`` with the previous notes' header lines blanked (offsets kept)."""
    return _NOTE_HEADER.sub(lambda m: " " * len(m.group()), text)


def findings(record: dict[str, Any]) -> Iterator[Finding]:
    """Every gold span in the record's system-visible fields (see the module docstring)."""
    gold = list(_gold(record))
    for field, shown in visible_fields(record).items():
        text = _without_note_headers(shown)  # "[Discharge Summary, 2019]" names a document, not an answer
        for rule, pattern in gold:
            for m in pattern.finditer(text):
                yield field, rule, m.start(), m.end()
        if record.get("task") == _LEXICON_TASK:
            for start, end in disposition_spans(text):
                yield field, "disposition_lexicon", start, end
