"""The triage vitals of the ER-Reason release, read from the current ED provider note (the release
has no vitals column; the authors' acuity script also extracts them from the note).

Epic writes them in several layouts, all read here:

- one line: ``Triage Vitals: T 98.4 F, HR 98, RR 18, BP 152/90, SpO2 97%``;
- one line with Epic's abnormal flags and units: ``BP: (!) 152/90 | Pulse: (!) 118 | Temp: 36.9 °C
  (98.4 °F) (Oral) | Resp: 18 | SpO2: 97 %``;
- one per line under a ``Triage Vital Signs:`` (or ``ED Triage Vitals``) heading;
- a flowsheet table: a row of names (``BP | Pulse | Resp | Temp | SpO2``) and, below it, rows of
  values, the first being triage.

The block read is the lines from the first line naming triage vitals (else vital signs) to the
next blank line, at most :data:`BLOCK_LINES`; a note with no such heading falls back to the first
line with a blood pressure. Temperatures are °F; a value written in °C only (or under 45) is
converted. A vital not found stays None and the build counts it (``triage_vitals_unread_*``).
"""

from __future__ import annotations

import re

VITALS = ("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp")
BLOCK_LINES = 12
_HEAD = re.compile(r"(?:ED\s+)?triage\s+vital|\btriage\b.*\bBP\b", re.I)
_FALLBACK_HEAD = re.compile(r"\bvital\s*signs?\b|\bvitals\b", re.I)
_BP_ANY = re.compile(r"\bBP\b[^0-9\n]{0,12}\d{2,3}\s*/\s*\d{2,3}", re.I)
_FLAG = r"(?:\s*\(!\))?"
_SEP = r"\s*:?" + _FLAG + r"\s*"
_LABELS = {
    "temperature": r"T|Temp(?:erature)?",
    "heartrate": r"HR|Pulse|P|Heart\s+Rate",
    "resprate": r"RR|Resp(?:irations?)?|Resp\s+Rate",
    "o2sat": r"SpO2|O2\s*sat(?:uration)?|SaO2",
    "bp": r"BP|Blood\s+Pressure",
}
_NUMBER = {
    "temperature": r"(\d{2,3}(?:\.\d+)?)\s*(°?\s*[FC]\b)?(?:\s*\((\d{2,3}(?:\.\d+)?)\s*°?\s*([FC])\))?",
    "heartrate": r"(\d{2,3})\b",
    "resprate": r"(\d{1,2})\b",
    "o2sat": r"(\d{2,3})\s*%?",
    "bp": r"(\d{2,3})\s*/\s*(\d{2,3})",
}
_INLINE = {k: re.compile(rf"(?<![\w/])(?:{_LABELS[k]}){_SEP}{_NUMBER[k]}", re.I) for k in _LABELS}
_CELL_LABEL = {k: re.compile(rf"^\s*(?:{v})\s*$", re.I) for k, v in _LABELS.items()}


def _fahrenheit(m: re.Match[str]) -> float:
    value, unit, other, other_unit = m.group(1), (m.group(2) or ""), m.group(3), m.group(4)
    if "C" in unit.upper():
        if other and (other_unit or "").upper() == "F":
            return float(other)
        return round(float(value) * 9 / 5 + 32, 1)
    v = float(value)
    return round(v * 9 / 5 + 32, 1) if v < 45 and not unit else v


def _block(note: str) -> str:
    lines = note.splitlines()
    for head in (_HEAD, _FALLBACK_HEAD):
        for i, line in enumerate(lines):
            if head.search(line):
                block = [line]
                for nxt in lines[i + 1 : i + BLOCK_LINES]:
                    if not nxt.strip():
                        if len(block) > 1 or _BP_ANY.search(line):
                            break
                        continue
                    block.append(nxt)
                text = "\n".join(block)
                if _BP_ANY.search(text) or any(p.search(text) for p in _INLINE.values()):
                    return text
    return next((line for line in lines if _BP_ANY.search(line)), "")


def _table(block: str) -> dict[str, re.Match[str]]:
    """A flowsheet: a line of ``|``-separated names, the first line below it of values."""
    rows = [[c.strip() for c in line.split("|")] for line in block.splitlines() if line.count("|") >= 2]
    for i, header in enumerate(rows[:-1]):
        columns = {k: j for j, cell in enumerate(header) for k, p in _CELL_LABEL.items() if p.match(cell)}
        if len(columns) >= 3:
            values = rows[i + 1]
            found = {}
            for k, j in columns.items():
                m = re.match(rf"\s*{_FLAG}\s*{_NUMBER[k]}", values[j], re.I) if j < len(values) else None
                if m:
                    found[k] = m
            return found
    return {}


def triage_vitals(note: str | None) -> dict[str, float | None]:
    """The six triage vitals written in the note (None where not written or not readable)."""
    block = _block(note or "")
    found = _table(block) or {k: m for k, p in _INLINE.items() if (m := p.search(block))}
    out: dict[str, float | None] = dict.fromkeys(VITALS)
    if "temperature" in found:
        out["temperature"] = _fahrenheit(found["temperature"])
    for name in ("heartrate", "resprate", "o2sat"):
        if name in found:
            out[name] = float(found[name].group(1))
    if "bp" in found:
        out["sbp"], out["dbp"] = float(found["bp"].group(1)), float(found["bp"].group(2))
    return out


def render_vitals(v: dict[str, float | None]) -> str | None:
    labels = (("T", "temperature"), ("HR", "heartrate"), ("RR", "resprate"), ("SpO2 ", "o2sat"))
    parts = [f"{label}{v[f]:g}" for label, f in labels if v[f] is not None]
    if v["sbp"] is not None and v["dbp"] is not None:
        parts.append(f"BP{v['sbp']:g}/{v['dbp']:g}")
    return " ".join(parts) or None
