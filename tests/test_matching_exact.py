"""Normalised exact matcher: oracle cases for abbreviations, word order, case and punctuation."""

from __future__ import annotations

import pytest

from admitdx.matching.base import MatchTask
from admitdx.matching.exact import ExactMatcher
from admitdx.matching.normalize import expand_diagnosis, normalize_diagnosis


def pairs(preds: list[str], refs: list[str], **kw: object) -> list[tuple[int, int]]:
    return ExactMatcher(**kw).match(MatchTask("i", "s", preds, refs)).pairs


@pytest.mark.parametrize(
    ("prediction", "reference"),
    [
        ("CAD", "Coronary artery disease"),
        ("CHF", "congestive heart failure"),
        ("AFib", "Atrial fibrillation"),
        ("A-fib", "atrial fibrillation"),
        ("MI", "Myocardial infarction"),
        ("PE", "Pulmonary embolism"),
        ("UTI", "Urinary tract infection"),
        ("COPD", "Chronic obstructive pulmonary disease"),
        ("DKA", "Diabetic ketoacidosis"),
        ("AKI", "Acute kidney injury"),
        ("GI bleed", "Gastrointestinal hemorrhage, unspecified"),
        ("NSTEMI", "Non-ST elevation (NSTEMI) myocardial infarction"),
        ("Fracture of hip", "Hip fracture"),
        ("HIP  FRACTURE.", "hip fracture"),
        ("Subarachnoid haemorrhage", "Subarachnoid hemorrhage"),
        ("SEPTICEMIA NOS", "Septicemia"),
        ("Pneumonia, unspecified organism", "pneumonia organism"),
    ],
)
def test_equal_after_normalisation_matches(prediction: str, reference: str) -> None:
    assert pairs([prediction], [reference]) == [(0, 0)]


@pytest.mark.parametrize(
    ("prediction", "reference"),
    [
        ("heart attack", "Acute myocardial infarction"),  # semantic, not spelling: not exact
        ("atrial fibrillation", "atrial flutter"),
        ("acute MI", "MI"),  # an extra qualifier is a different string
        ("cardiac arrest", "CAD"),
        ("", ""),  # an empty string never matches
        ("ARF", "acute renal failure"),  # ambiguous abbreviation deliberately not expanded
    ],
)
def test_different_conditions_do_not_match(prediction: str, reference: str) -> None:
    assert pairs([prediction], [reference]) == []


def test_abbreviation_is_not_expanded_inside_a_word() -> None:
    assert normalize_diagnosis("Pemphigus") == "pemphigus"  # "pe" inside a word stays
    assert normalize_diagnosis("MIgraine") == "migraine"


def test_qualifiers_kept_when_asked() -> None:
    assert pairs(["Pneumonia, unspecified"], ["Pneumonia"], drop_qualifiers=False) == []
    assert pairs(["Pneumonia, unspecified"], ["Pneumonia"]) == [(0, 0)]


def test_duplicates_are_one_to_one_and_the_earlier_prediction_wins() -> None:
    # Two spellings of CHF for one CHF reference: one pair, from the first-ranked prediction.
    assert pairs(["pneumonia", "CHF", "congestive heart failure"], ["Congestive heart failure", "UTI"]) == [
        (1, 0)
    ]
    # Two equal references, three equal predictions: two pairs, the first two predictions.
    assert pairs(["AKI", "aki", "AKI"], ["Acute kidney injury", "acute kidney injury"]) == [(0, 0), (1, 1)]


def test_empty_sides_give_no_pairs() -> None:
    assert pairs([], ["CHF"]) == []
    assert pairs(["CHF"], []) == []


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Oesophageal varices", "esophageal varices"),
        ("gastro-oesophageal reflux", "gastro esophageal reflux"),
        ("lymphoedema", "lymphedema"),
        # American words that hold a British stem stay as they are
        ("Angioedema", "angioedema"),
        ("Gastroesophageal reflux", "gastroesophageal reflux"),
        ("Tracheoesophageal fistula", "tracheoesophageal fistula"),
    ],
)
def test_british_stems_are_read_only_where_they_are_british(text: str, read: str) -> None:
    assert expand_diagnosis(text) == read
