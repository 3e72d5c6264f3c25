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
def _results(version: int, systems: dict[str, tuple[float, ...]], map_ci=None, bin_ci=None) -> dict:
    def entry(name: str, v: tuple[float, ...]) -> dict:
        p, r, f, ap, md, head, tail, short = v
        tertiles = {"head": {"macro_f1": head}, "body": {"macro_f1": None}, "tail": {"macro_f1": tail}}
        bins = [{"micro_f1": short, "ci": {"micro_f1": bin_ci}}, {"micro_f1": None, "ci": {"micro_f1": None}}]
        return {"name": name, "metrics": {"clinibench.map": {"value": ap, "ci": map_ci}}, "clinibench": {
            "macro_precision": p, "macro_recall": r, "macro_f1": f, "map": ap, "main_diagnosis_accuracy": md,
            "tertiles": tertiles, "length_bins": bins}}  # fmt: skip

    return {"suite": "clinibench", "dataset": f"hosp-icd{version}", "icd_versions": [version],
            "n_instances": 100 * version, "systems": [entry(n, v) for n, v in systems.items()]}  # fmt: skip


def test_version_mean_is_unweighted_per_system(tmp_path) -> None:
    import json

    from admitdx.errors import UsageError
    from admitdx.scoring.suites.clinibench import attach_version_mean, version_mean

    icd9 = _results(
        9, {"tfidf": (0.2, 0.4, 0.3, 0.5, 0.8, 0.6, 0.1, 0.5), "only9": (0,) * 8}, [0.4, 0.62], [0.4, 0.6]
    )
    icd10 = _results(10, {"tfidf": (0.4, 0.2, 0.2, 0.3, 0.6, 0.4, 0.0, 0.3)}, [0.27, 0.34], [0.3, 0.3])
    mean = version_mean(icd9, icd10)
    # 900 and 1000 encounters, but each dataset counts once (table 2)
    assert mean["icd_versions"] == [9, 10] and mean["left_out"] == ["only9"]
    got = mean["systems"]["tfidf"]
    assert [
        got[k] for k in ("macro_precision", "macro_recall", "macro_f1", "map", "main_diagnosis_accuracy")
    ] == (pytest.approx([0.3, 0.3, 0.25, 0.4, 0.7]))
    assert got["tertile_f1"] == pytest.approx({"head": 0.5, "body": None, "tail": 0.05})
    assert got["length_bin_micro_f1"] == pytest.approx([0.4, None])
    # independent datasets: half-widths in quadrature, halved (0.1 and 0.03 below, 0.12 and 0.04 above)
    assert got["ci"]["map"] == pytest.approx([0.4 - (0.1**2 + 0.03**2) ** 0.5 / 2, 0.4 + 0.016**0.5 / 2])
    assert got["ci"]["macro_f1"] is None  # no interval in either run: none for the mean
    assert got["length_bin_micro_f1_ci"][0] == pytest.approx([0.4 - 0.05, 0.4 + 0.05])
    assert got["length_bin_micro_f1_ci"][1] is None
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


# ---------------------------------------------------------------- intervals: BCa, jackknife, length bins
def test_macro_jackknife_leaves_each_patient_out() -> None:
    """Each leave-one-out value equals the scores of the other patients' encounters alone."""
    import numpy as np

    from admitdx.metrics.clinibench import macro_jackknife

    jack = macro_jackknife(GOLD, PRED, [5, 8, 5], np.array([5, 8]), block=1)
    without_5 = clinibench_scores([GOLD[1]], [PRED[1]])
    without_8 = clinibench_scores([GOLD[0], GOLD[2]], [PRED[0], PRED[2]])
    for key in ("macro_precision", "macro_recall", "macro_f1"):
        assert jack[f"clinibench.{key}"] == pytest.approx([without_5[key], without_8[key]])


def test_acceleration_is_the_skewness_formula_for_a_mean() -> None:
    """For the mean, leave-one-out values are x̄ − (xᵢ − x̄)/(n − 1), so the acceleration reduces to
    Σ(xᵢ − x̄)³ / (6 (Σ(xᵢ − x̄)²)^1.5) (Efron & Tibshirani 1993, eq. 14.15)."""
    import numpy as np

    from admitdx.metrics.bca import acceleration, bca_interval

    x = np.array([0.1, 0.2, 0.2, 0.3, 0.9, 1.5])
    loo = (x.sum() - x) / (len(x) - 1)
    d = x - x.mean()
    assert acceleration(loo) == pytest.approx(np.sum(d**3) / (6 * np.sum(d**2) ** 1.5))
    # replicates symmetric about the point, no acceleration: BCa is the percentile interval
    reps = np.linspace(-1.0, 1.0, 2001)
    lo, hi = bca_interval(reps, 0.0, np.zeros(5), 0.95)
    assert (lo, hi) == pytest.approx((np.percentile(reps, 2.5), np.percentile(reps, 97.5)))


