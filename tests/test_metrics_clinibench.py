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


# ---------------------------------------------------------------- figure 5: micro-F1 by input length
BIN_GOLD = [["A", "B"], ["A"], ["C"], ["B", "C"], ["A", "C"], ["B"]]
BIN_PRED = [["A"], ["A", "B"], ["C", "A"], ["B", "Z"], [], ["B", "A"]]  # Z: in no gold list
BIN_LENGTHS = [10, 50, 20, 90, 50, 30]


def test_length_tertiles_by_hand() -> None:
    from admitdx.metrics.clinibench import length_bin_labels, length_edges, micro_by_length

    # sorted 10 20 30 50 50 90: the 2nd and 4th lengths end the first two thirds
    edges = length_edges(BIN_LENGTHS)
    assert edges == [20, 50]
    assert length_bin_labels(edges) == ["≤ 20", "21–50", "> 50"]
    bins = micro_by_length(BIN_GOLD, BIN_PRED, BIN_LENGTHS, edges)
    assert [b["n"] for b in bins] == [2, 3, 1]
    # ≤ 20: notes 0, 2 → tp 1+1, predicted 1+2, gold 2+1: P 2/3, R 2/3, F1 4/6
    # 21–50: notes 1, 4, 5 → tp 1+0+1, predicted 2+0+2, gold 1+2+1: 1/2 each
    # > 50: note 3 → tp 1, predicted 1 (Z is outside the vocabulary), gold 2: P 1, R 1/2, F1 2/3
    assert [b["micro_precision"] for b in bins] == pytest.approx([2 / 3, 1 / 2, 1.0])
    assert [b["micro_recall"] for b in bins] == pytest.approx([2 / 3, 1 / 2, 1 / 2])
    assert [b["micro_f1"] for b in bins] == pytest.approx([2 / 3, 1 / 2, 2 / 3])


def test_fixed_length_edges_and_empty_bins() -> None:
    from admitdx.errors import UsageError
    from admitdx.metrics.clinibench import length_edges, micro_by_length

    bins = micro_by_length(BIN_GOLD, BIN_PRED, BIN_LENGTHS, length_edges(BIN_LENGTHS, (25, 100)))
    assert [(b["label"], b["n"]) for b in bins] == [("≤ 25", 2), ("26–100", 4), ("> 100", 0)]
    # 26–100: notes 1, 3, 4, 5 → tp 3, predicted 5, gold 6: F1 = 2·3 / (5 + 6)
    assert bins[1]["micro_f1"] == pytest.approx(6 / 11)
    assert bins[2]["micro_f1"] is None and bins[2]["micro_precision"] is None
    assert length_edges([7, 7, 7]) == [7]  # equal tertile edges merge
    with pytest.raises(UsageError, match="ascending"):
        length_edges(BIN_LENGTHS, (850, 512))
    with pytest.raises(UsageError, match="tertiles"):
        length_edges(BIN_LENGTHS, "quartiles")


# ---------------------------------------------------------------- table 2: the ICD-9 / ICD-10 mean
def _results(version: int, systems: dict[str, tuple[float, ...]]) -> dict:
    def entry(name: str, v: tuple[float, ...]) -> dict:
        p, r, f, ap, md, head, tail, short = v
        tertiles = {"head": {"macro_f1": head}, "body": {"macro_f1": None}, "tail": {"macro_f1": tail}}
        return {"name": name, "clinibench": {
            "macro_precision": p, "macro_recall": r, "macro_f1": f, "map": ap, "main_diagnosis_accuracy": md,
            "tertiles": tertiles, "length_bins": [{"micro_f1": short}, {"micro_f1": None}]}}  # fmt: skip

    return {"suite": "clinibench", "dataset": f"hosp-icd{version}", "icd_versions": [version],
            "n_instances": 100 * version, "systems": [entry(n, v) for n, v in systems.items()]}  # fmt: skip


def test_version_mean_is_unweighted_per_system(tmp_path) -> None:
    import json

    from admitdx.errors import UsageError
    from admitdx.scoring.suites.clinibench import attach_version_mean, version_mean

    icd9 = _results(9, {"tfidf": (0.2, 0.4, 0.3, 0.5, 0.8, 0.6, 0.1, 0.5), "only9": (0,) * 8})
    icd10 = _results(10, {"tfidf": (0.4, 0.2, 0.2, 0.3, 0.6, 0.4, 0.0, 0.3)})
    mean = version_mean(icd9, icd10)
    # 900 and 1000 encounters, but each dataset counts once (table 2)
    assert mean["icd_versions"] == [9, 10] and mean["left_out"] == ["only9"]
    got = mean["systems"]["tfidf"]
    assert [
        got[k] for k in ("macro_precision", "macro_recall", "macro_f1", "map", "main_diagnosis_accuracy")
    ] == (pytest.approx([0.3, 0.3, 0.25, 0.4, 0.7]))
    assert got["tertile_f1"] == pytest.approx({"head": 0.5, "body": None, "tail": 0.05})
    assert got["length_bin_micro_f1"] == pytest.approx([0.4, None])
    with pytest.raises(UsageError, match="one run on an ICD-9 and one on an ICD-10"):
        version_mean(icd10, icd10)
    for name, results in (("r9", icd9), ("r10", icd10)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(json.dumps(results))
    attach_version_mean(tmp_path / "r10", tmp_path / "r9")
    written = json.loads((tmp_path / "r10" / "results.json").read_text())["version_mean"]
    assert written["icd_versions"] == [10, 9] and written["systems"]["tfidf"]["map"] == pytest.approx(0.4)


def test_length_bins_option_is_checked_before_scoring() -> None:
    from admitdx.errors import UsageError
    from admitdx.metrics.clinibench import parse_length_bins

    assert parse_length_bins("tertiles") == "tertiles"
    assert parse_length_bins(" 512,850 ") == (512, 850)
    for bad in ("850,512", "512,x", "quartiles", "-1"):
        with pytest.raises(UsageError):
            parse_length_bins(bad)


def test_answer_statistics_count_unreadable_and_missing_answers_as_invalid() -> None:
    from admitdx.scoring.suites.clinibench import answer_statistics

    records = [
        {"valid_answer": True, "distinct_codes": 4},
        {"valid_answer": True, "distinct_codes": 1},
        {"valid_answer": False, "distinct_codes": 0},  # unparseable JSON
        {"valid_answer": False, "distinct_codes": 0},  # no prediction
    ]
    assert answer_statistics(records) == {"n_answers": 4, "valid_rate": 0.5, "mean_distinct_codes": 2.5}
    assert answer_statistics([])["valid_rate"] is None
