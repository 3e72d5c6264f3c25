"""What a heading of a MIMIC-IV-Note discharge summary opens, read fail-closed (issue 29).

Where the headings are, and their normalised keys, is the shared grammar's job
(:mod:`admitdx.tasks.note_headings`). This module says what each key means for CliniBench
(:func:`classify`):

* an **admission-time section** of §3.1 (:data:`ADMISSION`: chief complaint / reason for
  admission, HPI, past medical history, allergies, medications on admission in every home /
  outpatient / pre-admission spelling, social and family history, the physical exam, procedures):
  kept;
* an admission-time **sub-heading** (:data:`INNER`: "Past Surgical History", "ADMISSION PHYSICAL
  EXAM", "ED Course") or a label **about another time or place** (a word of :data:`QUALIFIERS`:
  "Discharge diagnosis at OSH", "Prior discharge medications per records"): not a heading, the
  text stays in the section it sits in (None);
* a **discharge-time** section (:data:`LEAKS`, and every key that starts with "discharge" after
  the timing phrase moved, or names the final / last / pre-departure exam), or an administrative
  field: withheld;
* any other phrase holding a word of :data:`SECTION_WORDS` (course, diagnosis, plan, results,
  labs, instructions, …): ``unrecognised``, **withheld** and listed with its spelling — fail closed,
  where before issue 29 it stayed inside the section before it;
* anything else (``GEN:``, ``Hypertension:``, ``Incision:``): a label inside its section (None).

Why: tried on heading spellings written independently of the project, the issue-20 reader let
101 of 117 discharge-time spellings into the admission note, because an unknown heading stayed
inside the kept section before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from admitdx.tasks.note_headings.grammar import HeadingLine, heading_key, heading_lines, run_on_headings

#: Admission-time sections (§3.1) by name, in every spelling we know; keys computed by the grammar.
ADMISSION: dict[str, tuple[str, ...]] = {
    "chief_complaint": (
        "Chief Complaint", "___ Complaint", "CC", "Reason for Admission", "Admission Reason",
        "Presenting Complaint", "Reason for Hospitalization", "Chief Complaints",
    ),
    "major_surgical_or_invasive_procedure": (
        "Major Surgical or Invasive Procedure", "Major Surgical or Invasive Procedures",
        "MAJOR SURGICAL / INVASIVE PROCEDURE", "Major ___ or Invasive Procedure",
        "Invasive Procedures",
    ),
    "allergies": ("Allergies", "Allergy", "Drug Allergies", "Allergies and Adverse Reactions"),
    "history_of_present_illness": (
        "History of Present Illness", "___ of Present Illness", "HPI", "Present Illness",
    ),
    "past_medical_history": ("Past Medical History", "PMH", "Past History", "Medical History"),
    "social_history": ("Social History", "SH"),
    "family_history": ("Family History", "FH"),
    "physical_exam": (
        "Physical Exam", "Physical Examination", "Physical ___", "Exam", "PE",
    ),  # "Admission Physical Exam" is a sub-heading (INNER): it sits under "Physical Exam:"
    "medications_on_admission": (
        "Medications on Admission", "Admission Medications", "Home Medications", "Home Meds",
        "Outpatient Medications", "Outpatient Meds", "Pre-admission Medications",
        "Preadmission Medications", "Prior to Admission Medications", "Meds on Admission",
        "PTA Meds", "Meds PTA", "Pre-Admission Medication List", "Home Medication List",
        "Medications Prior to Admission", "Current Medications on Admission", "Home Medication",
    ),
}  # fmt: skip

#: Admission-time sub-headings, by the section they belong to: inside an admission section they
#: stay in its text (as before issue 29); after a withheld section they open their own.
INNER: dict[str, tuple[str, ...]] = {
    "past_medical_history": (
        "Past Surgical History", "Surgical History", "PSH", "Past Medical and Surgical History",
        "Cardiac Risk Factors", "Cardiac History", "Other Past Medical History", "Past Psychiatric History",
    ),
    "physical_exam": (
        "ADMISSION PHYSICAL EXAM", "Admission Exam", "Admission PE", "On Admission", "Admission",
        "Admission Vitals", "Vitals", "Vital Signs",
    ),
    "history_of_present_illness": ("ED Course", "In the ED", "Review of Systems", "ROS"),
}  # fmt: skip

#: Discharge-time sections (§3.1's leakage) and administrative fields, by name: withheld.
LEAKS: dict[str, tuple[str, ...]] = {
    "pertinent_results": (
        "Pertinent Results", "___ Results", "Results", "Labs", "Imaging", "Studies", "Admission Labs",
        "Micro/Imaging", "Micro", "Microbiology", "Radiology", "Imaging/Studies",
    ),  # the labs of the stay are leakage, those of admission day too (§3.1 drops "pertinent results")
    "brief_hospital_course": (
        "Brief Hospital Course", "Hospital Course", "___ Hospital Course", "Course in the Hospital",
        "Summary of Hospital Course", "Transitional Issues", "Hospital Course by Problem", "Course",
        "Clinical Course",
    ),
    "facility": ("Facility",),
    "discharge_diagnosis": (
        "Final Diagnosis", "Principal Diagnosis", "Primary Diagnosis", "Secondary Diagnosis",
        "___ Diagnosis", "Diagnosis", "Diagnoses",
    ),
    "discharge_condition": ("___ Condition", "Condition"),
    "discharge_disposition": ("Disposition",),
    "followup_instructions": (
        "Followup Instructions", "Follow-up Instructions", "Followup", "F/U", "Follow-up Appointments",
    ),
    "assessment_and_plan": ("Assessment and Plan", "Assessment", "Plan", "Impression", "Impression and Plan"),
    "name": ("Name",),
    "unit_no": ("Unit No",),
    "admission_date": ("Admission Date",),
    "date_of_birth": ("Date of Birth",),
    "sex": ("Sex",),
    "service": ("Service",),
    "attending": ("Attending",),
}  # fmt: skip

#: Words that make an unknown phrase a section heading (withheld as ``unrecognised``).
SECTION_WORDS = frozenset(
    {
        "course", "diagnosis", "disposition", "condition", "instructions", "results", "labs",
        "studies", "imaging", "plan", "assessment", "impression", "followup", "discharge",
        "summary", "recommendations", "issues", "medications", "procedure", "data", "micro",
        "microbiology", "radiology", "consults", "pending", "appointments", "goals",
        "hospitalization", "events", "problem", "problems", "decision", "exam", "findings",
    }
)  # fmt: skip
#: Words that make a phrase a label about another time or place, not a section of this note.
QUALIFIERS = frozenset(
    {
        "osh", "outside", "prior", "previous", "recent", "from", "per", "clinic", "pcp", "ems",
        "prehospital", "urgent", "rehab", "records", "capacity", "reviewed", "referring",
        "visit", "discharged", "echo", "ct", "mri", "cxr", "xray",
    }
)  # fmt: skip
#: Words of the exam at discharge: the final / last / pre-departure exam in any spelling.
_EXAM_WORDS = frozenset({"exam", "physical", "vitals", "signs", "vs", "neuro", "mental", "status", "and"})
_LATE_EXAM = re.compile(r"^(?:final|last|pre ?departure|departure|predischarge) (?:physical )?exam\b")


def _keys(table: dict[str, tuple[str, ...]]) -> dict[str, str]:
    return {heading_key(s): name for name, spellings in table.items() for s in spellings}


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, str], dict[str, str]]:
    return _keys(ADMISSION) | _keys(LEAKS), _keys(INNER)


def inner_section(key: str) -> str | None:
    """The admission section an admission-time sub-heading belongs to (None: not one)."""
    return _tables()[1].get(key)


def classify(key: str) -> str | None:
    """The section a heading key opens (module docstring): an admission or leakage name,
    ``discharge_exam``, ``discharge_<rest>``, ``unrecognised``; None: not a section heading (an
    admission-time sub-heading, a label)."""
    known, inner = _tables()
    words = key.split()
    if not words or key in inner or QUALIFIERS.intersection(words):
        return None
    if key in known:
        return known[key]
    if words[0] == "discharge" or _LATE_EXAM.match(key):
        rest = [w for w in words[1:] if w not in ("physical", "and")] if words[0] == "discharge" else ["exam"]
        if all(w in _EXAM_WORDS for w in words[1:]) or _LATE_EXAM.match(key):
            return "discharge_exam"
        return "discharge_" + "_".join(rest)
    if "discharge" in words[:-1]:  # "principal discharge diagnosis"; not a finding, "nipple discharge"
        return "discharge_" + "_".join(w for w in words if w != "discharge")
    return "unrecognised" if SECTION_WORDS.intersection(words) else None


def is_known(key: str) -> bool:
    """Whether a bare line with this key is a heading in any case (a section or discharge key)."""
    return classify(key) not in (None, "unrecognised") or inner_section(key) is not None


def is_discharge_key(key: str) -> bool:
    """A key that opens a discharge-time section (``discharge_…`` or a known leakage section)."""
    name = classify(key)
    return name is not None and name not in ADMISSION and name != "unrecognised"


@dataclass(frozen=True)
class Heading:
    """One heading that opens a section: its name, the text as written, and where it sits."""

    name: str
    text: str
    start: int  # line start (a run-on heading: the phrase)
    end: int  # after the colon, the underline, or the end of a bare heading's line


#: The section name of a heading the user keeps (``--keep-heading``): shown after the nine.
ALLOWED = "allowed"


def _opens(h: HeadingLine, allowed: frozenset[str]) -> str | None:
    return ALLOWED if h.key in allowed else classify(h.key)


def headings(text: str, allowed: frozenset[str] = frozenset()) -> list[Heading]:
    """Every heading of ``text`` that opens a section, in order: line headings of the grammar,
    and discharge-time headings of two or more words run on after a sentence ("… no edema. Brief
    Hospital Course: …"; not "Discharge: none", a wound finding). ``allowed``: keys the user
    keeps (``--keep-heading``): each opens an :data:`ALLOWED` section."""
    out: list[Heading] = []
    for h in heading_lines(text, is_known):
        name = _opens(h, allowed)
        inner = inner_section(h.key) if h.key not in allowed else None
        if name is None and inner is not None and (not out or out[-1].name not in ADMISSION):
            name = inner  # a sub-heading after a withheld section (or first): its own section
        right_under = bool(out) and not text[out[-1].end : h.start].strip()
        if name in ADMISSION and right_under and (out[-1].name == name or h.bare):
            continue  # "Family History:\nFH: …", the section's own label; "Chief Complaint:\nPE", its text
        if name is not None:
            out.append(Heading(name, h.phrase, h.start, h.end))
    out += [
        Heading(name, h.phrase, h.start, h.end)
        for h in run_on_headings(text)
        if len(h.key.split()) >= 2 and is_discharge_key(h.key) and h.key not in allowed
        and (name := classify(h.key)) is not None
    ]  # fmt: skip
    return sorted(out, key=lambda h: h.start)


def discharge_time_headings(text: str) -> list[tuple[tuple[int, int], str]]:
    """Every discharge-time heading the grammar recognises in ``text`` — ((start, end), phrase) —
    for a leak audit of a built admission note, whose sections are rendered on one line each:
    line headings, headings run on after a sentence, and any phrase of two to five words
    before a colon anywhere in a line whose key opens a discharge-time section."""
    found: dict[int, tuple[tuple[int, int], str]] = {}
    for h in [*heading_lines(text, is_known), *run_on_headings(text)]:
        if is_discharge_key(h.key):
            found[h.start] = ((h.start, h.end), h.phrase)
    for m in re.finditer(r"((?:[^\W\d_][\w/&'-]*[^\S\n]+){0,4}[^\W\d_][\w/&'-]*)[^\S\n]*:", text):
        words = list(re.finditer(r"\S+", m.group(1)))
        for i in range(len(words) - 2, -1, -1):  # the longest window first, two words at least
            phrase = m.group(1)[words[i].start() :]
            if is_discharge_key(heading_key(phrase)):
                start = m.start(1) + words[i].start()
                found.setdefault(start, ((start, m.end()), phrase))
                break
    return sorted(found.values())


#: A line inside the physical exam that opens the exam at discharge without being a heading:
#: "On discharge, afebrile", "Exam on discharge notable for …", "Discharge exam - VS 98.1".
_DISCHARGE_SENTENCE = re.compile(
    r"^(?:(?:(?:physical )?(?:exam|pe) )?(?:on|at|upon|prior to|at time of|at the time of) discharge"
    r"|discharge (?:physical )?(?:exam|pe))\b"
)


def discharge_exam_start(body: str, allowed: frozenset[str] = frozenset()) -> int | None:
    """Where the exam at discharge starts inside a physical exam's body (None: nowhere): the first
    heading (a bare one in any case when its key is known) that opens a discharge-time or
    unrecognised section — the discharge, last, final or pre-departure exam in any spelling —
    or a line that opens with a timing phrase ("On discharge, …") or "discharge exam"."""
    starts = [h.start for h in headings(body, allowed) if h.name not in ADMISSION and h.name != ALLOWED]
    pos = 0
    for line in body.splitlines(keepends=True):
        words = " ".join(re.sub(r"[^a-z0-9]+", " ", line.lower().replace("examination", "exam")).split())
        if _DISCHARGE_SENTENCE.match(words):
            starts.append(pos)
            break
        pos += len(line)
    return min(starts) if starts else None
