"""The shared heading grammar (issue 29): layouts, abbreviations, sentences that are not headings."""

from __future__ import annotations

import pytest

from admitdx.tasks.clinibench.headings import classify, discharge_time_headings
from admitdx.tasks.erreason.release_notes import cut, stops, verdict
from admitdx.tasks.note_headings.grammar import heading_key, heading_lines, run_on_headings


@pytest.mark.parametrize(
    ("written", "key"),
    [
        ("D/C Meds", "discharge medications"),
        ("DC Dx", "discharge diagnosis"),
        ("d/c instructions", "discharge instructions"),
        ("F/U", "followup"),
        ("A&P", "assessment and plan"),
        ("A/P", "assessment and plan"),
        ("Dispo", "disposition"),
        ("HC", "hospital course"),
        ("PE on discharge", "discharge physical exam"),
        ("Prior to Admission Medications", "admission medications"),
        ("Clinical Impression(s)", "clinical impression"),
        ("Clinical Impressions as of 04/12/2023 1521", "clinical impression"),
        ("MDM", "medical decision making"),
        ("Hx", "history"),
    ],
)
def test_abbreviations_are_normalised(written: str, key: str) -> None:
    assert heading_key(written) == key


@pytest.mark.parametrize(
    "line",
    [
        "1. Hospital Course:",
        "II. Discharge Diagnoses",
        "A. Discharge Medications:",
        "3) Follow-up:",
        "• Hospital course:",
        "## Hospital Course",
        "**Discharge Medications:**",
        "=== DISCHARGE EXAM ===",
        "Brief\xa0Hospital\xa0Course:",
        "\tHospital Course:",
        "Discharge exam - VS 98.1",
    ],
)
def test_decorated_and_enumerated_headings_are_found(line: str) -> None:
    found = heading_lines(line + "\nbody", lambda key: True)
    assert [h.start for h in found][:1] == [0]
    assert classify(found[0].key) is not None and classify(found[0].key) not in ("physical_exam",)


def test_an_underline_makes_a_lower_case_line_a_heading() -> None:
    text = "discharge medications\n---------------------\naspirin"
    (h,) = heading_lines(text)
    assert h.key == "discharge medications" and text[h.end :].strip() == "aspirin"
    assert heading_lines("discharge medications\naspirin") == []  # unknown to the grammar alone


@pytest.mark.parametrize(
    "sentence",
    [
        "She was discharged home on ___ after a 3-day course of IV antibiotics",
        "Labs at OSH notable for leukocytosis",
        "1. Furosemide 40 mg PO DAILY (dose from ___ discharge)",
        "Abdomen soft, nontender. Plan was discussed",
    ],
)
def test_a_sentence_is_never_a_heading(sentence: str) -> None:
    assert heading_lines(sentence + "\n") == []


def test_run_on_headings_and_what_each_task_stops_at() -> None:
    keys = [h.key for h in run_on_headings("Abdomen soft. MDM: chest pain. Lymph: none. Course: stable")]
    assert keys == ["medical decision making", "lymph", "course"]
    assert stops("medical decision making") and not stops("course")
    assert not stops(heading_key("Decision-making capacity")) and not stops(heading_key("Clinic impression"))
    assert stops(heading_key("Clinical Impression")) and stops(heading_key("Re-eval"))


@pytest.mark.parametrize(
    ("note", "why"),
    [
        ("HPI: pain.\nPhysical Exam: normal.\nMDM: NSTEMI", "cut_at_mdm"),
        ("I saw and examined the patient.\nMDM: NSTEMI", "no_hpi"),
        ("HPI: pain.\nMDM: NSTEMI", "no_exam"),
        ("HPI: pain.\nExam: normal.", "no_heading"),
        ("", "empty_note"),
    ],
)
def test_er_presentation_left_out_reasons(note: str, why: str) -> None:
    text, reason = verdict(note)
    assert reason == why and (text is None) == (why != "cut_at_mdm")


def test_er_run_on_decision_is_cut() -> None:
    assert cut("HPI: pain.\nExam: Abdomen soft. Assessment: appendicitis") == (
        "HPI: pain.\nExam: Abdomen soft.",
        "assessment",
    )


def test_discharge_time_headings_for_the_leak_audit() -> None:
    rendered = "HPI: cough. PHYSICAL EXAM: GEN: ill DISCHARGE EXAM: GEN: well"
    found = discharge_time_headings(rendered)
    assert [phrase for _span, phrase in found] == ["DISCHARGE EXAM"]
    (start, end), _ = found[0]
    assert rendered[start:end] == "DISCHARGE EXAM:"
    assert discharge_time_headings("GU: no discharge. Breasts: nipple discharge: none") == []
