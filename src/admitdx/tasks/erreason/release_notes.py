"""Reading the current ED provider note of the ER-Reason release: the triage vitals, and the note
cut where a task's input must stop.

- The vitals come from the note's triage line (the first line naming "triage" and holding a
  blood pressure, else the first line with a blood pressure): ``T``/``Temp``, ``HR``/``Pulse``,
  ``RR``/``Resp``, ``BP sbp/dbp``, ``SpO2``/``O2 sat``; a value not written stays None.
- Planning and final diagnosis see the note cut before "Assessment and Plan" (the paper's ED
  presentation); disposition sees it cut before "Final Disposition and ED Course", with every
  disposition name the release uses replaced by ``[redacted]`` — for every encounter alike, so a
  redaction mark does not itself tell which disposition was written.
"""

from __future__ import annotations

import re

from admitdx.sources.erreason import DISPOSITIONS

ASSESSMENT = re.compile(r"^\s*assessment\s*(?:and|&|/)\s*plan\b", re.I | re.M)
FINAL_DISPOSITION = re.compile(r"^\s*final\s+disposition\s+and\s+ed\s+course\b", re.I | re.M)
REDACTED = "[redacted]"
_DISPOSITION_NAMES = re.compile(
    r"\b(?:" + "|".join(re.escape(d) for d in sorted(DISPOSITIONS, key=len, reverse=True)) + r")\b", re.I
)
_BP = re.compile(r"\bBP\s*:?\s*(\d{2,3})\s*/\s*(\d{2,3})", re.I)
_VALUES = {
    "temperature": re.compile(r"\b(?:T|Temp(?:erature)?)\s*:?\s*(\d{2,3}(?:\.\d)?)", re.I),
    "heartrate": re.compile(r"\b(?:HR|Pulse|P)\s*:?\s*(\d{2,3})\b", re.I),
    "resprate": re.compile(r"\b(?:RR|Resp)\s*:?\s*(\d{1,2})\b", re.I),
    "o2sat": re.compile(r"\b(?:SpO2|O2\s*sat)\s*:?\s*(\d{2,3})\s*%?", re.I),
}
VITALS = ("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp")


def triage_vitals(note: str | None) -> dict[str, float | None]:
    """The six triage vitals written in the note's triage line (None where not written)."""
    lines = (note or "").splitlines()
    with_bp = [line for line in lines if _BP.search(line)]
    line = next((x for x in with_bp if "triage" in x.lower()), with_bp[0] if with_bp else "")
    out: dict[str, float | None] = dict.fromkeys(VITALS)
    for name, pattern in _VALUES.items():
        m = pattern.search(line)
        out[name] = float(m.group(1)) if m else None
    bp = _BP.search(line)
    if bp:
        out["sbp"], out["dbp"] = float(bp.group(1)), float(bp.group(2))
    return out


def render_vitals(v: dict[str, float | None]) -> str | None:
    labels = (("T", "temperature"), ("HR", "heartrate"), ("RR", "resprate"), ("SpO2 ", "o2sat"))
    parts = [f"{label}{v[f]:g}" for label, f in labels if v[f] is not None]
    if v["sbp"] is not None and v["dbp"] is not None:
        parts.append(f"BP{v['sbp']:g}/{v['dbp']:g}")
    return " ".join(parts) or None


def before(note: str | None, heading: re.Pattern[str]) -> str | None:
    """The note up to (not including) ``heading``; the whole note when it has no such heading."""
    if not note or not note.strip():
        return None
    m = heading.search(note)
    text = (note[: m.start()] if m else note).strip()
    return text or None


def presentation(note: str | None) -> str | None:
    return before(note, ASSESSMENT)


def before_disposition(note: str | None) -> str | None:
    text = before(note, FINAL_DISPOSITION)
    return _DISPOSITION_NAMES.sub(REDACTED, text) if text else None
