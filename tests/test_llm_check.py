"""``admitdx llm check`` against a vLLM-dialect loopback server with a thinking model, and an unusable one."""

from __future__ import annotations

import socket

import yaml
from tests.data_roots import run_cli
from tests.dialect_servers import CONTEXT, DialectServer
from typer.testing import CliRunner

from admitdx.cli import app


def test_check_lists_probes_and_prints_a_profile_to_paste() -> None:
    with DialectServer("vllm", model="Qwen/Qwen3-8B", thinks=True) as srv:
        args = ["llm", "check", "--set", f"base_url={srv.base_url}", "--set", "model=Qwen/Qwen3-8B"]
        result = CliRunner().invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "models: Qwen/Qwen3-8B" in out and f"context length: {CONTEXT} tokens" in out
    for probe in ("plain", "JSON schema", "thinking on", "thinking off"):
        assert probe in out
    entry = yaml.safe_load(out.split("paste into a --config file:\n", 1)[1])["systems"]["mine"]
    assert entry == {
        "kind": "llm",
        "base_url": srv.base_url,
        "model": "Qwen/Qwen3-8B",
        "server": "vllm",  # from /v1/models' owned_by
        "structured": "json_schema",
        "thinking": False,  # the model thinks, and enable_thinking=false turned it off
    }
    switched = [s["body"].get("chat_template_kwargs") for s in srv.seen if s["method"] == "POST"]
    assert switched == [None, None, {"enable_thinking": True}, {"enable_thinking": False}]


def test_check_of_an_unusable_server_exits_2_with_the_reason(capsys, monkeypatch) -> None:
    with socket.socket() as s:  # a free port with nothing listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    code, _, err = run_cli(["llm", "check", "--set", f"base_url={url}"], capsys, monkeypatch)
    assert code == 2 and "does not answer a chat request" in err and "Traceback" not in err
