"""The packaged sentence-embedding model and its content-addressed cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from admitdx.embeddings import Embedder, EmbeddingCache, default_model_dir
from admitdx.errors import UsageError


def test_vectors_are_unit_length_ordered_and_semantic(tmp_path: Path) -> None:
    e = Embedder(cache_dir=tmp_path)
    v = e.encode(["myocardial infarction", "heart attack", "ankle sprain"])
    assert v.shape == (3, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2


def test_second_encode_is_served_from_the_cache_without_the_model(tmp_path: Path) -> None:
    texts = ["sepsis", "urinary tract infection", "sepsis"]
    first = Embedder(cache_dir=tmp_path).encode(texts)
    fresh = Embedder(cache_dir=tmp_path)
    again = fresh.encode(texts)
    assert fresh._model is None  # every text was a cache hit: the model was never loaded
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first[0], first[2])
    # the cache holds one row per distinct (model, text)
    cache = EmbeddingCache(tmp_path / "embeddings.sqlite")
    keys = [EmbeddingCache.key(fresh.model_id, t) for t in ("sepsis", "urinary tract infection")]
    assert set(cache.get_many(keys)) == set(keys)


def test_model_id_changes_with_truncation_length(tmp_path: Path) -> None:
    assert Embedder(cache_dir=tmp_path).model_id != Embedder(cache_dir=tmp_path, max_seq_length=64).model_id


def test_uncached_and_cached_vectors_agree(tmp_path: Path) -> None:
    texts = ["acute kidney injury", "hyperkalemia"]
    np.testing.assert_allclose(
        Embedder(cache=False).encode(texts), Embedder(cache_dir=tmp_path).encode(texts), atol=1e-6
    )


def test_a_local_model_directory_is_accepted_and_a_hub_name_refused(tmp_path: Path) -> None:
    local = Embedder(default_model_dir(), cache_dir=tmp_path)
    assert local.model_id.startswith("model@")
    assert local.encode(["x"]).shape == (1, 384)
    with pytest.raises(UsageError, match="not a local directory"):
        Embedder("sentence-transformers/all-mpnet-base-v2")


def test_empty_input_gives_an_empty_matrix(tmp_path: Path) -> None:
    assert Embedder(cache_dir=tmp_path).encode([]).shape == (0, 384)


def test_bfloat16_and_float32_vectors_agree_but_are_cached_apart(tmp_path: Path) -> None:
    texts = ["chest pain radiating to the left arm", "fall from standing with hip pain"]
    full = Embedder(cache_dir=tmp_path, precision="float32")
    half = Embedder(cache_dir=tmp_path, precision="bfloat16")
    assert full.model_id != half.model_id
    cosine = (full.encode(texts) * half.encode(texts)).sum(axis=1)
    assert cosine.min() > 0.999
    np.testing.assert_allclose(np.linalg.norm(half.encode(texts), axis=1), 1.0, atol=1e-5)
    with pytest.raises(UsageError, match="precision"):
        Embedder(precision="int4")


def test_vectors_are_stored_a_block_at_a_time(tmp_path: Path) -> None:
    e = Embedder(cache_dir=tmp_path, store_every=2)
    texts = ["a", "b", "c", "a"]
    calls: list[int] = []
    embed = e._embed
    e._embed = lambda block: calls.append(len(block)) or embed(block)  # type: ignore[method-assign]
    e.encode(texts)
    assert calls == [2, 1]  # three distinct texts, stored in blocks of two
