"""Loopback servers that answer in one server kind's documented dialect, refusals included.

Each :class:`DialectServer` plays one profile of :mod:`admitdx.llm.servers` the way that server's
documentation spells requests, answers and errors, so a contract test learns whether admitdx sends
what the server accepts and reads what it returns. The *model* behind them is a fixed function of
the last user message (the same for every dialect), so predictions must not depend on the dialect.
The real llama.cpp server (the ``local_llm`` fixture) is the contract peer for ``llama.cpp``.

What each dialect does, and where it is documented:

- **openai** (https://platform.openai.com/docs/api-reference/chat/create, error object
  https://platform.openai.com/docs/guides/error-codes): ``Authorization: Bearer``; an unknown
  top-level field is 400 ``invalid_request_error`` naming it ("Unrecognized request argument
  supplied"); a reasoning model (``gpt-5*``, ``o*``) refuses ``max_tokens`` (400
  ``unsupported_parameter``, "Use 'max_completion_tokens' instead.") and a temperature other than 1
  (400 ``unsupported_value``); thinking is hidden, counted in
  ``usage.completion_tokens_details.reasoning_tokens``.
- **azure** (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference): as openai, at
  ``/openai/deployments/{deployment}/chat/completions?api-version=…`` with an ``api-key`` header;
  a wrong key is 401 "Access denied due to invalid subscription key or wrong API endpoint".
- **vllm** (https://docs.vllm.ai/en/stable/serving/openai_compatible_server/,
  https://docs.vllm.ai/en/v0.10.0/features/reasoning_outputs.html): errors as
  ``{"object": "error", "message", "type": "BadRequestError", "code": 400}``; thinking in
  ``reasoning_content`` (``content`` null when the budget ran out thinking); switched by
  ``chat_template_kwargs.enable_thinking``; unknown fields ignored.
- **sglang** (https://docs.sglang.ai/advanced_features/separate_reasoning.html): as vllm's reading
  (``reasoning_content``, ``chat_template_kwargs``).
- **ollama** (https://github.com/ollama/ollama/blob/main/docs/openai.md): thinking in ``reasoning``;
  ``reasoning_effort: "none"`` turns it off; errors as ``{"error": {"message", "type"}}``.
- **openai-compatible**: a server without a reasoning parser: thinking inline in ``<think>`` tags.

Every dialect can answer its first requests with 503 while the model loads (llama.cpp's server
documents ``{"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}``)
or 429 with ``Retry-After``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

THINKING = (
    "Fever and a productive cough.\n1. Consider influenza\n2. Consider bronchitis\n"
    'Draft: {"diagnoses": ["Influenza"]} — no, consolidation on the X-ray.'
)
OPENAI_FIELDS = {
    "model", "messages", "temperature", "top_p", "seed", "max_tokens", "max_completion_tokens",
    "response_format", "reasoning_effort", "stream", "n", "stop",
}  # fmt: skip
AZURE_KEY = "azure-test-key-0123456789"
CONTEXT = 32768


def model_answer(body: dict[str, Any]) -> str:
    """The 'model': two diagnoses picked by a digest of the last user message, as JSON."""
    last = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    n = int(hashlib.sha256(last.encode()).hexdigest()[:4], 16)
    names = ["Sepsis", "Pneumonia", "Heart failure", "Stroke", "Appendicitis", "Pancreatitis"]
    first = n % 6
    return json.dumps({"diagnoses": [names[first], names[(first + 1 + (n // 6) % 5) % 6]]})


def _openai_error(status: int, message: str, type_: str, param: str | None, code: str | None) -> tuple:
    return status, {"error": {"message": message, "type": type_, "param": param, "code": code}}


class DialectServer(ThreadingHTTPServer):
    """One dialect on a free loopback port; ``seen`` keeps every request (path, headers, body).

    ``model`` decides reasoning behaviour: on openai/azure a name starting ``gpt-5`` or ``o`` is a
    reasoning model; elsewhere ``thinks=True`` makes the model think unless the request turns it
    off. ``faults`` is a queue of (status, headers) answered before any real answer.
    ``budget_thinking`` is how many tokens thinking takes: a smaller max token budget ends the answer
    with ``finish_reason: length`` inside the thinking.
    """

    daemon_threads = True

    def __init__(
        self,
        dialect: str,
        *,
        model: str = "test-model",
        thinks: bool = False,
        faults: list[tuple[int, dict[str, str]]] | None = None,
        budget_thinking: int = 50,
    ) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.dialect = dialect
        self.model = model
        self.thinks = thinks
        self.faults = deque(faults or [])
        self.budget_thinking = budget_thinking
        self.seen: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, args=(0.02,), daemon=True)  # fast shutdown

    @property
    def base_url(self) -> str:
        root = f"http://127.0.0.1:{self.server_address[1]}"
        return root + ("/openai/deployments/dx-deploy" if self.dialect == "azure" else "/v1")

    def __enter__(self) -> DialectServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(5)

    # ------------------------------------------------------------------ answers
    def answer(self, method: str, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple:
        """(status, payload, extra headers) for one request."""
        url = urlsplit(path)
        with self.lock:
            self.seen.append({"method": method, "path": path, "headers": headers, "body": body})
            fault = self.faults.popleft() if self.faults else None
        if fault is not None:
            status, extra = fault
            return (*self._fault_body(status), extra)
        refusal = self._refusal(url, headers, body) if self.dialect in ("openai", "azure") else None
        if refusal is not None:
            return (*refusal, {})
        if method == "GET" and url.path.endswith("/models"):
            return 200, self._models(), {}
        return 200, self._completion(body), {}

    def _fault_body(self, status: int) -> tuple[int, dict[str, Any]]:
        if status == 503:
            return status, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}
        if self.dialect == "vllm":
            return status, {"object": "error", "message": "busy", "type": "TooManyRequests", "code": status}
        return _openai_error(status, "Rate limit reached", "requests", None, "rate_limit_exceeded")

    def _refusal(self, url: Any, headers: dict[str, str], body: dict[str, Any]) -> tuple | None:
        if self.dialect == "azure":
            if headers.get("api-key") != AZURE_KEY:
                message = "Access denied due to invalid subscription key or wrong API endpoint."
                return 401, {"error": {"code": "401", "message": message}}
            if "api-version" not in parse_qs(url.query):
                return 404, {"error": {"code": "404", "message": "Resource not found"}}
        elif not headers.get("authorization", "").startswith("Bearer "):
            return _openai_error(401, "You didn't provide an API key.", "invalid_request_error", None, None)
        unknown = sorted(set(body) - OPENAI_FIELDS)
        if unknown:
            message = f"Unrecognized request argument supplied: {unknown[0]}"
            return _openai_error(400, message, "invalid_request_error", None, None)
        if self._reasoning_model():
            if "max_tokens" in body:
                message = (
                    "Unsupported parameter: 'max_tokens' is not supported with this model. "
                    "Use 'max_completion_tokens' instead."
                )
                return _openai_error(
                    400, message, "invalid_request_error", "max_tokens", "unsupported_parameter"
                )
            if body.get("temperature", 1) != 1:
                message = (
                    f"Unsupported value: 'temperature' does not support {body['temperature']} with this "
                    "model. Only the default (1) value is supported."
                )
                return _openai_error(
                    400, message, "invalid_request_error", "temperature", "unsupported_value"
                )
        return None

    def _reasoning_model(self) -> bool:
        return self.model.startswith(("gpt-5", "o"))

    def _thinking_on(self, body: dict[str, Any]) -> bool:
        if self.dialect in ("openai", "azure"):
            return self._reasoning_model() and body.get("reasoning_effort") != "none"
        if self.dialect == "ollama":
            return self.thinks and body.get("reasoning_effort") != "none"
        switch = (body.get("chat_template_kwargs") or {}).get("enable_thinking")
        return self.thinks and switch is not False

    def _models(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": self.model, "object": "model", "owned_by": self.dialect}
        if self.dialect == "vllm":
            entry["max_model_len"] = CONTEXT  # vLLM's /v1/models reports the served context length
        return {"object": "list", "data": [entry]}

    def _completion(self, body: dict[str, Any]) -> dict[str, Any]:
        budget = body.get("max_completion_tokens", body.get("max_tokens", 1000))
        thinking = self._thinking_on(body)
        content: str | None = model_answer(body)
        finish = "stop"
        if thinking and budget < self.budget_thinking:
            content, finish = None, "length"  # the budget ran out inside the thinking
        message: dict[str, Any] = {"role": "assistant", "content": content}
        shown = thinking and self.dialect not in ("openai", "azure")  # OpenAI never shows its thinking
        if shown and self.dialect in ("vllm", "sglang"):
            message["reasoning_content"] = THINKING
        elif shown and self.dialect == "ollama":
            message["reasoning"] = THINKING
        elif shown:  # no reasoning parser: inline, and never closed when the budget ran out
            message["content"] = f"<think>\n{THINKING}" + (f"\n</think>\n\n{content}" if content else "")
        reasoning = self.budget_thinking if thinking else 0
        completion = min(budget, reasoning) if finish == "length" else reasoning + 20
        usage: dict[str, Any] = {"prompt_tokens": 100, "completion_tokens": completion}
        if self.dialect in ("openai", "azure"):
            usage["completion_tokens_details"] = {"reasoning_tokens": min(budget, reasoning)}
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        }


class _Handler(BaseHTTPRequestHandler):
    server: DialectServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the server's ``seen`` holds everything worth checking."""

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else {}
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, payload, extra = self.server.answer(method, self.path, headers, body)
        data = json.dumps(payload).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **extra}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
