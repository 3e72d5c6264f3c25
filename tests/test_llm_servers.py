"""Contract tests: each server profile sends what its server documents and reads what it returns.

The peers are :mod:`tests.dialect_servers` (one loopback server per documented dialect, with its
refusals and error shapes; sources cited there) and the real llama.cpp server (``local_llm``).
The same answers must give the same predictions whatever the profile, ``auto`` included.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.dialect_servers import AZURE_KEY, THINKING, DialectServer, model_answer

from admitdx.errors import UsageError
from admitdx.llm.client import ChatRequest, LLMCallError, LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.tasks.answers import ListShape, diagnosis_schema

SCHEMA = diagnosis_schema(ListShape(1, 20, 3, 70, None), reasoning=False, graded=False)
RECORDS = ["Fever, cough, consolidation on chest X-ray.", "Sudden left-sided weakness.", "RLQ pain."]
DIALECTS = ["vllm", "sglang", "ollama", "openai", "azure", "openai-compatible"]
FAST = {"cache_path": None, "retries": 3, "backoff_initial_s": 0.01, "backoff_max_s": 0.05}


def _requests() -> list[ChatRequest]:
    return [ChatRequest([{"role": "user", "content": r}], SCHEMA) for r in RECORDS]


def _expected() -> list[Any]:
    return [json.loads(model_answer({"messages": [{"role": "user", "content": r}]})) for r in RECORDS]


def _client(srv: DialectServer, monkeypatch: pytest.MonkeyPatch, **options: Any) -> LLMClient:
    if srv.dialect == "azure":
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", AZURE_KEY)
        options = {"api_key_env": "AZURE_OPENAI_API_KEY", "api_version": "2024-10-21", **options}
    options = {"concurrency": 2, **FAST, **options}
    return LLMClient(LLMConfig(base_url=srv.base_url, model=srv.model, **options))


def _run(client: LLMClient) -> list[Any]:
    done = dict(client.map(_requests()))
    return [done[i] for i in range(len(RECORDS))]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_each_profile_sends_its_dialect_and_predicts_the_same(dialect: str, monkeypatch) -> None:
    with DialectServer(dialect, model="gpt-4.1" if dialect in ("openai", "azure") else "m") as srv:
        completions = _run(_client(srv, monkeypatch, server=dialect))
    assert [c.parsed for c in completions] == _expected()
    body, headers, path = srv.seen[0]["body"], srv.seen[0]["headers"], srv.seen[0]["path"]
    token_field = "max_completion_tokens" if dialect in ("openai", "azure") else "max_tokens"
    assert body[token_field] == 1500 and {"max_tokens", "max_completion_tokens"} - {token_field} - set(body)
    assert (
        body["response_format"]["type"] == "json_schema" and body["response_format"]["json_schema"]["schema"]
    )
    if dialect == "azure":
        assert path == "/openai/deployments/dx-deploy/chat/completions?api-version=2024-10-21"
        assert headers["api-key"] == AZURE_KEY and "authorization" not in headers
    else:
        assert path == "/v1/chat/completions" and headers["authorization"] == "Bearer none"


@pytest.mark.parametrize("dialect", [d for d in DIALECTS if d != "azure"])  # azure: by host, below
def test_auto_reads_every_dialect_the_same(dialect: str, monkeypatch) -> None:
    model = "gpt-4.1" if dialect == "openai" else "m"
    with DialectServer(dialect, model=model, thinks=True) as srv:
        completions = _run(_client(srv, monkeypatch))
    assert [c.parsed for c in completions] == _expected()
    shows = dialect != "openai"  # OpenAI keeps its thinking hidden; a non-reasoning model has none
    assert all((c.reasoning == THINKING.strip()) == shows for c in completions)


def test_auto_learns_max_completion_tokens_and_names_the_temperature_refusal(monkeypatch) -> None:
    """An OpenAI reasoning model behind a loopback address: auto switches the token field on the
    documented 400, but will not drop temperature silently (the cache key says it was sent)."""
    with DialectServer("openai", model="gpt-5.5") as srv:
        with pytest.raises(LLMCallError, match="temperature") as refused:
            _run(_client(srv, monkeypatch))
        bodies = [s["body"] for s in srv.seen]
    assert "max_tokens" in bodies[0] and any("max_completion_tokens" in b for b in bodies)
    assert "server: openai" in refused.value.hint and "thinking" in refused.value.hint


def test_openai_reasoning_model_with_thinking_switch_and_tokens(monkeypatch) -> None:
    with DialectServer("openai", model="gpt-5.5") as srv:
        client = _client(srv, monkeypatch, server="openai", thinking="low")
        completions = _run(client)
    assert [c.parsed for c in completions] == _expected()
    body = srv.seen[0]["body"]
    assert body["reasoning_effort"] == "low" and "temperature" not in body and "top_p" not in body
    assert client.stats.tokens.summary()["reasoning_tokens"] == 3 * 50
    assert client.request_identity(_requests()[0])["params"] == {
        "max_tokens": 1500,
        "seed": 0,
        "thinking": "low",
    }


@pytest.mark.parametrize(
    ("dialect", "sent"),
    [
        ("vllm", {"chat_template_kwargs": {"enable_thinking": False}}),
        ("sglang", {"chat_template_kwargs": {"enable_thinking": False}}),
        ("ollama", {"reasoning_effort": "none"}),
    ],
)
def test_thinking_off_is_sent_as_the_server_documents(dialect: str, sent: dict, monkeypatch) -> None:
    with DialectServer(dialect, thinks=True) as srv:
        completions = _run(_client(srv, monkeypatch, server=dialect, thinking=False))
    assert all(srv.seen[0]["body"][k] == v for k, v in sent.items())
    assert [c.parsed for c in completions] == _expected() and {c.reasoning for c in completions} == {None}


@pytest.mark.parametrize("dialect", ["vllm", "sglang", "ollama", "openai-compatible", "openai"])
def test_budget_spent_thinking_is_counted_as_truncated(dialect: str, monkeypatch) -> None:
    model = "gpt-5.5" if dialect == "openai" else "m"
    thinking = "medium" if dialect == "openai" else None
    with DialectServer(dialect, model=model, thinks=True) as srv:
        client = _client(srv, monkeypatch, server=dialect, max_tokens=10, thinking=thinking)
        completions = _run(client)
    assert {c.truncated for c in completions} == {"thinking"}
    assert all(c.parse_error.startswith("truncated in thinking") and c.parsed is None for c in completions)
    assert client.stats.truncated == {"thinking": 3}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_loading_and_rate_limits_are_retried(dialect: str, monkeypatch) -> None:
    faults = [(503, {}), (429, {"Retry-After": "0"})]
    with DialectServer(dialect, model="gpt-4.1", faults=faults) as srv:
        client = _client(srv, monkeypatch, server=dialect, concurrency=1)
        completions = _run(client)
    assert [c.parsed for c in completions] == _expected()
    assert client.stats.retries == 2 and client.stats.by_status == {"503": 1, "429": 1, "200": 3}


def test_egress_guard_and_keys_hold_for_every_profile(monkeypatch) -> None:
    for server in DIALECTS:
        with pytest.raises(UsageError, match="refusing to send patient data"):
            LLMClient(LLMConfig(base_url="https://dx.openai.azure.com/openai/deployments/d", server=server))
    allowed = [{"host": "dx.openai.azure.com", "attestation": "zero-retention agreement, contract 2026-04"}]
    client = LLMClient(
        LLMConfig(base_url="https://dx.openai.azure.com/openai/deployments/d"), allow_hosts=allowed
    )
    assert client.profile.name == "azure"  # auto knows Azure OpenAI by its documented host name
    with DialectServer("azure") as srv:
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", "wrong-key-that-is-secret-42")
        config = LLMConfig(base_url=srv.base_url, server="azure", api_key_env="AZURE_OPENAI_API_KEY", **FAST)
        with pytest.raises(LLMCallError, match="HTTP 401") as refused:
            LLMClient(config).complete_json([{"role": "user", "content": "x"}], SCHEMA)
    assert srv.seen[0]["headers"]["api-key"] == "wrong-key-that-is-secret-42"
    shown = str(refused.value) + refused.value.hint + json.dumps(config.identity())
    assert "wrong-key" not in shown and "secret-42" not in shown


def test_real_llama_cpp_server_is_a_contract_peer(local_llm) -> None:
    """llama-cpp-python's server: its profile sends json_object + schema from the first request (and
    the thinking switch, which a template without thinking ignores), ``auto`` gets the same answer
    after its one documented switch."""
    answers = {}
    for server, thinking in (("llama.cpp", False), ("auto", None)):
        config = local_llm.config(cache_path=None, server=server, structured="auto", max_tokens=16)
        client = LLMClient(config.with_overrides(thinking=thinking))
        c = client.complete_json([{"role": "user", "content": RECORDS[0]}], SCHEMA)
        answers[server] = (c.raw, c.parsed, c.parse_error)
        assert client.stats.dialect_switches == (1 if server == "auto" else 0)
    assert answers["llama.cpp"] == answers["auto"] and answers["auto"][0]


def test_openai_refuses_a_field_it_does_not_know_and_the_message_names_the_profile(monkeypatch) -> None:
    """A chat-template switch sent to OpenAI is a 400 naming the argument: the profile matters."""
    with DialectServer("openai", model="gpt-4.1") as srv:
        client = _client(srv, monkeypatch, server="openai-compatible", thinking=False)
        with pytest.raises(
            LLMCallError, match="Unrecognized request argument supplied: chat_template_kwargs"
        ) as e:
            client.complete_json([{"role": "user", "content": RECORDS[0]}], SCHEMA)
    assert "server:" in e.value.hint and len(srv.seen) == 1  # a refusal is not retried
