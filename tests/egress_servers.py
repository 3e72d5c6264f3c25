"""Loopback servers that record who they heard from: an OpenAI-compatible endpoint and an HTTP proxy.

The egress tests need to know where every byte went, so both servers keep each request's line,
headers and body. The endpoint answers the predictor with a fixed diagnosis list and the LLM
judge with one pair; it can instead refuse with a status and a body (to test how refusals are
reported). The proxy either forwards (absolute-form requests, loopback destinations only) or
refuses every request, tunnels (CONNECT) included, the way squid does (403 with
``X-Squid-Error``). Nothing here ever connects to a non-loopback address.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Seen:
    method: str
    target: str
    headers: dict[str, str]
    body: dict[str, Any] = field(default_factory=dict)


def _answer(body: dict[str, Any]) -> str:
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or (
        body.get("response_format") or {}
    ).get("schema", {})
    if "pairs" in schema.get("properties", {}):
        return json.dumps({"pairs": [{"prediction": 1, "reference": 1}]})
    return json.dumps({"diagnoses": ["Sepsis", "Pneumonia"]})


class _Handler(BaseHTTPRequestHandler):
    server: _Recorder

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean: the recorder holds everything worth seeing."""

    def do_POST(self) -> None:
        self._record("POST")

    def do_CONNECT(self) -> None:
        """A client asking a proxy for a tunnel (an https destination)."""
        self._record("CONNECT")

    def _record(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        seen = Seen(method, self.path, {k.lower(): v for k, v in self.headers.items()})
        seen.body = json.loads(raw) if raw else {}
        with self.server.lock:
            self.server.seen.append(seen)
        self.server.respond(self, seen, raw)

    def send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class _Recorder(ThreadingHTTPServer, ABC):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.seen: list[Seen] = []
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @abstractmethod
    def respond(self, handler: _Handler, seen: Seen, raw: bytes) -> None:
        """Answer one recorded request."""

    def __enter__(self) -> _Recorder:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(5)


class Endpoint(_Recorder):
    """An OpenAI-compatible chat endpoint; ``refuse=(status, body)`` makes it answer that instead,
    ``redirect=URL`` makes it answer 307 to URL."""

    def __init__(self, refuse: tuple[int, str] | None = None, redirect: str | None = None) -> None:
        super().__init__()
        self.refuse = refuse
        self.redirect = redirect

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def respond(self, handler: _Handler, seen: Seen, raw: bytes) -> None:
        if self.redirect is not None:
            handler.send(307, b"", {"Location": self.redirect})
            return
        if self.refuse is not None:
            status, text = self.refuse
            handler.send(status, text.encode())
            return
        message = {"role": "assistant", "content": _answer(seen.body)}
        payload = {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": {}}
        handler.send(200, json.dumps(payload).encode())


class Proxy(_Recorder):
    """An HTTP forward proxy on loopback: ``refuse=True`` answers every request as squid denies one."""

    def __init__(self, refuse: bool = False) -> None:
        super().__init__()
        self.refuse = refuse

    def respond(self, handler: _Handler, seen: Seen, raw: bytes) -> None:
        if self.refuse:
            page = b"<html>ERROR: The requested URL could not be retrieved. Access Denied.</html>"
            handler.send(403, page, {"Server": "squid/6.6", "X-Squid-Error": "ERR_ACCESS_DENIED 0"})
            return
        if seen.method == "CONNECT":
            handler.send(501, b"this test proxy forwards plain http only")
            return
        target = urlsplit(seen.target)
        assert target.hostname and ipaddress.ip_address(target.hostname).is_loopback, seen.target
        upstream = http.client.HTTPConnection(target.hostname, target.port, timeout=10)
        forwarded = {k: v for k, v in seen.headers.items() if not k.startswith("proxy-")}
        upstream.request("POST", target.path, body=raw, headers=forwarded)
        answer = upstream.getresponse()
        handler.send(answer.status, answer.read(), {"Via": "1.1 test-proxy"})
        upstream.close()
