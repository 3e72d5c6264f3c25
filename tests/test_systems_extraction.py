"""Extraction: finds titles written in the evidence, never ones that are absent."""

from __future__ import annotations

import pytest

from admitdx.errors import UsageError
from admitdx.systems import create
from systems_data import instance

TRAIN = [
    instance("t1", "train", "x", ["Aspiration pneumonia", "PNEUMONIA,ORGANISM UNSPECIFIED"]),
    instance("t2", "train", "x", ["Hypokalemia", "Sepsis, unspecified organism"]),
    instance("t3", "train", "x", ["Essential (primary) hypertension"]),
]


def extract(text: str, **options) -> list[str]:
    system = create("extraction", sources=("train", "synonyms"), **options)
    system.fit(TRAIN)
    (p,) = system.predict([instance("q", "test", text, [])])
    return [i.text for i in p.items]


def test_a_planted_title_is_found_and_absent_ones_are_not() -> None:
    assert extract("Labs notable for hypokalemia (K 2.9).") == ["Hypokalemia"]
    assert extract("K 2.9, lactate 4, BP 80/40") == []  # hypokalemia and sepsis implied, never written


def test_longest_title_wins_and_qualifiers_are_not_needed_in_the_text() -> None:
    # "aspiration pneumonia" swallows "pneumonia"; "hypertension" alone is not a title, but
    # "essential hypertension" is the training title without its parenthesis.
    assert extract("CXR: aspiration pneumonia. PMH essential hypertension") == [
        "Aspiration pneumonia",
        "Essential (primary) hypertension",
    ]
    assert extract("CXR c/w pneumonia; sepsis") == [
        "PNEUMONIA,ORGANISM UNSPECIFIED",
        "Sepsis, unspecified organism",
    ]


def test_synonyms_name_their_title_and_are_ranked_after_training_titles() -> None:
    # training titles first; then synonyms, the two-word "a fib" before the one-word "htn"
    assert extract("hx HTN, A-fib, now hypokalemia") == ["Hypokalemia", "Atrial fibrillation", "Hypertension"]


def test_sections_limit_the_evidence_read() -> None:
    system = create("extraction", sources=("train",), sections=["chief_complaint"])
    system.fit(TRAIN)
    inst = instance("q", "test", "ignored", [])
    inst.sections["chief_complaint"] = "weakness"
    object.__setattr__(inst, "text", "hypokalemia")  # the serialized text says it; the section does not
    assert next(iter(system.predict([inst]))).items == []


def test_icd_dictionary_titles_are_found_without_their_qualifiers() -> None:
    system = create("extraction", sources=("icd",))
    system.fit([])
    text = "Chief complaint: fever. Exam: cellulitis of left lower limb"
    (p,) = system.predict([instance("q", "test", text, [])])
    # the longest title at "cellulitis" is ICD-10 L03.116's, so the bare "Cellulitis" is not added;
    # "fever" is "Fever, unspecified" (R50.9) without its qualifier. Both sources spell it identically
    # in several codes: the first title listed names it.
    assert [i.text for i in p.items] == ["Cellulitis of left lower limb", "Fever, unspecified"]


def test_unknown_source_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown extraction source"):
        create("extraction", sources=("umls",))
