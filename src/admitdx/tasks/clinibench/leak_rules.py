"""The leak audit's rule for CliniBench: a discharge-time heading inside an admission note.

The admission note's sections are written with white space collapsed, so a heading that reached
them sits inside a line: the cutter's own grammar finds it there too (line headings, headings run on
after a sentence, and a phrase before a colon whose key opens a discharge-time section), a finding
``discharge_heading``. Inside the physical exam, the place where the exam at discharge starts is one
too (``discharge_exam``). One grammar decides both what the reader withholds and what the audit
flags, so the audit names what a new spelling would slip past, not a second opinion.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from admitdx.tasks.clinibench.headings import discharge_exam_start, discharge_time_headings
from admitdx.tasks.leak_audit import Finding, visible_fields


def discharge_time_spans(text: str) -> list[tuple[int, int]]:
    """Where a discharge-time heading sits in ``text`` (collapsed or not), in order: the reader's
    own grammar (:func:`~admitdx.tasks.clinibench.headings.discharge_time_headings`)."""
    return [span for span, _ in discharge_time_headings(text)]


def findings(record: dict[str, Any]) -> Iterator[Finding]:
    for field, text in visible_fields(record).items():
        for start, end in discharge_time_spans(text):
            yield field, "discharge_heading", start, end
        if field == "physical_exam" and (cut := discharge_exam_start(text)) is not None:
            yield field, "discharge_exam", cut, min(len(text), cut + 40)
