"""The leak audit's rule for CliniBench: a discharge-time heading inside an admission note.

The admission note's sections are written with white space collapsed, so a heading that reached
them sits inside a line: every phrase before a colon (up to eight words, back to the previous
sentence end) and every run of capitalised words is tried, longest tail first, against the heading
classifier; a name that is discharge-time (``discharge_*``, the hospital course, pertinent results,
follow-up instructions, facility) is a finding (``discharge_heading``). Inside the physical exam,
the place where the exam at discharge starts is one too (``discharge_exam``).

:func:`discharge_time_spans` is the one call into the heading grammar: when the shared grammar of
issue 29 lands, it is the line to switch.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from admitdx.tasks.clinibench.headings import classify, discharge_exam_start, heading_key
from admitdx.tasks.leak_audit import Finding, visible_fields

_DISCHARGE_TIME = frozenset(
    {"brief_hospital_course", "pertinent_results", "followup_instructions", "facility"}
)
#: A phrase before a colon (back to a sentence end or another colon) or a run of capitalised words.
_CANDIDATE = re.compile(r"(?P<phrase>[^.;:!?\n]{1,120}):|(?P<caps>\b[A-Z][A-Z&/]+(?:[ \t]+[A-Z][A-Z&/]+)+\b)")
_WORD = re.compile(r"\S+")


def _discharge_time(text: str) -> bool:
    name = classify(heading_key(text))
    return name is not None and (name.startswith("discharge") or name in _DISCHARGE_TIME)


def _tail_heading(text: str, offset: int) -> tuple[int, int] | None:
    """The longest tail of ``text`` (at most eight words) that names a discharge-time section."""
    words = list(_WORD.finditer(text))[-8:]
    for w in words:
        if _discharge_time(text[w.start() :]):
            return offset + w.start(), offset + len(text)
    return None


def discharge_time_spans(text: str) -> list[tuple[int, int]]:
    """Where a discharge-time heading sits in ``text`` (collapsed or not), in order."""
    spans = []
    for m in _CANDIDATE.finditer(text):
        group = "phrase" if m.group("phrase") is not None else "caps"
        if (span := _tail_heading(m.group(group), m.start(group))) is not None:
            spans.append((span[0], span[1] + (1 if group == "phrase" else 0)))
    return spans


def findings(record: dict[str, Any]) -> Iterator[Finding]:
    for field, text in visible_fields(record).items():
        for start, end in discharge_time_spans(text):
            yield field, "discharge_heading", start, end
        if field == "physical_exam" and (cut := discharge_exam_start(text)) is not None:
            yield field, "discharge_exam", cut, min(len(text), cut + 40)
