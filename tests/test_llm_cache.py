"""The response cache: stable keys, WAL mode, and many processes writing at once."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from admitdx.llm.cache import CacheError, ResponseCache, cache_key


def _request(content: str = "hi", temperature: float = 0.0) -> dict:
    return {
        "model": "m",
        "messages": [{"role": "user", "content": content}],
        "params": {"temperature": temperature},
    }


def test_key_ignores_dict_order_but_not_content() -> None:
    a = {"messages": [{"content": "hi", "role": "user"}], "params": {"temperature": 0.0}, "model": "m"}
    assert cache_key(a) == cache_key(_request())
    assert cache_key(_request()) != cache_key(_request(content="hi "))
    assert cache_key(_request()) != cache_key(_request(temperature=0.3))
    assert len(cache_key(_request())) == 64


def test_roundtrip_and_first_answer_wins(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    key = cache_key(_request())
    assert cache.get(key) is None
    cache.put(key, _request(), '{"a": 1}', usage={"total_tokens": 5}, latency_s=0.25, finish_reason="stop")
    cache.put(key, _request(), "second", usage=None, latency_s=9.0, finish_reason="length")
    hit = cache.get(key)
    assert hit is not None
    assert (hit.raw, hit.usage, hit.latency_s, hit.finish_reason) == (
        '{"a": 1}',
        {"total_tokens": 5},
        0.25,
        "stop",
    )
    assert len(cache) == 1
    mode = sqlite3.connect(tmp_path / "c.sqlite").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def _writer(path: str, worker: int, n: int) -> None:
    cache = ResponseCache(Path(path))
    for i in range(n):
        req = _request(content=f"{worker}-{i}")
        cache.put(cache_key(req), req, f"answer {worker}-{i}", usage=None, latency_s=None, finish_reason=None)
        # every worker also writes the same shared keys: duplicates must be harmless
        shared = _request(content=f"shared-{i}")
        cache.put(cache_key(shared), shared, f"shared {i}", usage=None, latency_s=None, finish_reason=None)
    cache.close()


def test_many_processes_write_concurrently(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    ResponseCache(path).close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(path), w, 60)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    cache = ResponseCache(path)
    assert len(cache) == 4 * 60 + 60
    hit = cache.get(cache_key(_request(content="3-59")))
    assert hit is not None and hit.raw == "answer 3-59"


def test_a_file_that_is_not_sqlite_is_a_cache_error_saying_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "llm.sqlite"
    path.write_bytes(b"\x00garbage" * 1000)
    with pytest.raises(CacheError, match="is damaged") as e:
        ResponseCache(path)
    assert f"mv {path} {path}.damaged" in str(e.value)
    assert path.read_bytes() == b"\x00garbage" * 1000  # never overwritten or dropped


def test_a_folder_as_cache_path_is_a_cache_error(tmp_path: Path) -> None:
    with pytest.raises(CacheError, match="cannot use the LLM response cache"):
        ResponseCache(tmp_path)


def test_the_default_cache_lives_under_the_cache_directory_not_the_working_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23: `.admitdx-cache/` appeared in every folder a command ran in; the LLM cache now sits
    beside the embedding cache, read from $ADMITDX_CACHE_DIR when a config is made."""
    from admitdx.llm.config import LLMConfig

    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "caches"))
    assert LLMConfig().cache_path == tmp_path / "caches" / "llm.sqlite"
    assert LLMConfig.from_options({"cache_path": "here.sqlite"}).cache_path == Path("here.sqlite")
