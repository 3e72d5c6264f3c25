"""Section headings of a MIMIC-IV-Note discharge summary, recognised by a normalised key.

A heading is looked up by its *key*, not by its spelling: case, punctuation, asterisks and other
decoration, "examination" / "exam", "diagnoses" / "diagnosis", "meds" / "medications", "follow-up"
/ "followup", and a timing phrase ("on discharge", "at discharge", "upon admission", "at the time
of discharge", "prior to discharge") are normalised away, the timing word moved to the front. So
``DISCHARGE PHYSICAL EXAMINATION:``, ``*Discharge Exam*``, ``PE on discharge:``, ``Physical exam at
time of discharge`` all have the key ``discharge physical exam`` / ``discharge exam`` /
``discharge pe``, and ``Medications on Admission:`` has the key ``admission medications``.

What a key names (:func:`classify`):

* the admission-time sections of §3.1 and the administrative fields, by the spellings in
  :data:`KNOWN` (the MIMIC-IV-Note template, van Aken et al.'s header lists, de-identified
  variants where ``___`` replaced a word, schema doc §4.4);
* every *discharge* heading: ``discharge`` alone or followed only by words of
  :data:`DISCHARGE_WORDS` (exam, vitals, labs, medications, diagnosis, condition, …), after the
  timing phrase moved — a leak (§3.1: the physical exam at discharge, discharge medications,
  diagnosis, condition, …). Those about the exam are ``discharge_exam``: they sit under ``Physical
  Exam:`` in MIMIC, and the ``whole`` exam of an ablation keeps them.

Why a key and not a list of spellings: a list misses the next spelling. 15 of 30 plausible
discharge-exam spellings stayed in the admission note with the old list (issue 20), and one leaked
discharge exam takes a TF-IDF classifier's main-diagnosis accuracy from 0.52 to 0.96.

A heading is a line start (after indentation and decoration such as ``*``, ``=``, ``#``) followed
by the heading text (at most 81 characters) and a colon, or a line that holds nothing but the
heading: such a *bare* heading counts only when it is decorated or written in capitals
(``*DISCHARGE EXAM*``, ``DISCHARGE PHYSICAL EXAM``), so that a body line which happens to read
"Discharge" does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

#: Words that may follow "discharge" in a discharge heading ("DISCHARGE VITALS:", "Discharge
#: Labs:", "DISCHARGE PHYSICAL EXAMINATION:", "Discharge Mental Status:").
EXAM_WORDS = frozenset(
    {"exam", "physical", "pe", "vitals", "vital", "signs", "vs", "neuro", "mental", "status", "and"}
)
DISCHARGE_WORDS = EXAM_WORDS | frozenset(
    {
        "labs", "lab", "laboratory", "results", "data", "studies", "imaging", "medications",
        "diagnosis", "condition", "disposition", "instructions", "weight", "diet", "plan",
        "activity", "level", "of", "consciousness", "followup", "worksheet", "date", "time",
    }
)  # fmt: skip

#: Spellings of every known heading that is not a discharge heading, by section name; the keys
#: are computed from these with :func:`heading_key`, so each spelling stands for all its variants.
KNOWN: dict[str, tuple[str, ...]] = {
    # admission-time sections (§3.1), kept
    "chief_complaint": ("Chief Complaint", "___ Complaint"),
    "major_surgical_or_invasive_procedure": (
        "Major Surgical or Invasive Procedure",
        "Major Surgical or Invasive Procedures",
        "MAJOR SURGICAL / INVASIVE PROCEDURE",  # van Aken et al.'s rendering
        "Major ___ or Invasive Procedure",
    ),
    "allergies": ("Allergies", "Allergy"),
    "history_of_present_illness": ("History of Present Illness", "___ of Present Illness"),
    "past_medical_history": ("Past Medical History",),
    "social_history": ("Social History",),
    "family_history": ("Family History",),
    "physical_exam": ("Physical Exam", "Physical Examination", "Physical ___"),
    "medications_on_admission": ("Medications on Admission", "Admission Medications"),
    # leakage (§3.1), dropped
    "pertinent_results": ("Pertinent Results", "___ Results"),
    "brief_hospital_course": (
        "Brief Hospital Course",
        "Hospital Course",
        "___ Hospital Course",
        "Course in the Hospital",  # van Aken et al., discharge_headings.txt
        "Summary of Hospital Course",
        "Transitional Issues",
    ),
    "facility": ("Facility",),
    "discharge_diagnosis": (
        "Final Diagnosis",
        "Final Diagnoses",
        "Principal Diagnosis",
        "Primary Diagnosis",
        "Secondary Diagnosis",
        "___ Diagnosis",
    ),
    "discharge_condition": ("___ Condition",),
    "followup_instructions": ("Followup Instructions", "Follow-up Instructions", "Followup"),
    # not "Disposition" alone: an HPI's ED course often says "Disposition: admit" (kept text)
    # administrative fields (§3.1), dropped ("Discharge Date" is a discharge heading)
    "name": ("Name",),
    "unit_no": ("Unit No",),
    "admission_date": ("Admission Date",),
    "date_of_birth": ("Date of Birth",),
    "sex": ("Sex",),
    "service": ("Service",),
    "attending": ("Attending",),
}

_WORD = {
    "examination": "exam",
    "examinations": "exam",
    "exams": "exam",
    "diagnoses": "diagnosis",
    "dx": "diagnosis",
    "dxs": "diagnosis",
    "meds": "medications",
    "medication": "medications",
    "instruction": "instructions",
    "allergy": "allergies",
    "procedures": "procedure",
    "lab": "labs",
    "vital": "vitals",
}
_TIMING = re.compile(
    r"\b(?:on|at|upon|prior to|before|day of|at time of|at the time of|on day of|on the day of)"
    r" (discharge|admission)\b"
)


def heading_key(text: str) -> str:
    """The normalised key of a heading as written (see the module docstring)."""
    text = text.lower().replace("&", " and ").replace("___", " phi ")
    words = re.sub(r"[^a-z0-9]+", " ", text).split()
    words = [_WORD.get(w, w) for w in words if w != "the"]
    joined = " ".join(words).replace("follow up", "followup")
    m = _TIMING.search(joined)
    if m:
        rest = (joined[: m.start()] + joined[m.end() :]).split()
        joined = " ".join([m.group(1), *rest])
    return joined


@lru_cache(maxsize=1)
def _known_keys() -> dict[str, str]:
    return {heading_key(s): name for name, spellings in KNOWN.items() for s in spellings}


def is_discharge_key(key: str) -> bool:
    """``discharge`` alone or followed only by :data:`DISCHARGE_WORDS` (after the timing move)."""
    words = key.split()
    return bool(words) and words[0] == "discharge" and all(w in DISCHARGE_WORDS for w in words[1:])


def is_discharge_exam_key(key: str) -> bool:
    """A discharge heading about the exam, or ``discharge`` alone (MIMIC's "Discharge:" sub-header)."""
    return is_discharge_key(key) and all(w in EXAM_WORDS for w in key.split()[1:])


def classify(key: str) -> str | None:
    """The section a heading key opens: a known name, ``discharge_exam``, ``discharge_<rest>``
    for another discharge heading (``discharge_medications``, ``discharge_date``), else None."""
    known = _known_keys().get(key)
    if known or not is_discharge_key(key):
        return known
    if is_discharge_exam_key(key):
        return "discharge_exam"
    return "discharge_" + "_".join(key.split()[1:])


_DECOR = "*=#~-[]<>|"
_DECOR_CLASS = re.escape(_DECOR)
#: A heading line: indentation and decoration, then the heading text (a letter or a de-identified
#: word ``___`` first, at most 81 characters, up to the first colon or the line's end), then the
#: colon if there is one. Greedy and without alternatives, so one pass per line start.
HEADING_LINE = re.compile(
    rf"^(?P<lead>[^\S\n]*[{_DECOR_CLASS}]*[^\S\n]*)(?P<head>(?:___[^\S\n]*)?[A-Za-z][^:\n]{{0,80}})(?P<colon>:)?",
    re.M,
)


@dataclass(frozen=True)
class Heading:
    """One recognised heading: its section name, the text as written, and where it sits."""

    name: str
    text: str
    start: int  # line start
    end: int  # after the colon, or the end of a bare heading's line


@lru_cache(maxsize=65536)
def _name(head: str) -> str | None:
    """The section a heading text opens (notes repeat the same lines: cached)."""
    return classify(heading_key(head))


def _heading(m: re.Match[str], text: str, *, bare_any_case: bool = False) -> str | None:
    """The section a :data:`HEADING_LINE` match opens, if it is a heading: with a colon, or alone
    on its line and (unless ``bare_any_case``) decorated or in capitals."""
    head, colon = m.group("head", "colon")
    name = _name(head)
    if name is None or colon is not None:
        return name
    if m.end() < len(text) and text[m.end()] not in "\r\n":
        return None  # more than 81 characters and no colon: a sentence
    bare = head.rstrip()
    decorated = bool(m.group("lead").strip()) or bare[-1:] in _DECOR
    return name if bare_any_case or decorated or bare.isupper() else None


def headings(text: str) -> list[Heading]:
    """Every recognised heading of ``text``, in order (see the module docstring)."""
    out = []
    for m in HEADING_LINE.finditer(text):
        name = _heading(m, text)
        if name is not None:
            out.append(Heading(name, m.group("head").strip(), m.start(), m.end()))
    return out


#: A line inside the physical exam that opens the exam at discharge without being a heading:
#: "On discharge, afebrile", "Exam on discharge notable for …", "Discharge exam - VS 98.1".
_DISCHARGE_SENTENCE = re.compile(
    r"^(?:(?:(?:physical )?(?:exam|pe) )?(?:on|at|upon|prior to|at time of|at the time of) discharge"
    r"|discharge (?:physical )?(?:exam|pe))\b"
)


def discharge_exam_start(body: str) -> int | None:
    """Where the exam at discharge starts inside a physical exam's body (None: nowhere).

    The first line that is a discharge heading of any kind (one that opens a ``discharge_…``
    section; a bare one in any case here, since the exam's sub-headers are often plain "Discharge"
    lines), or that opens with a timing phrase ("On discharge, …", "Exam at discharge …") or with
    "discharge exam" / "discharge PE".
    """
    pos = 0
    for line in body.splitlines(keepends=True):
        m = HEADING_LINE.match(line)
        name = _heading(m, line, bare_any_case=True) if m else None
        if name is not None and name.startswith("discharge_"):
            return pos
        words = " ".join(re.sub(r"[^a-z0-9]+", " ", line.lower().replace("examination", "exam")).split())
        if _DISCHARGE_SENTENCE.match(words):
            return pos
        pos += len(line)
    return None
