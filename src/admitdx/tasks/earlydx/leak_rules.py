"""The leak audit's rule for EarlyDx: an element timed after t0 in an input (``after_t0``).

EarlyDx's inputs are windowed by t0 in SQL (each section's cutoff); the audit checks the result
from the text side: every date or date-time printed in a section or the history (MIMIC's shifted
``2180-05-06`` and ``2180-05-06 14:32[:05]``) is held against the instance's t0 — a date-time
after t0, or a date after t0's day, is a finding. A date of t0's own day is not: OMR's day-only
rows of that day are the paper's rule, counted apart in the manifest (``omr_values_on_t0_day``).
An element printed without its time cannot be dated from the text; the SQL windows are its guard.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

from admitdx.tasks.leak_audit import Finding, visible_fields

_STAMP = re.compile(r"(?<!\d)(?P<d>\d{4}-\d{2}-\d{2})(?:[ T](?P<t>\d{2}:\d{2}(?::\d{2})?))?(?!\d)")


def _after(m: re.Match[str], t0: datetime) -> bool:
    try:
        day = date.fromisoformat(m.group("d"))
        if m.group("t") is None:
            return day > t0.date()
        return datetime.fromisoformat(f"{m.group('d')} {m.group('t')}") > t0
    except ValueError:  # not a date ("2180-13-45"): nothing to hold against t0
        return False


def findings(record: dict[str, Any]) -> Iterator[Finding]:
    if not record.get("t0"):
        return
    t0 = datetime.fromisoformat(str(record["t0"]))
    for field, text in visible_fields(record).items():
        for m in _STAMP.finditer(text):
            if _after(m, t0):
                yield field, "after_t0", m.start(), m.end()
