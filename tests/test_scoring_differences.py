"""differences.json: each system's difference with the run's highest-scoring system per headline
metric, its interval from the paired replicates (the same resampled patients for both systems, so
a difference that two overlapping intervals hide is found), and a mark only where it excludes 0."""

from __future__ import annotations

import numpy as np

from admitdx.scoring.differences import differences


def entry(name: str, value: float | None) -> dict:
    return {"name": name, "metrics": {"acc": {"value": value}} if value is not None else {}}


def test_a_paired_difference_is_found_where_the_two_intervals_overlap() -> None:
    rng = np.random.default_rng(0)
    shared = rng.normal(0.6, 0.1, 1000)  # patient-to-patient spread, the same draw for both systems
    replicates = {
        "a": {"acc": shared},
        "b": {"acc": shared - 0.02 + rng.normal(0, 0.005, 1000)},  # always a little worse
        "c": {"acc": shared + rng.normal(0, 0.05, 1000)},  # as good, noisier
    }
    systems = [entry("a", 0.6), entry("b", 0.58), entry("c", 0.59), entry("d", None)]
    out = differences(systems, replicates, ["acc", "absent"], 0.95)
    assert list(out) == ["acc"]  # a metric no system has is left out
    acc = out["acc"]
    assert acc["best"] == "a" and set(acc["systems"]) == {"a", "b", "c"}
    assert acc["systems"]["a"] == {"difference": 0.0, "ci": None, "excludes_zero": False}
    b, c = acc["systems"]["b"], acc["systems"]["c"]
    assert abs(b["difference"] + 0.02) < 1e-12 and b["ci"][1] < 0 and b["excludes_zero"]
    assert c["ci"][0] < 0 < c["ci"][1] and not c["excludes_zero"]
    # unpaired, b's interval would overlap a's almost entirely
    lo_a, hi_a = np.percentile(shared, [2.5, 97.5])
    lo_b, hi_b = np.percentile(replicates["b"]["acc"], [2.5, 97.5])
    assert lo_b < hi_a and lo_a < hi_b


def test_ties_go_to_the_first_system_and_undefined_replicates_are_left_out() -> None:
    nan_half = np.array([0.5, np.nan] * 50)
    replicates = {"x": {"acc": np.full(100, 0.5)}, "y": {"acc": nan_half}}
    out = differences([entry("x", 0.5), entry("y", 0.5)], replicates, ["acc"], 0.95)
    assert out["acc"]["best"] == "x"
    assert out["acc"]["systems"]["y"] == {"difference": 0.0, "ci": [0.0, 0.0], "excludes_zero": False}
