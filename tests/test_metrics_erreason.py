"""ER-Reason metrics by hand: accuracy and confusion, ROUGE, concept recall, ICD match levels."""

from __future__ import annotations

import pytest

from admitdx.metrics.erreason import (
    LevelOptions,
    accuracy_and_confusion,
    concept_recall,
    icd_match,
    icd_match_rates,
    rouge_f1,
)


def test_accuracy_and_confusion_keep_unparseable_answers_visible() -> None:
    out = accuracy_and_confusion([1, 2, 2, 3], [1, 2, 3, None])
    assert out["accuracy"] == 0.5
    assert out["labels"] == [1, 2, 3] and out["predicted_labels"] == [1, 2, 3, None]
    assert out["confusion"] == [[1, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 1]]


def test_rouge() -> None:
    same = rouge_f1(["chest pain radiating to the arm"], ["chest pain radiating to the arm"])
    assert same == {"rouge1_f1": 1.0, "rouge2_f1": 1.0, "rougeL_f1": 1.0}
    half = rouge_f1(["the cat"], ["the dog"])
    assert half["rouge1_f1"] == pytest.approx(0.5) and half["rouge2_f1"] == 0.0


def test_concept_recall() -> None:
    assert concept_recall({"C1", "C2", "C9"}, {"C1", "C2", "C3", "C4"}) == 0.5
    assert concept_recall({"C1"}, set()) is None


def test_icd_match_levels() -> None:
    assert icd_match("I21.4", "I214") == {"exact": True, "category3": True, "ccsr": True, "hcc": True}
    assert icd_match("I219", "I214") == {"exact": False, "category3": True, "ccsr": True, "hcc": True}
    assert icd_match("E1165", "E119")["ccsr"] is False  # category 1: END005 vs END002
    # V22 (the default, issue 19): diabetes with complications HCC 18 vs without HCC 19; V28 merges them
    assert icd_match("E1165", "E119")["hcc"] is False
    assert icd_match("E1165", "E119", options=LevelOptions(hcc_model="V28"))["hcc"] is True
    assert not any(icd_match("J189", "I214").values())
    assert not any(icd_match(None, "I214").values())
    rates = icd_match_rates(["I214", "I219", None, "J189"], ["I214", "I214", "I214", "I214"])
    assert {k: rates[k] for k in ("exact", "category3", "ccsr", "hcc")} == {
        "exact": 0.25,
        "category3": 0.5,
        "ccsr": 0.5,
        "hcc": 0.5,
    }
