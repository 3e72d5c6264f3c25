"""A loopback OpenAI-compatible HTTP server that misbehaves on purpose.

It exists to test and benchmark the *client*: retries, Retry-After, timeouts, truncated and
malformed bodies, throughput under a fixed latency. It is not a stand-in for a language model:
its answer is a fixed function of the request (by default a JSON object naming a digest of the
last user message), so a test can check that every request got exactly its own answer.

Faults (each drawn with probability ``fault_rate`` from a seeded generator, uniformly among
``faults``):

- ``429``: Too Many Requests with ``Retry-After: <retry_after>``;
- ``500``: Internal Server Error;
- ``slow``: waits ``slow_s`` before answering (longer than the client's timeout in the tests);
- ``truncate``: announces a Content-Length, sends half the body, closes the connection;
- ``malformed``: 200 with a Content-Type of JSON and a body that is not JSON;
- ``drop``: closes the connection without any response.

Written on raw asyncio streams rather than a web framework so that truncation and dropped
connections are real socket events. Run it in a thread (:meth:`FaultServer.start`) or as a process::

    python -m admitdx.llm.fault_server --latency 0.2     # prints "PORT <n>" when listening
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

FAULTS = ("429", "500", "slow", "truncate", "malformed", "drop")


def digest_answer(body: dict[str, Any]) -> str:
    """The default answer: a JSON list naming the SHA-256 prefix of the last user message."""
    last = next((m["content"] for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
    tag = hashlib.sha256(str(last).encode()).hexdigest()[:12]
    return json.dumps({"diagnoses": [f"answer {tag}"]})


class FaultServer:
    def __init__(
        self,
        *,
        latency_s: float = 0.0,
        fault_rate: float = 0.0,
        faults: tuple[str, ...] = FAULTS,
        retry_after: str = "0",
        slow_s: float = 2.0,
        seed: int = 0,
        answer: Callable[[dict[str, Any]], str] = digest_answer,
    ) -> None:
        unknown = set(faults) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown faults {sorted(unknown)}; choose from {FAULTS}")
        self.latency_s = latency_s
        self.fault_rate = fault_rate
        self.faults = faults
        self.retry_after = retry_after
        self.slow_s = slow_s
        self.answer = answer
        self.rng = random.Random(seed)
        self.counts: Counter[str] = Counter()
        self.port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None
        self._connections: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ protocol
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                headers = dict(
                    line.split(":", 1) for line in head.decode("latin-1").split("\r\n")[1:] if ":" in line
                )
                length = int(
                    {k.strip().lower(): v.strip() for k, v in headers.items()}.get("content-length", 0)
                )
                body = json.loads(await reader.readexactly(length)) if length else {}
                if not await self._respond(body, writer):
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # the client closed the connection (normal end of keep-alive, or a client timeout)
        except asyncio.CancelledError:
            pass  # shutdown; ending normally keeps asyncio's stream callback from logging the cancel
        finally:
            self._connections.discard(task)
            writer.close()

    async def _respond(self, body: dict[str, Any], writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False when the connection must be closed afterwards."""
        self.counts["requests"] += 1
        fault = self.rng.choice(self.faults) if self.rng.random() < self.fault_rate else None
        self.counts[fault or "ok"] += 1
        if fault == "drop":
            return False
        if fault == "429":
            await self._send(writer, 429, b'{"error":"rate limited"}', {"Retry-After": self.retry_after})
            return True
        if fault == "500":
            await self._send(writer, 500, b'{"error":"internal"}')
            return True
        if fault == "malformed":
            await self._send(writer, 200, b'{"id": "x", "choices": [{"message": {"content": "tru')
            return True
        await asyncio.sleep(self.slow_s if fault == "slow" else self.latency_s)
        payload = json.dumps(
            {
                "id": "fault-server",
                "object": "chat.completion",
                "model": body.get("model", "fault-server"),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": self.answer(body)},
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        ).encode()
        if fault == "truncate":
            await self._send(writer, 200, payload, truncate=True)
            return False
        await self._send(writer, 200, payload)
        return True

    @staticmethod
    async def _send(
        writer: asyncio.StreamWriter,
        status: int,
        payload: bytes,
        extra: dict[str, str] | None = None,
        *,
        truncate: bool = False,
    ) -> None:
        reason = {200: "OK", 429: "Too Many Requests", 500: "Internal Server Error"}[status]
        head = [
            f"HTTP/1.1 {status} {reason}",
            "Content-Type: application/json",
            f"Content-Length: {len(payload)}",
        ]
        head += [f"{k}: {v}" for k, v in (extra or {}).items()]
        writer.write(
            ("\r\n".join(head) + "\r\n\r\n").encode()
            + (payload[: len(payload) // 2] if truncate else payload)
        )
        await writer.drain()

    # ------------------------------------------------------------------ lifecycle
    async def serve(self, port: int = 0, ready: Callable[[int], None] | None = None) -> None:
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", port, backlog=1024)
        self.port = server.sockets[0].getsockname()[1]
        if ready:
            ready(self.port)
        async with server:
            await self._stop.wait()
            for task in list(self._connections):  # idle keep-alive connections would otherwise linger
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)

    def start(self) -> FaultServer:
        """Serve from a daemon thread; returns once the port is bound."""
        bound = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_until_complete, args=(self.serve(0, lambda _: bound.set()),), daemon=True
        )
        self._thread.start()
        if not bound.wait(10):
            raise RuntimeError("fault server did not start within 10 s")
        return self

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self._loop and self._stop and self._thread:
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    ap = argparse.ArgumentParser(
        description="Loopback OpenAI-compatible server with fixed latency and faults."
    )
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--latency", type=float, default=0.2, help="seconds before each answer")
    ap.add_argument("--fault-rate", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    server = FaultServer(latency_s=args.latency, fault_rate=args.fault_rate, seed=args.seed)
    asyncio.run(server.serve(args.port, lambda port: print(f"PORT {port}", flush=True)))


if __name__ == "__main__":
    main()
