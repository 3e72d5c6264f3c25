"""EarlyDx metrics against hand-computed values, and their invariants under random inputs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from admitdx.contracts import Reference
from admitdx.errors import InputError
from admitdx.metrics.earlydx import TRACKS, available_tracks, check_pairs, track_columns, track_ratios
from admitdx.metrics.ratios import point_estimates


def R(cls: str | None, explicit: bool | None = None) -> Reference:
    return Reference(text="x", evidence_class=cls, explicit=explicit)


# Encounter A: labels S0 (supported, explicit), S1 (supported, implicit), P2 (partial), U3 (unsupported).
# Five predictions in the system's order: p0→S1, p1 wrong, p2→P2, p3→S0, p4→U3.
A_REFS = [R("supported", True), R("supported", False), R("partial"), R("unsupported")]
A_PAIRS = [(0, 1), (2, 2), (3, 0), (4, 3)]
# Encounter B: one supported label, no prediction.
B_REFS = [R("supported", True)]


def scores(encounters: list[tuple[int, list[Reference], list[tuple[int, int]]]], track: str, **kw) -> dict:
    rows = [track_columns(n, refs, pairs, track, **kw) for n, refs, pairs in encounters]
    values = point_estimates(track_ratios(track), rows)
    return {k.split(".", 1)[1]: v for k, v in values.items()}


def test_supported_track_by_hand() -> None:
    s = scores([(5, A_REFS, A_PAIRS)], "supported")
    assert s["micro_precision"] == pytest.approx(2 / 5)
    assert s["micro_recall"] == pytest.approx(1.0)
    assert s["micro_f1"] == pytest.approx(4 / 7)
    assert s["example_f1"] == pytest.approx(4 / 7)
    assert s["jaccard"] == pytest.approx(2 / 5)
    assert s["complete_match_rate"] == 0.0
    # appendix C: p2 matched a partial label, so it leaves the denominator: 2 / (5 - 1)
    assert s["ignore_partial_precision"] == pytest.approx(0.5)
    assert s["ignore_partial_f1"] == pytest.approx(2 * 2 / (4 + 2))
    # R@k in the system's order: p0 hits S1 at rank 1, p3 hits S0 at rank 4
    assert [s[f"recall@{k}"] for k in range(1, 6)] == pytest.approx([0.5, 0.5, 0.5, 1.0, 1.0])
    assert s["micro_f1_top1"] == pytest.approx(2 * 1 / (1 + 2))
    assert s["micro_f1_top2"] == pytest.approx(2 * 1 / (2 + 2))
    assert s["explicit_recall"] == 1.0 and s["implicit_recall"] == 1.0
    assert s["mean_predictions"] == 5 and s["mean_references"] == 2


def test_other_tracks_by_hand() -> None:
    sp = scores([(5, A_REFS, A_PAIRS)], "supported_partial")
    assert (sp["micro_precision"], sp["micro_recall"]) == pytest.approx((3 / 5, 1.0))
    assert sp["ignore_partial_precision"] == pytest.approx(3 / 5)  # partial labels are on this track
    partial = scores([(5, A_REFS, A_PAIRS)], "partial")
    assert (partial["micro_precision"], partial["micro_recall"]) == pytest.approx((1 / 5, 1.0))
    assert partial["explicit_recall"] is None  # the partial label's explicitness is unknown
    everything = scores([(5, A_REFS, A_PAIRS)], "all")
    assert everything["micro_f1"] == pytest.approx(8 / 9)
    assert everything["complete_match_rate"] == 0.0  # 4 matched of 4 labels, but 5 predictions


def test_micro_and_example_averaging_differ_with_an_empty_prediction() -> None:
    s = scores([(5, A_REFS, A_PAIRS), (0, B_REFS, [])], "supported")
    assert s["micro_precision"] == pytest.approx(2 / 5)
    assert s["micro_recall"] == pytest.approx(2 / 3)
    assert s["micro_f1"] == pytest.approx(2 * 2 / (5 + 3))
    assert s["example_precision"] == pytest.approx((0.4 + 0.0) / 2)
    assert s["example_recall"] == pytest.approx((1.0 + 0.0) / 2)
    assert s["example_f1"] == pytest.approx((4 / 7 + 0.0) / 2)
    assert s["mean_predictions"] == 2.5 and s["mean_references"] == 1.5
    assert s["explicit_recall"] == pytest.approx(1 / 2)  # B's explicit label is missed


def test_empty_predictions_everywhere_leave_precision_undefined() -> None:
    s = scores([(0, B_REFS, [])], "supported")
    assert s["micro_precision"] is None
    assert s["micro_recall"] == 0.0 and s["micro_f1"] == 0.0 and s["example_precision"] == 0.0


def test_empty_references_are_skipped_or_scored() -> None:
    unsupported_only = [R("unsupported")]
    skipped = track_columns(2, unsupported_only, [], "supported")
    assert skipped["supported.scored"] == 0.0 and not any(skipped.values())
    assert scores([(2, unsupported_only, [])], "supported")["micro_f1"] is None
    kept = scores([(0, unsupported_only, [])], "supported", skip_empty=False)
    assert kept["example_f1"] == 1.0 and kept["complete_match_rate"] == 1.0 and kept["jaccard"] == 1.0
    wrong = scores([(2, unsupported_only, [(0, 0)])], "supported", skip_empty=False)
    assert wrong["example_precision"] == 0.0 and wrong["example_recall"] == 0.0
    assert wrong["micro_precision"] == 0.0


def test_duplicate_predictions_match_once() -> None:
    refs = [R("supported")]
    s = scores([(2, refs, [(0, 0)])], "supported")  # "NSTEMI", "NSTEMI" against one NSTEMI
    assert (s["micro_precision"], s["micro_recall"]) == pytest.approx((0.5, 1.0))
    with pytest.raises(InputError, match="one-to-one"):
        check_pairs([(0, 0), (1, 0)], 2, 1, "e1")
    with pytest.raises(InputError, match="out of range"):
        check_pairs([(2, 0)], 2, 1, "e1")


def test_tracks_need_evidence_classes() -> None:
    tracks, why = available_tracks([[R(None)], [R("supported")]])
    assert tracks == ["all"] and "1 of 2" in why and "evidence class" in why
    assert available_tracks([A_REFS]) == (list(TRACKS), None)


@st.composite
def encounters(draw):  # type: ignore[no-untyped-def]
    out = []
    for _ in range(draw(st.integers(1, 6))):
        classes = draw(st.lists(st.sampled_from(["supported", "partial", "unsupported"]), max_size=5))
        refs = [R(c, draw(st.booleans())) for c in classes]
        n_pred = draw(st.integers(0, 6))
        preds = draw(st.permutations(list(range(n_pred))))
        targets = draw(st.permutations(list(range(len(refs)))))
        k = draw(st.integers(0, min(n_pred, len(refs))))
        out.append((n_pred, refs, list(zip(preds[:k], targets[:k], strict=True))))
    return out


@settings(max_examples=150, deadline=None)
@given(encounters(), st.sampled_from(list(TRACKS)))
def test_scores_are_proportions(encs, track) -> None:  # type: ignore[no-untyped-def]
    s = scores(encs, track)
    for name, v in s.items():
        if v is not None and not name.startswith("mean_"):
            assert 0.0 <= v <= 1.0 + 1e-12, name
    ks = [s[f"recall@{k}"] for k in range(1, 6)]
    if ks[0] is not None:
        assert ks == sorted(ks) and ks[-1] <= s["micro_recall"] + 1e-12


@settings(max_examples=100, deadline=None)
@given(encounters(), st.sampled_from(list(TRACKS)))
def test_perfect_system_scores_one(encs, track) -> None:  # type: ignore[no-untyped-def]
    perfect = []
    for _, refs, _ in encs:
        on = [j for j, r in enumerate(refs) if TRACKS[track] is None or r.evidence_class in TRACKS[track]]
        perfect.append((len(on), refs, [(i, j) for i, j in enumerate(on)]))
    s = scores(perfect, track)
    if s["micro_recall"] is not None:
        for name in (
            "micro_precision",
            "micro_recall",
            "micro_f1",
            "example_f1",
            "complete_match_rate",
            "jaccard",
        ):
            assert s[name] == pytest.approx(1.0), name


@settings(max_examples=100, deadline=None)
@given(encounters(), st.sampled_from(list(TRACKS)), st.data())
def test_a_wrong_prediction_never_raises_precision(encs, track, data) -> None:  # type: ignore[no-untyped-def]
    i = data.draw(st.integers(0, len(encs) - 1))
    n, refs, pairs = encs[i]
    worse = [*encs[:i], (n + 1, refs, pairs), *encs[i + 1 :]]
    before, after = scores(encs, track), scores(worse, track)
    for name in ("micro_precision", "example_precision", "ignore_partial_precision"):
        if before[name] is not None and after[name] is not None:
            assert after[name] <= before[name] + 1e-12, name
    assert after["micro_recall"] == before["micro_recall"]