def _leaning(common: int, hits: int) -> tuple[list[list[str]], list[list[str]]]:
    """28 notes, each with the ``common`` labels the system always names and two rare labels of
    its own, one of which it names for the first ``hits`` notes."""
    gold = [[f"C{k}" for k in range(common)] + [f"R{i:02d}a", f"R{i:02d}b"] for i in range(28)]
    pred = [[f"C{k}" for k in range(common)] + ([f"R{i:02d}a"] if i < hits else []) for i in range(28)]
    return gold, pred


def test_bca_covers_the_point_where_macro_replicates_lean_upward() -> None:
    """A replicate that misses a rare label drops it from the macro mean, and rare labels are the
    ones a system misses, so macro replicates of a small split sit above the point (the issue: 95 %
    at or above on 28 notes). BCa moves the interval down to the point; where nearly every
    replicate is above it, BCa cannot reach below the replicates either, and the mark says so."""
    import numpy as np

    from admitdx.metrics import bootstrap
    from admitdx.metrics.bca import bca_interval, one_sided
    from admitdx.metrics.clinibench import macro_jackknife, macro_replicates

    subjects, order = list(range(28)), np.arange(28)
    weights = bootstrap.resample_weights(28, 1000, bootstrap.SEED)

    def intervals(gold, pred):
        point = clinibench_scores(gold, pred)["macro_f1"]
        reps = macro_replicates(gold, pred, subjects, order, weights)["clinibench.macro_f1"]
        jack = macro_jackknife(gold, pred, subjects, order)["clinibench.macro_f1"]
        return point, reps, bootstrap.intervals({"f1": reps})["f1"], bca_interval(reps, point, jack, 0.95)

    point, reps, percentile, bca = intervals(*_leaning(4, 2))
    assert point == pytest.approx((4 + 2) / (4 + 56))  # F1 1 for the C labels and two rare ones, else 0
    assert np.mean(reps >= point) > 0.95
    assert percentile[0] <= point and point - percentile[0] < 0.2 * (percentile[1] - point)
    assert bca[0] < point < bca[1] < percentile[1]
    assert one_sided(reps, point, 0.95) is False
    point, reps, percentile, bca = intervals(*_leaning(1, 0))
    assert np.all(reps > point) and percentile[0] > point  # the percentile interval misses the point
    assert one_sided(reps, point, 0.95) is True


def test_length_bin_replicates_by_hand() -> None:
    """Replicate 0 draws every patient once (the point values); replicate 1 draws patient 0 (notes
    0 and 1) twice: bin ≤ 20 holds note 0 twice, A of A/B → P 1, R 1/2; bin 21–50 holds note 1
    twice, A/B for gold A → P 1/2, R 1; bin > 50 is empty there (undefined)."""
    import numpy as np

    from admitdx.metrics.clinibench import length_bin_replicates, length_edges, micro_by_length

    edges = length_edges(BIN_LENGTHS)
    subjects = [0, 0, 1, 2, 2, 3]
    weights = np.array([[1.0, 1.0, 1.0, 1.0], [2.0, 0.0, 0.0, 0.0]])
    reps = length_bin_replicates(BIN_GOLD, BIN_PRED, BIN_LENGTHS, edges, subjects, np.arange(4), weights)
    point = micro_by_length(BIN_GOLD, BIN_PRED, BIN_LENGTHS, edges)
    for b, entry in enumerate(point):
        for key in ("micro_precision", "micro_recall", "micro_f1"):
            assert reps[b][key][0] == pytest.approx(entry[key])
    assert (reps[0]["micro_precision"][1], reps[0]["micro_recall"][1]) == pytest.approx((1.0, 0.5))
    assert (reps[1]["micro_precision"][1], reps[1]["micro_recall"][1]) == pytest.approx((0.5, 1.0))
    assert np.isnan(reps[2]["micro_f1"][1]) and np.isnan(reps[2]["micro_precision"][1])
