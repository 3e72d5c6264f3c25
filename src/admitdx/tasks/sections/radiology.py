"""Radiology findings (§3.2 ix): reports charted between ED arrival and the cutoff (under
storetime semantics, stored by the cutoff; appendix D), in time order.

Following the authors' builder: each report is reduced to its exam name, FINDINGS (first
``radiology_findings_chars`` = 230 characters) and IMPRESSION (first
``radiology_impression_chars`` = 180); a report without those headers keeps the start of its
body. Exact repeats (same exam, same opening) are dropped — addenda and duplicated uploads — and at
most ``radiology_max_reports`` (8) are kept; the header counts those shown.

Reports charted at the same time are ordered by note_id, or under ``tie_order`` "pandas" as the
EarlyDx authors' pandas sort by charttime leaves the subject's reports in file order; ``field_format``
"pandas" prints the exam name as they do, stripped but with its runs of spaces kept.
"""

from __future__ import annotations

import re
from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, event_time, require
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.sections.pandas_order import pandas_order
from admitdx.tasks.sections.source_order import SOURCE_ROW, numbered

_EXAM = re.compile(r"EXAMINATION:\s*(.*)")
_FINDINGS = re.compile(r"FINDINGS:(.*?)(?:IMPRESSION:|$)", re.S)
_IMPRESSION = re.compile(r"IMPRESSION:(.*)", re.S)
_DEDUP_PREFIX = 80


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "note.radiology"):
        return None
    pandas = p.tie_order == "pandas"
    report = "struct_pack(t := CAST(r.charttime AS TIMESTAMP), text := CAST(r.text AS VARCHAR))"
    listed = (
        f"list({report} ORDER BY r.{SOURCE_ROW})"
        if pandas
        else "list(CAST(r.text AS VARCHAR) ORDER BY r.charttime, r.note_id)"
    )
    return f"""
        SELECT c.stay_id, {listed} AS v
        FROM cohort c JOIN {numbered("note.radiology") if pandas else "note.radiology"} r
             ON r.subject_id = c.subject_id
        WHERE CAST(r.charttime AS TIMESTAMP) >= c.ed_intime AND {event_time(p, "r")} <= c.cutoff
          AND r.text IS NOT NULL
        GROUP BY c.stay_id
    """


def _clean(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def summarize_report(text: str, p: SectionOptions) -> tuple[str | None, str]:
    """(exam name, "F: … I: …") of one report."""
    exam = _EXAM.search(text)
    findings = _FINDINGS.search(text)
    impression = _IMPRESSION.search(text)
    parts = []
    if findings and findings.group(1).strip():
        parts.append("F: " + _clean(findings.group(1))[: p.radiology_findings_chars])
    if impression and impression.group(1).strip():
        parts.append("I: " + _clean(impression.group(1))[: p.radiology_impression_chars])
    if not parts:
        parts.append(_clean(re.sub(r"^.*?:", "", text, count=1, flags=re.S))[: p.radiology_findings_chars])
    if exam is None:
        return None, " ".join(parts)
    name = exam.group(1).strip() if p.field_format == "pandas" else _clean(exam.group(1))
    return name[:40], " ".join(parts)


def _render(v: list[Any] | None, p: SectionOptions) -> str | None:
    if not v:
        return None
    if isinstance(v[0], dict):  # tie_order "pandas": (time, text) in file order
        v = [v[i]["text"] for i in pandas_order([x["t"] for x in v])]
    seen: set[str] = set()
    shown: list[str] = []
    for text in v:
        exam, body = summarize_report(text, p)
        key = f"{exam or ''}|{body[:_DEDUP_PREFIX]}"
        if key in seen:
            continue
        seen.add(key)
        shown.append(f"[{exam or 'study'}] {body}")
        if len(shown) >= p.radiology_max_reports:
            break
    return f"({len(shown)})\n  " + "\n  ".join(shown)


SECTION = Section("radiology", "Radiology", _sql, _render)
