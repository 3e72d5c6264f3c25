"""CliniBench metrics by hand: macro over a fixed vocabulary, MAP, main-diagnosis accuracy, tertiles."""

from __future__ import annotations

import pytest

from admitdx.metrics.clinibench import average_precision, clinibench_scores, ranked_labels, tertiles

# Labels as the scoring stage hands them over: already rolled up by ontology.icd.roll_up.
GOLD = [["I21", "I10"], ["J18"], ["I21"]]
PRED = [["I21", "J18"], [None, "J18", "J18"], []]


def test_roll_up_dedupe_and_budget() -> None:
    assert ranked_labels(["I21", None, "I21", "J18", "J18"]) == ["I21", "J18"]
    assert ranked_labels(["I21", "J18", "N39"], top_n=2) == ["I21", "J18"]


def test_scores_by_hand() -> None:
    s = clinibench_scores(GOLD, PRED)
    # per label (P, R, F1): I21 (1, 1/2, 2/3), I10 (0, 0, 0), J18 (1/2, 1, 2/3)
    assert s["macro_precision"] == pytest.approx((1 + 0 + 0.5) / 3)
    assert s["macro_recall"] == pytest.approx((0.5 + 0 + 1) / 3)
    assert s["macro_f1"] == pytest.approx((2 / 3 + 0 + 2 / 3) / 3)
    assert s["map"] == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    assert s["main_diagnosis_accuracy"] == pytest.approx(2 / 3)
    assert s["n_labels"] == 3


def test_top_n_and_a_fixed_vocabulary() -> None:
    top1 = clinibench_scores(GOLD, [["J18", "I21"], ["J18"], ["I21"]], top_n=1)
    assert top1["main_diagnosis_accuracy"] == pytest.approx(2 / 3)  # e1's main diagnosis is cut off
    # a vocabulary fixed elsewhere: labels the system predicts outside it change nothing
    fixed = clinibench_scores(GOLD, [["Z99", "I21"], ["J18"], ["I21"]], vocabulary=["I21", "J18", "I10"])
    free = clinibench_scores(GOLD, [["I21"], ["J18"], ["I21"]], vocabulary=["I21", "J18", "I10"])
    assert fixed["macro_precision"] == free["macro_precision"] == pytest.approx(2 / 3)
    assert fixed["map"] < free["map"]  # but the ranking still pays for the wrong code


def test_average_precision_and_empty_cases() -> None:
    assert average_precision(["A", "B"], ["X", "A", "B"]) == pytest.approx((1 / 2 + 2 / 3) / 2)
    empty = clinibench_scores([[]], [["I21"]])
    assert empty["map"] is None and empty["macro_f1"] is None and empty["n_labels"] == 0


def test_tertiles_break_frequency_ties_by_code() -> None:
    groups = tertiles(["I10", "J18", "I21"], {"I21": 5, "J18": 5, "I10": 1})
    assert groups == {"head": ["I21"], "body": ["J18"], "tail": ["I10"]}
    s = clinibench_scores(GOLD, PRED, train_frequencies={"I21": 5, "J18": 5, "I10": 1})
    assert s["tertiles"]["head"]["macro_recall"] == pytest.approx(0.5)
    assert s["tertiles"]["tail"]["macro_f1"] == 0.0


def test_macro_replicates_resample_patients() -> None:
    import numpy as np

    from admitdx.metrics.clinibench import macro_replicates

    # encounters 0 and 2 belong to patient 5, encounter 1 to patient 8
    weights = np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 2.0]])
    reps = macro_replicates(GOLD, PRED, [5, 8, 5], np.array([5, 8]), weights)
    assert reps["clinibench.macro_f1"][0] == pytest.approx(clinibench_scores(GOLD, PRED)["macro_f1"])
    # patient 5 drawn twice: I21 (P 1, R 1/2) and I10 (P 0, R 0); J18 has no gold here and is left out
    assert reps["clinibench.macro_recall"][1] == pytest.approx(0.25)
    assert reps["clinibench.macro_precision"][1] == pytest.approx(0.5)
    # patient 8 drawn twice: only J18 is gold (P 1, R 1)
    assert reps["clinibench.macro_f1"][2] == pytest.approx(1.0)
