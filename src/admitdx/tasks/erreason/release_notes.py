"""Cutting the current ED provider note of the ER-Reason release where a task's input must stop.

The release's notes are Epic ED provider notes. What follows the history and exam — ``Medical
Decision Making`` (MDM), ``ED Course``, ``Final Disposition`` with its ``Clinical Impression`` and
``ED Disposition`` — holds the diagnosis and disposition the tasks ask for, and older templates
put an ``Assessment and Plan`` there. The authors cut at "Final Disposition and ED Course" (current
scripts) or at the first "Medical Decision" (V1); a note laid out MDM-first would leak through the
first, and a note without either would be shown whole. So every task's input stops at the
*earliest* of these headings (:data:`CUT_HEADINGS`; a heading is a line that starts, after
optional ``*``, ``#``, ``-`` or white space, with one of them, any case, colon optional), and a
note with none of them is left out (``uncut_notes="exclude"``, counted in the build manifest) —
never shown whole, which is where the answer would be — unless the user asks for ``"whole"``.

The disposition task then redacts what remains (:mod:`.disposition_lexicon`).
"""

from __future__ import annotations

import re

_LEAD = r"^[ \t]*(?:[*#\-][ \t*#\-]*)?"
#: The headings a presentation stops at (name → pattern after the line's lead), earliest wins.
CUT_HEADINGS: dict[str, str] = {
    "medical_decision_making": r"medical\s+decision",
    "mdm": r"mdm\b",
    "assessment_and_plan": r"assessment\s*(?:and|&|/)\s*plan\b",
    "impression_and_plan": r"impression\s*(?:and|&|/)\s*plan\b",
    "ed_course": r"ed\s+course\b",
    "final_disposition": r"final\s+disposition\b",
    "clinical_impression": r"clinical\s+impressions?\b",
    "ed_disposition": r"ed\s+disposition\b",
    "final_diagnosis": r"(?:final|ed)\s+diagnos[ie]s\b",
}
_HEADING = re.compile(
    _LEAD + "(?:" + "|".join(f"(?P<{name}>{p})" for name, p in CUT_HEADINGS.items()) + ")", re.I | re.M
)
UNCUT_NOTES = ("exclude", "whole")


def cut(note: str | None) -> tuple[str | None, str | None]:
    """(the note before its earliest cut heading, that heading's name); (None, None) for an empty
    note, (the whole note, None) for a note without any of the headings."""
    if not note or not note.strip():
        return None, None
    m = _HEADING.search(note)
    if m is None:
        return note.strip(), None
    return (note[: m.start()].strip() or None), m.lastgroup


def presentation(note: str | None, uncut_notes: str = "exclude") -> str | None:
    """The ED presentation (the note before its earliest cut heading); a note without one is
    None under ``uncut_notes="exclude"`` (the instance is left out), whole under ``"whole"``."""
    text, heading = cut(note)
    return text if heading is not None or uncut_notes == "whole" else None
