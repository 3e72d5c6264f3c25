"""The answer sets of the ER-Reason category tasks.

Acuity uses the release's level names, which are ESI 1 to 5 in order (most urgent first), for both
sources, so one prompt and one exact parse serve both: "Less Urgent" is its own level, never
"Urgent" (the authors' substring parse reads it as "Urgent"; :func:`admitdx.tasks.answers.read_category`
matches whole names only).
"""

from __future__ import annotations

ACUITY_LEVELS: tuple[str, ...] = ("Immediate", "Emergent", "Urgent", "Less Urgent", "Non-Urgent")

#: ``edstays.disposition`` values (MIMIC-IV-ED 2.2 documentation), most frequent first.
MIMIC_DISPOSITIONS: tuple[str, ...] = (
    "HOME",
    "ADMITTED",
    "TRANSFER",
    "LEFT WITHOUT BEING SEEN",
    "OTHER",
    "LEFT AGAINST MEDICAL ADVICE",
    "ELOPED",
    "EXPIRED",
)

#: ``eddisposition`` values of the ER-Reason release (the paper's table 15 options, less 'None').
RELEASE_DISPOSITIONS: tuple[str, ...] = (
    "Discharge",
    "Admit",
    "Observation",
    "Transfer to Another Facility",
    "AMA",
    "OR Admit",
    "LWBS after Triage",
    "Send to L&D",
    "Expired",
    "Eloped",
    "Dismissed - Never Arrived",
)


def acuity_level(esi: int | None) -> str | None:
    """ESI 1..5 → its level name; anything else (missing, out of range) → None."""
    return ACUITY_LEVELS[esi - 1] if esi is not None and 1 <= esi <= len(ACUITY_LEVELS) else None
