"""The client against a real loopback HTTP server that misbehaves on purpose.

The server answers each request with a digest of its own last user message, so "every request got
its own answer, exactly once" is checkable — whatever mix of 429s, 500s, slow answers, truncated
bodies, malformed JSON and dropped connections came first.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest

from admitdx.llm import CacheMissError, ChatRequest, LLMCallError, LLMClient, LLMConfig
from admitdx.llm.client import parse_retry_after
from admitdx.llm.fault_server import FAULTS, FaultServer

SCHEMA = {"type": "object", "properties": {"diagnoses": {"type": "array", "items": {"type": "string"}}}}


def _requests(n: int) -> list[ChatRequest]:
    return [ChatRequest([{"role": "user", "content": f"patient {i}"}], SCHEMA) for i in range(n)]


def _expected(i: int) -> str:
    return "answer " + hashlib.sha256(f"patient {i}".encode()).hexdigest()[:12]


def _config(server: FaultServer, tmp_path: Path, **kw: object) -> LLMConfig:
    base = dict(
        base_url=server.base_url, cache_path=tmp_path / "cache.sqlite", timeout_s=0.5,
        backoff_initial_s=0.01, backoff_max_s=0.05, retries=40, concurrency=8,
    )  # fmt: skip
    return LLMConfig(**{**base, **kw})


def test_every_request_completes_exactly_once_through_random_faults(tmp_path: Path) -> None:
    with FaultServer(fault_rate=0.5, slow_s=1.0, seed=11) as server:
        client = LLMClient(_config(server, tmp_path))
        results = list(client.map(_requests(60)))
        counts = dict(server.counts)
    indices = [i for i, _ in results]
    assert sorted(indices) == list(range(60))  # none lost, none duplicated
    for i, completion in results:
        assert completion.parsed == {"diagnoses": [_expected(i)]}
        assert completion.parse_error is None and not completion.cached
    assert all(counts.get(f, 0) > 0 for f in FAULTS), counts  # every kind of fault really happened
    assert client.stats.model_calls == 60
    assert client.stats.retries == counts["requests"] - 60
    assert len(client.cache) == 60


def test_rerun_is_served_from_cache_without_any_request(tmp_path: Path) -> None:
    with FaultServer(fault_rate=0.3, seed=2) as server:
        first = dict(LLMClient(_config(server, tmp_path)).map(_requests(12)))
        served = server.counts["requests"]
        again = LLMClient(_config(server, tmp_path))
        second = dict(again.map(_requests(12)))
        assert server.counts["requests"] == served
    assert again.stats.model_calls == 0 and again.stats.http_attempts == 0 and again.stats.cache_hits == 12
    assert {i: c.raw for i, c in first.items()} == {i: c.raw for i, c in second.items()}
    assert all(c.cached for c in second.values())


def test_cache_only_fails_on_a_miss_instead_of_calling(tmp_path: Path) -> None:
    with FaultServer() as server:
        LLMClient(_config(server, tmp_path)).complete_json([{"role": "user", "content": "patient 0"}], SCHEMA)
        offline = LLMClient(_config(server, tmp_path, cache_only=True))
        assert offline.complete_json([{"role": "user", "content": "patient 0"}], SCHEMA).cached
        with pytest.raises(CacheMissError, match="cache-only"):
            offline.complete_json([{"role": "user", "content": "patient 1"}], SCHEMA)
        assert server.counts["requests"] == 1


def test_retry_after_is_honoured(tmp_path: Path) -> None:
    with FaultServer(fault_rate=1.0, faults=("429",), retry_after="1") as server:
        client = LLMClient(_config(server, tmp_path, retries=1, cache_path=None))
        started = time.monotonic()
        with pytest.raises(LLMCallError, match="kept failing"):
            client.complete_json([{"role": "user", "content": "x"}], SCHEMA)
        waited = time.monotonic() - started
    # the backoff alone would wait at most 0.05 s; the server asked for 1 s
    assert waited >= 1.0
    assert server.counts["429"] == 2 and client.stats.retries == 1


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert 0 <= parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0  # a date in the past: no wait


def test_unparseable_model_output_is_kept_not_retried(tmp_path: Path) -> None:
    with FaultServer(answer=lambda body: "I think it is pneumonia") as server:
        client = LLMClient(_config(server, tmp_path))
        completion = client.complete_json([{"role": "user", "content": "x"}], SCHEMA)
        assert server.counts["requests"] == 1
    assert completion.raw == "I think it is pneumonia"
    assert completion.parsed is None and "no JSON" in (completion.parse_error or "")
    assert client.stats.parse_failures == 1


def test_structured_output_dialects_on_the_wire(tmp_path: Path) -> None:
    seen: list[dict] = []

    def record(body: dict) -> str:
        seen.append(body)
        return json.dumps({"diagnoses": []})

    with FaultServer(answer=record) as server:
        for dialect in ("json_schema", "json_object", "none"):
            client = LLMClient(_config(server, tmp_path, structured=dialect, cache_path=None))
            client.complete_json([{"role": "user", "content": "x"}], SCHEMA)
    assert seen[0]["response_format"] == {
        "type": "json_schema", "json_schema": {"name": "output", "schema": SCHEMA, "strict": True},
    }  # fmt: skip
    assert seen[1]["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert "response_format" not in seen[2]
    assert seen[0]["temperature"] == 0.0 and seen[0]["seed"] == 0 and seen[0]["max_tokens"] == 1500
