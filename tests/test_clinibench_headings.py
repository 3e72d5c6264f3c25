"""CliniBench's heading detector (issue 20) on heading spellings from outside admitdx.

``tests/data/clinibench_headings.csv`` lists each spelling, the section it must open (empty: not a
heading, the text stays in the section it sits in) and where it comes from:

* ``template``: the MIMIC-IV-Note discharge-summary template, ``shared/docs/mimic-iv-schema.md``
  §4.4 (the headers of PhysioNet's MIMIC-IV-Note v2.2 discharge notes);
* ``van-aken-mimic``: van Aken et al. (2021), github.com/bvanaken/clinical-outcome-prediction,
  ``tasks/adm_dis_match_mimic/adm_dis_match_mimic.py`` (their section headings of MIMIC discharge
  summaries: "allergy:", "physical examination:", "discharge medication:", "discharge
  diagnoses:", and the "MAJOR SURGICAL / INVASIVE PROCEDURE" rendering);
* ``van-aken-headings``: the same repository, ``tasks/adm_dis_match_mtsamples/
  discharge_headings.txt`` and ``admission_headings.txt`` (headings of real clinical notes they
  sorted into admission and discharge);
* ``deid``: MIMIC's de-identification replacing a heading word with ``___``, as the MIMIC-CDM
  builder matches it (schema doc §4.4: ``___ diagnosis:``, ``physical ___:``);
* ``written``: variants written for this test, among them the issue's failures
  (``DISCHARGE PHYSICAL EXAMINATION:``, ``PE on discharge:``, ``*DISCHARGE EXAM*``).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from admitdx.tasks.clinibench.headings import classify, heading_key
from admitdx.tasks.clinibench.note import admission_exam, admission_note, sections
from admitdx.tasks.clinibench.params import SECTION_NAMES

with (Path(__file__).parent / "data" / "clinibench_headings.csv").open(newline="", encoding="utf-8") as f:
    ROWS = [(r["spelling"], r["section"] or None, r["source"]) for r in csv.DictReader(f)]
DISCHARGE_EXAM = [s for s, name, _ in ROWS if name == "discharge_exam"]
LEAKS = [(s, name) for s, name, _ in ROWS if name and name not in SECTION_NAMES]


def test_the_fixture_has_forty_spellings_from_every_source() -> None:
    assert len(ROWS) >= 40 and len(DISCHARGE_EXAM) >= 15
    assert {src for *_, src in ROWS} >= {"template", "van-aken-mimic", "van-aken-headings", "deid", "written"}


@pytest.mark.parametrize(("spelling", "section", "source"), ROWS)
def test_each_spelling_opens_its_section_in_a_note(spelling: str, section: str | None, source: str) -> None:
    """The key names the section, and the spelling on a line of its own opens it in a note (or,
    when it names none, stays inside the section before it)."""
    assert classify(heading_key(spelling)) == section
    note = f"Chief Complaint:\ncough\n \n{spelling}\nBODY TEXT\n \nAllergies:\nNKDA\n"
    found = [(s.name, s.body) for s in sections(note)]
    if section is None:
        assert found == [("chief_complaint", f"cough\n \n{spelling}\nBODY TEXT"), ("allergies", "NKDA")]
    else:
        assert found == [("chief_complaint", "cough"), (section, "BODY TEXT"), ("allergies", "NKDA")]


@pytest.mark.parametrize("spelling", DISCHARGE_EXAM)
def test_every_discharge_exam_spelling_is_cut_and_counted(spelling: str) -> None:
    note = (
        "Chief Complaint:\ncough\n \nPhysical Exam:\nADMISSION PHYSICAL EXAM:\nGEN: febrile, ill\n \n"
        f"{spelling}\nGEN: afebrile, LEAKED\n \nPertinent Results:\nWBC 12\n"
    )
    cut = admission_note(note)
    assert cut.sections["physical_exam"] == "GEN: febrile, ill"
    assert "LEAKED" not in cut.text and cut.discharge_exam_cut
    whole = admission_note(note, physical_exam="whole")  # the ablation keeps it, uncounted
    assert "LEAKED" in whole.sections["physical_exam"] and not whole.discharge_exam_cut


@pytest.mark.parametrize(("spelling", "section"), LEAKS)
def test_every_leaking_heading_ends_the_admission_sections(spelling: str, section: str) -> None:
    note = f"Chief Complaint:\ncough\n \nMedications on Admission:\n1. aspirin\n \n{spelling}\nLEAKED\n"
    cut = admission_note(note)
    assert cut.sections["medications_on_admission"] == "1. aspirin" and "LEAKED" not in cut.text


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # sentences and sub-headers in the exam without a heading of their own (written)
        ("GEN: ill\nDischarge exam notable for clear lungs", "GEN: ill"),
        ("GEN: ill\non discharge, lungs clear", "GEN: ill"),
        ("GEN: ill\n*Discharge exam*\nlungs clear", "GEN: ill"),
        ("GEN: ill\nDischarge\nlungs clear", "GEN: ill"),
        ("GEN: ill\nPhysical examination at the time of discharge notable for clear lungs", "GEN: ill"),
        # findings that mention discharge are not sub-headers
        ("GEN: ill\nEAR: discharge from left ear\nDischarge from wound: none", None),
        ("GEN: ill\nGU: no discharge", None),
    ],
)
def test_discharge_exam_inside_the_exam_without_a_heading(body: str, expected: str | None) -> None:
    assert admission_exam(body).strip() == (body if expected is None else expected)


def test_procedures_section_kept_by_default_and_dropped_on_request() -> None:
    note = "Chief Complaint:\ncough\n \nMajor Surgical or Invasive Procedure:\nIntubation\n"
    assert admission_note(note).sections["major_surgical_or_invasive_procedure"] == "Intubation"
    keep = tuple(s for s in SECTION_NAMES if s != "major_surgical_or_invasive_procedure")
    dropped = admission_note(note, keep)
    assert "major_surgical_or_invasive_procedure" not in dropped.sections
    assert "Intubation" not in dropped.text
