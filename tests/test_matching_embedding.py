"""Embedding matcher with the real all-MiniLM-L6-v2 model, and its threshold calibration."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from admitdx.embeddings import Embedder
from admitdx.errors import UsageError
from admitdx.matching.base import MatchTask
from admitdx.matching.calibration import (
    CALIBRATION_PAIRS,
    best_threshold,
    calibrate_threshold,
    read_calibration_pairs,
    recorded_calibration,
)
from admitdx.matching.embedding import EmbeddingMatcher


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    return Embedder(cache_dir=tmp_path_factory.mktemp("emb"), precision="float32")


@pytest.fixture(scope="module")
def matcher(embedder: Embedder) -> EmbeddingMatcher:
    return EmbeddingMatcher(embedder=embedder)


def test_default_threshold_is_the_recorded_calibration(matcher: EmbeddingMatcher) -> None:
    recorded = recorded_calibration()
    assert recorded is not None and recorded.model_id == matcher.embedder.model_id
    assert matcher.threshold == recorded.threshold
    assert 0.3 < matcher.threshold < 0.9


def test_default_matcher_computes_in_float32_so_decisions_do_not_depend_on_the_cpu() -> None:
    # bfloat16 puts "heart attack" vs "acute myocardial infarction" at 0.5088, below the threshold.
    default = EmbeddingMatcher()
    assert default.embedder.precision == "float32"
    assert default.threshold == recorded_calibration().threshold


@pytest.mark.parametrize(
    ("prediction", "reference", "expected"),
    [
        ("heart attack", "Acute myocardial infarction", True),
        ("CHF", "Congestive heart failure, unspecified", True),
        ("GI bleed", "Gastrointestinal hemorrhage, unspecified", True),
        ("pneumonia", "Hip fracture", False),
        ("sepsis", "Diabetic ketoacidosis", False),
    ],
)
def test_clinical_pairs_at_the_calibrated_threshold(
    matcher: EmbeddingMatcher, prediction: str, reference: str, expected: bool
) -> None:
    outcome = matcher.match(MatchTask("i", "s", [prediction], [reference]))
    assert (outcome.pairs == [(0, 0)]) is expected
    if expected:
        assert outcome.details["similarity"][0] >= matcher.threshold


def test_one_to_one_assignment_over_a_list(matcher: EmbeddingMatcher) -> None:
    preds = ["hip fracture", "pneumonia", "CHF exacerbation", "community acquired pneumonia"]
    refs = ["Pneumonia, unspecified organism", "Acute on chronic diastolic (congestive) heart failure"]
    pairs = matcher.match(MatchTask("i", "s", preds, refs)).pairs
    # Each reference is taken once; of the two pneumonia spellings the earlier-ranked one is kept.
    assert pairs == [(1, 0), (2, 1)]


def test_batched_and_single_matching_agree(matcher: EmbeddingMatcher) -> None:
    tasks = [
        MatchTask(
            "a", "s", ["AFib", "UTI"], ["Atrial fibrillation", "Urinary tract infection, site not specified"]
        ),
        MatchTask("b", "s", ["stroke"], ["Cerebral infarction, unspecified"]),
        MatchTask("c", "s", [], ["Cerebral infarction, unspecified"]),
    ]
    assert [o.pairs for o in matcher.match_many(tasks)] == [matcher.match(t).pairs for t in tasks]
    assert matcher.match_many(tasks)[0].pairs == [(0, 0), (1, 1)]


def test_another_model_needs_an_explicit_threshold(tmp_path: Path, embedder: Embedder) -> None:
    other = Embedder(cache_dir=tmp_path, max_seq_length=32, precision="float32")  # a different model id
    with pytest.raises(UsageError, match="no calibrated threshold"):
        EmbeddingMatcher(embedder=other)
    assert EmbeddingMatcher(embedder=other, threshold=0.7).threshold == 0.7


def test_best_threshold_hand_computed() -> None:
    sims = np.array([0.2, 0.4, 0.6, 0.8])
    truth = np.array([False, False, True, True])
    # Midpoint candidates: 0.2-ε, 0.3, 0.5, 0.7, 0.8+ε; only 0.5 separates perfectly.
    assert best_threshold(sims, truth) == pytest.approx(0.5)
    # Truth F T F T. By hand: t=0.2-ε → TP 2 FP 2, F1 .667; t=0.3 → TP 2 FP 1, F1 .8;
    # t=0.5 → TP 1 FP 1 FN 1, F1 .5; t=0.7 → TP 1 FN 1, F1 .667; t=0.8+ε → F1 0. Best: 0.3 alone.
    assert best_threshold(sims, np.array([False, True, False, True])) == pytest.approx(0.3)


def test_calibration_set_is_balanced_enough_and_well_formed() -> None:
    pairs = read_calibration_pairs()
    assert len(pairs) >= 60
    assert 0.4 < sum(p.is_match for p in pairs) / len(pairs) < 0.7
    assert all(p.prediction.strip() and p.reference.strip() for p in pairs)


def test_recalibration_reproduces_the_recorded_threshold(embedder: Embedder) -> None:
    recorded = recorded_calibration()
    fresh = calibrate_threshold(embedder)
    assert fresh.threshold == pytest.approx(recorded.threshold, abs=1e-4)
    assert fresh.f1 == pytest.approx(recorded.f1, abs=1e-4)
    assert fresh.pairs_sha256 == recorded.pairs_sha256
    assert CALIBRATION_PAIRS.exists()
