"""Every matcher returns one-to-one pairs within range (hypothesis), and the assignment is maximal."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from admitdx.embeddings import Embedder
from admitdx.matching.base import MatchTask, assign_one_to_one, check_one_to_one
from admitdx.matching.embedding import EmbeddingMatcher
from admitdx.matching.exact import ExactMatcher
from admitdx.matching.icd import IcdMatcher
from admitdx.matching.llm_judge import validate_pairs

# A small pool so that duplicates, abbreviations and near-synonyms occur often.
POOL = [
    "CHF", "congestive heart failure", "Heart failure, unspecified", "AFib", "Atrial fibrillation",
    "pneumonia", "Pneumonia, unspecified organism", "sepsis", "Sepsis, unspecified organism", "AKI",
    "Acute kidney failure, unspecified", "hip fracture", "GI bleed", "", "xyzzy",
]  # fmt: skip
lists = st.lists(st.sampled_from(POOL), max_size=6)
codes = st.sampled_from(["I509", "I4891", "J189", "A419", "N179", "S72001A", "K922"])


def assert_one_to_one(pairs: list[tuple[int, int]], n_p: int, n_r: int) -> None:
    assert check_one_to_one(pairs, n_p, n_r) == sorted(pairs)


def brute_force_max(acceptable: np.ndarray) -> int:
    n_p, n_r = acceptable.shape
    best = 0
    for k in range(min(n_p, n_r), 0, -1):
        for ps in itertools.combinations(range(n_p), k):
            for rs in itertools.permutations(range(n_r), k):
                if all(acceptable[p, r] for p, r in zip(ps, rs, strict=True)):
                    return k
    return best


@given(st.integers(0, 5), st.integers(0, 5), st.data())
def test_assignment_is_one_to_one_and_of_maximum_size(n_p: int, n_r: int, data: st.DataObject) -> None:
    flat = data.draw(st.lists(st.booleans(), min_size=n_p * n_r, max_size=n_p * n_r))
    acceptable = np.array(flat, dtype=bool).reshape(n_p, n_r)
    quality = np.array(data.draw(st.lists(st.floats(0, 1), min_size=n_p * n_r, max_size=n_p * n_r)))
    pairs = assign_one_to_one(acceptable, quality.reshape(n_p, n_r))
    assert_one_to_one(pairs, n_p, n_r)
    assert all(acceptable[p, r] for p, r in pairs)
    assert len(pairs) == brute_force_max(acceptable)


@given(st.integers(1, 5), st.integers(1, 5), st.data())
def test_every_top_k_prefix_is_a_maximum_matching(n_p: int, n_r: int, data: st.DataObject) -> None:
    """R@k read off the pairs equals R@k of the list truncated to k and matched again."""
    flat = data.draw(st.lists(st.booleans(), min_size=n_p * n_r, max_size=n_p * n_r))
    acceptable = np.array(flat, dtype=bool).reshape(n_p, n_r)
    quality = np.array(data.draw(st.lists(st.floats(0, 1), min_size=n_p * n_r, max_size=n_p * n_r)))
    pairs = assign_one_to_one(acceptable, quality.reshape(n_p, n_r))
    for k in range(1, n_p + 1):
        assert sum(p < k for p, _ in pairs) == brute_force_max(acceptable[:k])


def test_earlier_prediction_beats_a_more_similar_later_one() -> None:
    # Both predictions fit the one reference; the later one is more similar. R@1 must count it.
    assert assign_one_to_one(np.array([[True], [True]]), np.array([[0.6], [0.9]])) == [(0, 0)]
    # Similarity still decides which reference a kept prediction takes.
    assert assign_one_to_one(np.array([[True, True]]), np.array([[0.6, 0.9]])) == [(0, 1)]


def test_assignment_prefers_more_pairs_over_higher_similarity() -> None:
    # Greedy on similarity would take (0, 0) = 0.95 and leave prediction 1 unmatched.
    acceptable = np.array([[True, True], [True, False]])
    quality = np.array([[0.95, 0.6], [0.7, 0.0]])
    assert assign_one_to_one(acceptable, quality) == [(0, 1), (1, 0)]


def test_check_one_to_one_rejects_reuse_and_out_of_range() -> None:
    with pytest.raises(ValueError):
        check_one_to_one([(0, 0), (0, 1)], 2, 2)
    with pytest.raises(ValueError):
        check_one_to_one([(0, 0), (1, 0)], 2, 2)
    with pytest.raises(ValueError):
        check_one_to_one([(2, 0)], 2, 2)


@given(lists, lists)
def test_exact_matcher_is_one_to_one(preds: list[str], refs: list[str]) -> None:
    assert_one_to_one(ExactMatcher().match(MatchTask("i", "s", preds, refs)).pairs, len(preds), len(refs))


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    e = Embedder(cache_dir=tmp_path_factory.mktemp("emb"), precision="float32")
    e.encode(POOL)  # one model pass for the whole pool; the examples below hit the cache
    return e


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lists, lists)
def test_embedding_matcher_is_one_to_one(embedder: Embedder, preds: list[str], refs: list[str]) -> None:
    outcome = EmbeddingMatcher(embedder=embedder).match(MatchTask("i", "s", preds, refs))
    assert_one_to_one(outcome.pairs, len(preds), len(refs))


@pytest.fixture(scope="module")
def icd_matcher() -> IcdMatcher:
    return IcdMatcher(
        search="bm25", level="category", code_prefixes=("I5", "I48", "J18", "A41", "N17", "S72", "K92")
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lists, st.lists(st.tuples(st.sampled_from(POOL), codes), max_size=6))
def test_icd_matcher_is_one_to_one(
    icd_matcher: IcdMatcher, preds: list[str], refs: list[tuple[str, str]]
) -> None:
    task = MatchTask("i", "s", preds, [t for t, _ in refs], [(c, "ICD-10-CM") for _, c in refs])
    assert_one_to_one(icd_matcher.match(task).pairs, len(preds), len(refs))


judge_entry = st.one_of(
    st.fixed_dictionaries({"prediction": st.integers(-1, 7), "reference": st.integers(-1, 7)}),
    st.fixed_dictionaries({"prediction": st.text(max_size=2), "reference": st.integers(0, 3)}),
    st.none(),
)


@given(st.integers(0, 6), st.integers(0, 6), st.lists(judge_entry, max_size=10))
def test_judge_validation_keeps_only_one_to_one_pairs(n_p: int, n_r: int, entries: list) -> None:
    kept, dropped = validate_pairs({"pairs": entries}, n_p, n_r)
    assert_one_to_one(kept, n_p, n_r)
    assert len(kept) + len(dropped) == len(entries)


def test_matchers_write_nothing_outside_tmp(tmp_path: Path) -> None:
    # The property tests above must not have created a cache in the working directory.
    assert not (Path.cwd() / ".admitdx-cache" / "embeddings.sqlite").exists()
