"""The answer sets of the ER-Reason category tasks.

Acuity uses the release's level names, which are ESI 1 to 5 in order (most urgent first), for both
sources, so one prompt and one exact parse serve both: "Less Urgent" is its own level, never
"Urgent" (the authors' substring parse reads it as "Urgent"; :func:`admitdx.tasks.answers.read_category`
matches whole names only). The release's own value sets live with its loader.
"""

from __future__ import annotations

from admitdx.sources.erreason import ACUITY_LEVELS, DISPOSITIONS

RELEASE_DISPOSITIONS = DISPOSITIONS

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


def acuity_level(esi: int | None) -> str | None:
    """ESI 1..5 → its level name; anything else (missing, out of range) → None."""
    return ACUITY_LEVELS[esi - 1] if esi is not None and 1 <= esi <= len(ACUITY_LEVELS) else None


__all__ = ["ACUITY_LEVELS", "MIMIC_DISPOSITIONS", "RELEASE_DISPOSITIONS", "acuity_level"]
