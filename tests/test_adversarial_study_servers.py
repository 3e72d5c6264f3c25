"""Issue 30, class 13: odd server answers.

``message.content`` as a number was a traceback in ``predict`` (and the number stayed in the cache
as the model's answer); a list of text parts (which some OpenAI-compatible servers send) or an
object was blamed on the cache. ``llm check`` tracebacked on ``content`` as a list and ``usage`` as
a string, and waited a run's 120 s timeout (6 min 7 s with retries) on a server that accepts and
never answers. Now a list of text parts is joined, any other non-string is an unreadable body
(retried, never cached), and ``llm check`` waits 10 s unless told otherwise and says when a server
is still loading (503).

A loopback server answers each POST with the next body of a script (the last one repeats).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.data_roots import run_cli

from admitdx.jsonl import read_jsonl
from admitdx.llm import check
from adversarial_runs import write_dataset

ANSWER = '{"diagnoses": ["Pneumonia", "Sepsis"]}'


def chat(content: Any, usage: Any = None) -> tuple[int, dict[str, Any]]:
    body: dict[str, Any] = {
        "id": "x",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
    }
    body["usage"] = usage if usage is not None else {"prompt_tokens": 10, "completion_tokens": 5}
    return 200, body


class Scripted(ThreadingHTTPServer):
    """Answers POSTs from ``script`` in order (the last repeats); ``silent`` never answers them."""

    daemon_threads = True

    def __init__(self, script: list[tuple[int, dict[str, Any]]], *, silent: bool = False) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script, self.silent, self.posts = list(script), silent, 0
        self.release = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def next_answer(self) -> tuple[int, dict[str, Any]]:
        self.posts += 1
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]


class _Handler(BaseHTTPRequestHandler):
    server: Scripted

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._send(200, {"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "vllm"}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.server.silent:
            self.server.release.wait(30)  # accepts, never answers (until the test ends)
            return
        self._send(*self.server.next_answer())

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def serving(script: list[tuple[int, dict[str, Any]]], *, silent: bool = False) -> Iterator[Scripted]:
    srv = Scripted(script, silent=silent)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.release.set()
        srv.shutdown()
        srv.server_close()


def _predict(tmp_path: Path, srv: Scripted, capsys, monkeypatch) -> tuple[int, str, Path]:
    ds = write_dataset(tmp_path / "ds", {"e0", "e1"})
    system = {"kind": "llm", "base_url": srv.base_url, "model": "m", "retries": 2, "concurrency": 1,
              "backoff_initial_s": 0.01, "backoff_max_s": 0.02,
              "cache_path": str(tmp_path / "cache.sqlite")}  # fmt: skip
    config = tmp_path / "run.yaml"
    config.write_text(yaml.safe_dump({"systems": {"fake": system}}))
    out = tmp_path / "pred"
    args = ["predict", "--dataset", ds, "--system", "fake", "--out", out, "--config", config]
    code, _, err = run_cli([str(a) for a in args], capsys, monkeypatch)
    return code, " ".join(err.split()), out


def _cached(tmp_path: Path) -> list[Any]:
    with sqlite3.connect(tmp_path / "cache.sqlite") as con:
        return [row[0] for row in con.execute("SELECT raw FROM responses")]


def test_content_as_a_list_of_text_parts_is_joined(tmp_path: Path, capsys, monkeypatch) -> None:
    parts = [{"type": "text", "text": '{"diagnoses": ["Pneumonia", '}, {"type": "text", "text": '"Sepsis"]}'}]
    with serving([chat(parts)]) as srv:
        code, err, out = _predict(tmp_path, srv, capsys, monkeypatch)
    assert code == 0, err
    predictions = list(read_jsonl(out / "predictions.jsonl"))
    assert [[i["text"] for i in p["items"]] for p in predictions] == [["Pneumonia", "Sepsis"]] * 2
    assert _cached(tmp_path) == [ANSWER] * 2  # the joined text, as the model's answer


@pytest.mark.parametrize(
    "content", [42, {"text": ANSWER}, [{"type": "image_url", "image_url": {"url": "x"}}]]
)
def test_other_content_is_an_unreadable_body_retried_and_never_cached(
    content: Any, tmp_path: Path, capsys, monkeypatch
) -> None:
    """First answer odd, the retry a text: the prediction is the text's, the cache holds only it."""
    with serving([chat(content), chat(ANSWER)]) as srv:
        code, err, out = _predict(tmp_path, srv, capsys, monkeypatch)
    assert code == 0, err
    assert srv.posts == 3  # the odd answer was asked again, once
    assert all(p["parse_error"] is None for p in read_jsonl(out / "predictions.jsonl"))
    assert _cached(tmp_path) == [ANSWER] * 2


def test_a_server_that_only_sends_numbers_is_exit_2_not_a_traceback(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    with serving([chat(7)]) as srv:
        code, err, _ = _predict(tmp_path, srv, capsys, monkeypatch)
    assert code == 2 and "kept failing" in err and "unreadable response body" in err
    assert "Traceback" not in err and "cannot use the LLM response cache" not in err
    assert srv.posts == 3  # retries: 2
    assert _cached(tmp_path) == []


def _check(srv: Scripted, capsys, monkeypatch, *extra: str) -> tuple[int, str, str]:
    args = ["llm", "check", "--set", f"base_url={srv.base_url}", "--set", "model=m", *extra]
    code, out, err = run_cli(args, capsys, monkeypatch)
    return code, out, " ".join(err.split())


@pytest.mark.parametrize(
    ("content", "usage"),
    [([{"type": "text", "text": ANSWER}], None), (ANSWER, "12 tokens"), (ANSWER, ["a"])],
)
def test_llm_check_reads_odd_fields_without_a_traceback(
    content: Any, usage: Any, capsys, monkeypatch
) -> None:
    with serving([chat(content, usage)]) as srv:
        code, out, err = _check(srv, capsys, monkeypatch)
    assert code == 0, err
    assert "plain" in out and "JSON schema" in out and "paste into a --config file" in out
    assert "Pneumonia" in out  # the joined parts are the answer shown


def test_llm_check_says_a_server_is_still_loading(capsys, monkeypatch) -> None:
    loading = (503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}})
    with serving([loading]) as srv:
        code, _, err = _check(srv, capsys, monkeypatch)
    assert code == 2 and "still loading its model" in err and "check again" in err


def test_llm_check_waits_ten_seconds_not_a_runs_two_minutes(monkeypatch) -> None:
    """The check's own timeout is 10 s unless timeout_s is set; the silent server is asked with a
    short one so the test does not wait, and the refusal says how long it waited."""
    seen = []
    real = check.LLMClient

    def recording(config: Any, **kw: Any) -> Any:
        seen.append(config.timeout_s)
        return real(config, **kw)

    monkeypatch.setattr(check, "LLMClient", recording)
    from admitdx.llm.config import LLMConfig

    with serving([chat(ANSWER)]) as srv:
        check.check_server(LLMConfig.from_options({"base_url": srv.base_url, "model": "m"}))
        assert set(seen) == {check.CHECK_TIMEOUT_S} == {10.0}
        seen.clear()
        check.check_server(LLMConfig.from_options({"base_url": srv.base_url, "model": "m", "timeout_s": 30}))
        assert set(seen) == {30.0}
    with serving([chat(ANSWER)], silent=True) as srv:
        config = LLMConfig.from_options({"base_url": srv.base_url, "model": "m", "timeout_s": 0.3})
        with pytest.raises(check.ServerUnusable, match=r"no answer within 0\.3 s"):
            check.check_server(config)
