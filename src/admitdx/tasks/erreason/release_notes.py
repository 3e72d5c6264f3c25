"""Cutting the current ED provider note of the ER-Reason release where a task's input must stop.

The release's notes are Epic ED provider notes. What follows the history and exam — ``Medical
Decision Making`` (MDM), ``ED Course``, ``Final Disposition`` with its ``Clinical Impression`` and
``ED Disposition`` — holds the diagnosis and disposition the tasks ask for. The presentation is
read **fail closed** (issue 29): headings are found by the shared grammar
(:mod:`admitdx.tasks.note_headings`), and the presentation is the note up to the first heading
that is not one of its allow-listed sections (:data:`PRESENTATION`: chief complaint, HPI, ROS,
the histories, medications, allergies, triage vitals, exam). A heading "of any other kind" is
one whose key names a section word (:data:`STOP_WORDS`: decision making, impression, assessment,
plan, diagnosis, disposition, course, re-evaluation, results, discharge, follow-up, …) in any
spelling of the grammar — numbered, bulleted, underlined, abbreviated (MDM, A/P, Dx, DDx, Dispo,
Imp, Re-eval) — or that is run on after a sentence inside a line ("Abdomen soft. MDM: …"). A
label about another time or place (:data:`QUALIFIERS`: "Clinic impression:", "EMS course:",
"Decision-making capacity:", "Prior CT impression:") and an exam or history label ("Neck:",
"Progression:", "Course:") are not headings. Before issue 29 the cut was a closed list of nine
headings: 37 of 52 spellings written for the test leaked the diagnosis.

A note with no stopping heading is left out (``uncut_notes="exclude"``, counted in the build
manifest) — never shown whole, which is where the answer would be — unless the user asks for
``"whole"``; so is a presentation without an HPI or without an exam heading (:func:`verdict`).

The disposition task then redacts what remains (:mod:`.disposition_lexicon`).
"""

from __future__ import annotations

import re

from admitdx.tasks.note_headings.grammar import HeadingLine, heading_key, heading_lines, run_on_headings

#: The allow-listed presentation sections, in the spellings we know (keys by the grammar).
PRESENTATION: tuple[str, ...] = (
    "Chief Complaint", "CC", "Reason for Visit", "Presenting Complaint", "History of Present Illness",
    "HPI", "Present Illness", "History", "Review of Systems", "ROS", "Past Medical History", "PMH",
    "Past Surgical History", "Surgical History", "Past Medical and Surgical History", "Family History",
    "Social History", "Medications", "Home Medications", "Current Medications", "Outpatient Medications",
    "Prior to Admission Medications", "Medication List", "Allergies", "Triage Vitals", "ED Triage Vitals",
    "Triage Vital Signs", "Initial Vitals", "Vitals", "Vital Signs", "Physical Exam", "Exam", "PE",
    "ED Provider Note", "ED Provider Notes",
)  # fmt: skip
#: Words that make a heading one "of any other kind": the presentation stops there.
STOP_WORDS = frozenset(
    {
        "decision", "mdm", "impression", "assessment", "plan", "diagnosis", "differential",
        "disposition", "course", "reevaluation", "results", "labs", "imaging", "radiology",
        "discharge", "followup", "instructions", "procedure", "consults", "attestation", "final",
        "summary", "reassessment", "recommendations", "orders", "ecg", "ekg",
    }
)  # fmt: skip
#: Words that make a phrase a label about another time or place, not this visit's decision part.
QUALIFIERS = frozenset(
    {
        "osh", "outside", "prior", "previous", "recent", "from", "per", "clinic", "pcp", "ems",
        "prehospital", "urgent", "records", "capacity", "echo", "ct", "mri", "cxr", "xray",
        "triage", "visit", "oncology",
    }
)  # fmt: skip
_HPI = frozenset({"history of present illness", "present illness", "history"})
_EXAM = frozenset({"physical exam", "exam"})


_ALLOWED = frozenset(heading_key(s) for s in PRESENTATION)


def stops(key: str) -> bool:
    """Whether a heading key ends the presentation (module docstring)."""
    words = key.split()
    if not words or key in _ALLOWED or key == "course" or QUALIFIERS.intersection(words):
        return False
    return bool(STOP_WORDS.intersection(words))


def _known(key: str) -> bool:
    return key in _ALLOWED or stops(key)


#: The names of the headings the reader stopped at before issue 29 (name → pattern after the
#: line's lead): a stop heading that matches one keeps its name in the manifest's ``cut_at_…``.
_LEAD = r"^[ \t]*(?:[*#\-][ \t*#\-]*)?"
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
_NAMED = re.compile(
    r"[^\S\n]*(?:[*#\-][^\S\n*#\-]*)?(?:"
    + "|".join(f"(?P<{name}>{p})" for name, p in CUT_HEADINGS.items())
    + ")",
    re.I,
)
UNCUT_NOTES = ("exclude", "whole")


def _name(note: str, h: HeadingLine) -> str:
    """The stop heading's name: the pre-issue-29 one where it matches, else its key."""
    m = _NAMED.match(note, h.start)
    return m.lastgroup if m and m.lastgroup else h.key.replace(" ", "_")


def stop_heading(note: str) -> HeadingLine | None:
    """The earliest heading of ``note`` that ends the presentation (at a line start or run on)."""
    found = [h for h in heading_lines(note, _known) if stops(h.key)]
    found += [h for h in run_on_headings(note) if stops(h.key)]
    return min(found, key=lambda h: h.start, default=None)


def cut(note: str | None) -> tuple[str | None, str | None]:
    """(the note before its earliest stop heading, that heading's name); (None, None) for an empty
    note, (the whole note, None) for a note without one."""
    if not note or not note.strip():
        return None, None
    h = stop_heading(note)
    if h is None:
        return note.strip(), None
    return (note[: h.start].strip() or None), _name(note, h)


def verdict(note: str | None, uncut_notes: str = "exclude") -> tuple[str | None, str]:
    """(the ED presentation or None, why): ``cut_at_<heading>``, or the reason it is left out —
    ``empty_note``, ``no_heading`` (under ``uncut_notes="exclude"``), ``no_hpi``, ``no_exam``
    (the presentation holds no HPI or no exam heading: an attestation line alone is not one)."""
    text, heading = cut(note)
    if text is None:
        return None, "empty_note" if heading is None else f"empty_before_{heading}"
    if heading is None and uncut_notes != "whole":
        return None, "no_heading"
    keys = {h.key for h in heading_lines(text, _known)}
    if not keys & _HPI:
        return None, "no_hpi"
    if not keys & _EXAM:
        return None, "no_exam"
    return text, f"cut_at_{heading or 'no_heading'}"


def presentation(note: str | None, uncut_notes: str = "exclude") -> str | None:
    """The ED presentation (:func:`verdict`), None when it is left out."""
    return verdict(note, uncut_notes)[0]
