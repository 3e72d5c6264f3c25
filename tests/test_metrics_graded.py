"""Graded predictions (suspected items) by hand: standard, confirmed-only and graded views."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from admitdx.contracts import PredictionItem, Reference
from admitdx.metrics.graded import graded_columns, graded_ratios
from admitdx.metrics.ratios import point_estimates

REFS = [
    Reference(text=t, code=c, code_system="ICD-10-CM", evidence_class="supported")
    for t, c in (("NSTEMI", "I214"), ("Pneumonia", "J189"), ("Hip fracture", "S72001A"))
]
ITEMS = [
    PredictionItem("NSTEMI", status="confirmed"),  # matched
    PredictionItem("Pneumonia", status="suspected"),  # matched: a raised alert
    PredictionItem("Sepsis", status="suspected"),  # unmatched suspected
    PredictionItem("Gout"),  # unmatched, no status = confirmed
]
PAIRS = [(0, 0), (1, 1)]


def values(weight: float) -> dict:
    return point_estimates(graded_ratios(weight), [graded_columns(ITEMS, REFS, PAIRS, "supported")])


def test_three_views_by_hand() -> None:
    v = values(0.0)
    assert (v["graded.standard.precision"], v["graded.standard.recall"]) == pytest.approx((2 / 4, 2 / 3))
    assert (v["graded.confirmed.precision"], v["graded.confirmed.recall"]) == pytest.approx((1 / 2, 1 / 3))
    # unmatched suspected "Sepsis" withheld: 2 / (2 confirmed + 1 matched suspected)
    assert (v["graded.graded.precision"], v["graded.graded.recall"]) == pytest.approx((2 / 3, 2 / 3))
    assert v["graded.graded.f1"] == pytest.approx(2 * 2 / (3 + 3))
    assert v["graded.suspected_share_of_recall"] == pytest.approx(1 / 3)


def test_weight_interpolates_to_the_standard_view() -> None:
    assert values(0.5)["graded.graded.precision"] == pytest.approx(2 / 3.5)
    one = values(1.0)
    assert one["graded.graded.precision"] == pytest.approx(one["graded.standard.precision"])


def test_time_critical_false_alarm_only_suspected_is_weighted() -> None:
    v0, v1 = values(0.0), values(1.0)
    # MI is recorded and named (hit); sepsis is named only as suspected and not recorded
    assert v0["tc_graded.recall"] == 1.0
    assert v0["tc_graded.precision"] == 1.0
    assert v1["tc_graded.precision"] == pytest.approx(0.5)


def test_standard_view_equals_the_track_scores() -> None:
    from admitdx.metrics.earlydx import track_columns, track_ratios

    encounters = [
        (ITEMS, REFS, PAIRS),
        ([PredictionItem("Gout")], [Reference("Gout", evidence_class="partial")], []),
    ]
    graded_rows = [graded_columns(i, r, p, "supported") for i, r, p in encounters]
    track_rows = [track_columns(len(i), r, p, "supported") for i, r, p in encounters]
    g = point_estimates(graded_ratios(), graded_rows)
    t = point_estimates(track_ratios("supported"), track_rows)
    # the second encounter has no supported label: left out of both
    assert g["graded.standard.precision"] == t["supported.micro_precision"] == pytest.approx(2 / 4)
    assert g["graded.standard.f1"] == pytest.approx(t["supported.micro_f1"])
    kept = point_estimates(
        graded_ratios(), [graded_columns(i, r, p, "supported", skip_empty=False) for i, r, p in encounters]
    )
    assert kept["graded.standard.precision"] == pytest.approx(2 / 5)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 3), st.lists(st.booleans(), max_size=4)),
        min_size=1,
        max_size=5,
    ),
    st.floats(0.0, 1.0),
)
def test_withholding_suspected_items_never_lowers_precision(encs, weight) -> None:  # type: ignore[no-untyped-def]
    rows = []
    for n_ref, n_match, suspected in encs:
        refs = [Reference(text=f"r{j}", evidence_class="supported") for j in range(n_ref)]
        items = [PredictionItem(f"p{k}", status="suspected" if s else None) for k, s in enumerate(suspected)]
        pairs = [(k, k) for k in range(min(n_match, n_ref, len(items)))]
        rows.append(graded_columns(items, refs, pairs, "supported"))
    v = point_estimates(graded_ratios(weight), rows)
    for key, value in v.items():
        if value is not None and not key.startswith("tc_graded"):
            assert 0.0 <= value <= 1.0 + 1e-12, key
    # withholding (part of) unmatched suspected items can only raise precision (or leave nothing to
    # score: every prediction withheld); recall is unchanged
    if v["graded.standard.precision"] is not None and v["graded.graded.precision"] is not None:
        assert v["graded.graded.precision"] >= v["graded.standard.precision"] - 1e-12
        assert v["graded.graded.recall"] == v["graded.standard.recall"]
