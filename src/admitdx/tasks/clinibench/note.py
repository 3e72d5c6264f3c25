"""The admission note of §3.1: the admission-time sections of a discharge summary, nothing else.

Headings are found by the shared grammar and read by :mod:`.headings` (issue 29, fail closed): a
section runs from its heading to the next section heading (van Aken et al.); only the admission
sections of §3.1 are kept, and everything else — leakage sections, administrative fields, and
sections under a heading that is not recognised as admission-time ("ADMISSION LABS:",
"Course by Problem:") — is withheld and listed in :attr:`AdmissionNote.withheld`. Admission-time
sub-headings ("Past Surgical History:", "ADMISSION PHYSICAL EXAM:") and labels about another time
or place stay inside the section they appear in. Kept sections are written in the paper's order
as ``HEADER: text`` lines, whitespace collapsed.

The physical exam: MIMIC notes often hold the admission and the discharge exam under one
``Physical Exam:`` header (``ADMISSION PHYSICAL EXAM: … DISCHARGE PHYSICAL EXAM: …``). The exam at
admission is the text before the first discharge sub-header, however spelt
(:func:`~.headings.discharge_exam_start`); a leading admission sub-header is removed. An exam with
no sub-header is taken as the admission exam."""

from __future__ import annotations

import re
from dataclasses import dataclass

from admitdx.tasks.clinibench.headings import ALLOWED, discharge_exam_start, headings
from admitdx.tasks.clinibench.params import CORE_SECTIONS, SECTION_NAMES
from admitdx.tasks.discharge_note import NoteSection

#: Output headers of the kept sections (``HEADER: text``).
TITLES: dict[str, str] = {
    "chief_complaint": "CHIEF COMPLAINT",
    "major_surgical_or_invasive_procedure": "MAJOR SURGICAL OR INVASIVE PROCEDURE",
    "allergies": "ALLERGIES",
    "history_of_present_illness": "HISTORY OF PRESENT ILLNESS",
    "past_medical_history": "PAST MEDICAL HISTORY",
    "social_history": "SOCIAL HISTORY",
    "family_history": "FAMILY HISTORY",
    "physical_exam": "PHYSICAL EXAM",
    "medications_on_admission": "MEDICATIONS ON ADMISSION",
}

ADMISSION_EXAM = re.compile(
    r"\A\s*[*=#~\-]*[^\S\n]*(?:(?:on|at|upon)\s+admission|admission\s+(?:physical\s+)?(?:exam|pe)(?:ination)?"
    r"|(?:physical\s+)?exam(?:ination)?\s+(?:on|at|upon)\s+admission|admission)[^\S\n]*[*=#~\-]*[^\S\n]*:?",
    re.I,
)


@dataclass(frozen=True)
class AdmissionNote:
    """One note cut into the kept sections (None when absent or empty) and the rendered text."""

    sections: dict[str, str | None]
    text: str
    headers_found: int  # known headings of any kind (0: not a MIMIC discharge summary)
    discharge_exam_cut: bool = False  # a discharge-exam heading ended the kept physical exam
    #: every section not shown: (section name or "unrecognised", heading as written, characters)
    withheld: tuple[tuple[str, str, int], ...] = ()

    @property
    def core_empty(self) -> bool:
        return all(not self.sections.get(s) for s in CORE_SECTIONS)


def sections(
    text: str, *, whole_exam: bool = False, allowed: frozenset[str] = frozenset()
) -> list[NoteSection]:
    """Every section of ``text`` opened by a section heading (:mod:`.headings`), in note order:
    a section runs to the next one (van Aken et al.); text before the first is not a section.
    ``whole_exam``: discharge-exam headings do not end a section (the ablation). ``allowed``:
    heading keys the user keeps (``--keep-heading``)."""
    found = [h for h in headings(text, allowed) if not (whole_exam and h.name == "discharge_exam")]
    ends = [h.start for h in found[1:]] + [len(text)]
    return [
        NoteSection(h.name, h.text, text[h.end : e].strip(), h.start)
        for h, e in zip(found, ends[: len(found)], strict=True)
    ]


def admission_exam(body: str, allowed: frozenset[str] = frozenset()) -> str:
    """The exam at admission: the text before the first discharge sub-header, its own label removed."""
    cut = discharge_exam_start(body, allowed)
    kept = body[:cut] if cut is not None else body
    return ADMISSION_EXAM.sub("", kept, count=1)


def _collapse(text: str) -> str:
    return " ".join(text.split())


def admission_note(
    text: str,
    keep: tuple[str, ...] = SECTION_NAMES,
    physical_exam: str = "admission",
    allowed: frozenset[str] = frozenset(),
) -> AdmissionNote:
    """Cut a discharge summary into the admission-time sections ``keep`` (first occurrence of
    each); every other section is withheld and listed. ``allowed``: heading keys the user keeps
    (``--keep-heading``): their sections are shown after the nine, ``HEADING AS WRITTEN: text``."""
    whole = physical_exam != "admission"
    found = sections(text, whole_exam=whole, allowed=allowed)
    bodies: dict[str, str] = {}
    withheld: list[tuple[str, str, int]] = []
    cut = False
    extra: list[str] = []
    for i, sec in enumerate(found):
        if sec.name == ALLOWED:
            if body := _collapse(sec.body):
                extra.append(f"{_collapse(sec.header).upper()}: {body}")
            continue
        if sec.name not in keep or sec.name in bodies:
            withheld.append((sec.name, sec.header, len(sec.body)))
            continue
        body = sec.body
        if sec.name == "physical_exam" and not whole:
            body = admission_exam(sec.body, allowed)
            following = found[i + 1].name if i + 1 < len(found) else None
            inside = discharge_exam_start(sec.body, allowed)
            cut = inside is not None or following == "discharge_exam"
            if inside is not None:
                withheld.append(("discharge_exam", "(inside the physical exam)", len(sec.body) - inside))
        bodies[sec.name] = body
    kept = {
        name: (_collapse(bodies[name]) or None) if name in bodies else None
        for name in SECTION_NAMES
        if name in keep
    }
    rendered = "\n".join([*(f"{TITLES[name]}: {body}" for name, body in kept.items() if body), *extra])
    return AdmissionNote(kept, rendered, len(found), cut, tuple(withheld))
