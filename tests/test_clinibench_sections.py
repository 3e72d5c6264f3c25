"""CliniBench's admission note (§3.1) on hand-written discharge summaries: which text is kept, in
which section, and what is cut; and EarlyDx's past-history reader, unchanged by CliniBench's
heading detector."""

from __future__ import annotations

import random
import re

import pytest

from admitdx.tasks.clinibench.note import admission_exam, admission_note, sections
from admitdx.tasks.earlydx.prior_history import extract_past_medical_history

# MIMIC style: "~" stands for the lone space of MIMIC's blank lines and header lines.
NOTE = """~
Name:  ___                     Unit No:   ___
~
Admission Date:  ___              Discharge Date:   ___
~
Date of Birth:  ___             Sex:   F
~
Service: MEDICINE
~
Allergies:~
Penicillins
~
Attending: ___.
~
chief   COMPLAINT :
Shortness of breath
~
Major Surgical or Invasive Procedure:
None
~
  HISTORY OF PRESENT ILLNESS:
Ms. ___ presents with three days of dyspnea.
Past Surgical History: appendectomy (stays inside HPI: not a known header)
~
Past Medical History:
- COPD
~
Social History:
___
Family History:
Mother with asthma
~
Physical Exam:
ADMISSION PHYSICAL EXAM:
GEN: tachypneic
LUNGS: diffuse wheeze
~
DISCHARGE PHYSICAL EXAM:
GEN: comfortable, pneumonia resolving
~
Pertinent Results:
CXR: right lower lobe pneumonia
~
Brief Hospital Course:
# Community acquired pneumonia treated with ceftriaxone
~
Medications on Admission:
1. tiotropium
~
Discharge Medications:
1. tiotropium 2. cefpodoxime for pneumonia
~
Discharge Disposition:
Home
~
Discharge Diagnosis:
Community acquired pneumonia
~
Discharge Condition:
Stable
~
Discharge Instructions:
You were treated for pneumonia.
~
Followup Instructions:
___
""".replace("~", " ")


def test_sections_kept_in_order_with_odd_case_and_spacing() -> None:
    note = admission_note(NOTE)
    assert note.text.splitlines() == [
        "CHIEF COMPLAINT: Shortness of breath",
        "MAJOR SURGICAL OR INVASIVE PROCEDURE: None",
        "ALLERGIES: Penicillins",
        "HISTORY OF PRESENT ILLNESS: Ms. ___ presents with three days of dyspnea. Past Surgical History: "
        "appendectomy (stays inside HPI: not a known header)",
        "PAST MEDICAL HISTORY: - COPD",
        "SOCIAL HISTORY: ___",
        "FAMILY HISTORY: Mother with asthma",
        "PHYSICAL EXAM: GEN: tachypneic LUNGS: diffuse wheeze",
        "MEDICATIONS ON ADMISSION: 1. tiotropium",
    ]


def test_leakage_and_administrative_fields_are_dropped() -> None:
    text = admission_note(NOTE).text.lower()
    for leaked in ("pneumonia", "ceftriaxone", "cefpodoxime", "comfortable", "home", "stable", "medicine"):
        assert leaked not in text, leaked
    assert "attending" not in text and "sex" not in text and "unit no" not in text


def test_medications_on_admission_is_not_discharge_medications() -> None:
    sections = admission_note(NOTE).sections
    assert sections["medications_on_admission"] == "1. tiotropium"
    swapped = NOTE.replace("Medications on Admission:\n1. tiotropium\n \n", "")
    assert admission_note(swapped).sections["medications_on_admission"] is None


def test_missing_section_is_none_and_neighbours_unaffected() -> None:
    without = NOTE.replace("Family History:\nMother with asthma\n", "")
    sections = admission_note(without).sections
    assert sections["family_history"] is None
    assert sections["social_history"] == "___"
    assert sections["physical_exam"] == "GEN: tachypneic LUNGS: diffuse wheeze"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("ADMISSION PHYSICAL EXAM:\nGEN: ill\nDISCHARGE PHYSICAL EXAM:\nGEN: well", "GEN: ill"),
        ("Admission exam:\nHR 110\n\nDischarge exam:\nHR 70", "HR 110"),
        ("ON ADMISSION:\nfebrile\nON DISCHARGE:\nafebrile", "febrile"),
        ("Vitals: T 38.5\nPhysical exam on discharge:\nT 36.8", "Vitals: T 38.5"),
        ("Admission:\nrales\nDischarge:\nclear", "rales"),
        ("GEN: no sub-headers at all", "GEN: no sub-headers at all"),
        ("DISCHARGE PHYSICAL EXAM:\nonly the discharge exam", ""),
        # a finding that mentions discharge inside a line is not a sub-header
        ("GEN: alert\nGU: no discharge from urethra", "GEN: alert\nGU: no discharge from urethra"),
    ],
)
def test_physical_exam_at_admission_only(body: str, expected: str) -> None:
    assert admission_exam(body).strip() == expected


def test_whole_physical_exam_keeps_the_discharge_exam() -> None:
    assert "pneumonia resolving" in admission_note(NOTE, physical_exam="whole").sections["physical_exam"]


def test_empty_core_and_no_header() -> None:
    empty = "Allergies:\nNone\n \nPhysical Exam:\nnormal\n"
    note = admission_note(empty)
    assert note.core_empty and note.headers_found == 2
    assert admission_note("just a sentence: without any known header").headers_found == 0
    assert not admission_note(NOTE).core_empty


def test_header_mid_line_is_not_a_header() -> None:
    note = admission_note("Chief Complaint:\nfever, past medical history: none given\nAllergies:\nNKDA")
    assert note.sections["chief_complaint"] == "fever, past medical history: none given"
    assert note.sections["past_medical_history"] is None


def test_splitter_is_van_aken_recognised_headings_only() -> None:
    found = sections("ALLERGIES:\none\nUnknown Header:\nstill allergies\n  Social   History :\ntwo")
    assert [(s.name, s.body) for s in found] == [
        ("allergies", "one\nUnknown Header:\nstill allergies"),
        ("social_history", "two"),
    ]


# EarlyDx's reader as it was before the shared splitter: the oracle the shared one must reproduce.
_EARLYDX_REGEX = re.compile(
    r"past medical history:\s*(.*?)"
    r"(?:\n\s*\n\s*[A-Z][A-Za-z /&()-]{2,40}:"
    r"|\n\s*(?:social history|family history|physical exam|past surgical history|medications on admission"
    r"|allergies|brief hospital course):"
    r"|\Z)",
    re.S | re.I,
)


def _earlydx_before(note: str, max_chars: int) -> str | None:
    m = _EARLYDX_REGEX.search(note)
    if not m:
        return None
    return re.sub(r"\s+", " ", m.group(1)).strip()[:max_chars] or None


def test_earlydx_past_history_unchanged_by_the_shared_splitter() -> None:
    pieces = [
        "Past Medical History:",
        "past medical history:",
        " ",
        "\n",
        "\n \n",
        "\t",
        "\r\n",
        "HTN",
        "- CAD",
        "Social History:",
        "Allergies:",
        "Physical Exam:",
        "Foo Bar:",
        "x: y",
        "no past medical history: none",
        "Past Surgical History:",
        "ADMISSION EXAM:",
        "Brief Hospital Course:",
    ]
    rng = random.Random(0)
    for _ in range(20000):
        note = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        assert extract_past_medical_history(note, 400) == _earlydx_before(note, 400), repr(note)
    assert _earlydx_before(NOTE, 400) == extract_past_medical_history(NOTE, 400) == "- COPD"
