"""The admission note of §3.1: the admission-time sections of a discharge summary, nothing else.

Every header the paper names is *known* to the splitter (van Aken et al.: a section ends at the
next known header), including the leakage sections and administrative fields that are then
dropped; a header not listed here (e.g. "Past Surgical History:", "ADMISSION LABS:") stays inside
the section it appears in. Kept sections are written in the paper's order as ``HEADER: text``
lines, whitespace collapsed.

The physical exam: MIMIC notes often hold the admission and the discharge exam under one
``Physical Exam:`` header (``ADMISSION PHYSICAL EXAM: … DISCHARGE PHYSICAL EXAM: …``). The exam at
admission is the text before the first discharge sub-header (:data:`DISCHARGE_EXAM`); a leading
admission sub-header is removed. An exam with no sub-header is taken as the admission exam.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from admitdx.tasks.clinibench.params import CORE_SECTIONS, SECTION_NAMES
from admitdx.tasks.discharge_note import HeaderSet, NoteSplitter

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

#: Leakage (§3.1): what was learnt during the stay or decided at discharge.
LEAKAGE: dict[str, tuple[str, ...]] = {
    "pertinent_results": ("pertinent results",),
    "brief_hospital_course": ("brief hospital course", "hospital course"),
    "discharge_medications": ("discharge medications",),
    "discharge_disposition": ("discharge disposition",),
    "facility": ("facility",),
    "discharge_diagnosis": ("discharge diagnosis", "discharge diagnoses"),
    "discharge_condition": ("discharge condition",),
    "discharge_instructions": ("discharge instructions",),
    "followup_instructions": ("followup instructions", "follow-up instructions", "follow up instructions"),
}
#: Administrative and demographic fields (§3.1), de-identified or irrelevant.
ADMINISTRATIVE: dict[str, tuple[str, ...]] = {
    "name": ("name",),
    "unit_no": ("unit no",),
    "admission_date": ("admission date",),
    "discharge_date": ("discharge date",),
    "date_of_birth": ("date of birth",),
    "sex": ("sex",),
    "service": ("service",),
    "attending": ("attending",),
}
ADMISSION_SPELLINGS: dict[str, tuple[str, ...]] = {
    "chief_complaint": ("chief complaint",),
    "major_surgical_or_invasive_procedure": (
        "major surgical or invasive procedure",
        "major surgical or invasive procedures",
    ),
    "allergies": ("allergies",),
    "history_of_present_illness": ("history of present illness",),
    "past_medical_history": ("past medical history",),
    "social_history": ("social history",),
    "family_history": ("family history",),
    "physical_exam": ("physical exam", "physical examination"),
    "medications_on_admission": ("medications on admission",),
}
HEADERS = HeaderSet({**ADMISSION_SPELLINGS, **LEAKAGE, **ADMINISTRATIVE}, flexible=True)
SPLITTER = NoteSplitter(HEADERS)

#: A line in the physical exam that opens the exam at (or on, upon) discharge, e.g.
#: "DISCHARGE PHYSICAL EXAM:", "Discharge exam:", "ON DISCHARGE:", "Physical exam on discharge:".
DISCHARGE_EXAM = re.compile(
    r"^[^\S\n]*(?:(?:on|at|upon)\s+discharge\b|discharge\s+(?:physical\s+)?(?:exam|pe)\b"
    r"|(?:physical\s+)?exam(?:ination)?\s+(?:on|at|upon)\s+discharge\b|discharge[^\S\n]*:)",
    re.I | re.M,
)
ADMISSION_EXAM = re.compile(
    r"\A\s*(?:(?:on|at|upon)\s+admission|admission\s+(?:physical\s+)?(?:exam|pe)(?:ination)?"
    r"|(?:physical\s+)?exam(?:ination)?\s+(?:on|at|upon)\s+admission|admission)[^\S\n]*:?",
    re.I,
)


@dataclass(frozen=True)
class AdmissionNote:
    """One note cut into the kept sections (None when absent or empty) and the rendered text."""

    sections: dict[str, str | None]
    text: str
    headers_found: int  # known headers of any kind (0: not a MIMIC discharge summary)

    @property
    def core_empty(self) -> bool:
        return all(not self.sections.get(s) for s in CORE_SECTIONS)


def admission_exam(body: str) -> str:
    """The exam at admission: the text before the first discharge sub-header, its own label removed."""
    cut = DISCHARGE_EXAM.search(body)
    kept = body[: cut.start()] if cut else body
    return ADMISSION_EXAM.sub("", kept, count=1)


def _collapse(text: str) -> str:
    return " ".join(text.split())


def admission_note(
    text: str, keep: tuple[str, ...] = SECTION_NAMES, physical_exam: str = "admission"
) -> AdmissionNote:
    """Cut a discharge summary into the admission-time sections ``keep`` (first occurrence of each)."""
    found = SPLITTER.sections(text)
    bodies: dict[str, str] = {}
    for sec in found:
        if sec.name in keep and sec.name not in bodies:
            body = (
                admission_exam(sec.body)
                if sec.name == "physical_exam" and physical_exam == "admission"
                else sec.body
            )
            bodies[sec.name] = body
    sections = {
        name: (_collapse(bodies[name]) or None) if name in bodies else None
        for name in SECTION_NAMES
        if name in keep
    }
    rendered = "\n".join(f"{TITLES[name]}: {body}" for name, body in sections.items() if body)
    return AdmissionNote(sections, rendered, len(found))
