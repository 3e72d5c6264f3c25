"""Content-addressed cache of model responses (SQLite, WAL mode).

Every LLM call costs minutes or money, and a published cache must reproduce a paper's table
without one model call. The key is the SHA-256 of a canonical JSON of everything that changes the
answer: model identity (name + revision), the messages, the sampling parameters, the output schema
and the prompt template's hash. The base URL, API key, timeout and the structured-output dialect
are deliberately *not* in the key: they say how the answer was fetched, not what was asked.

WAL mode lets many processes read while one writes; ``busy_timeout`` makes concurrent writers
wait for each other instead of failing; ``INSERT OR IGNORE`` makes two writers of the same key
harmless (both computed the same request; the first answer stays).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    raw TEXT NOT NULL,
    usage TEXT,
    latency_s REAL,
    finish_reason TEXT,
    created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
)
"""


def cache_key(request: dict[str, Any]) -> str:
    """SHA-256 of the request's canonical JSON (sorted keys, no whitespace, UTF-8)."""
    canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedResponse:
    raw: str
    usage: dict[str, Any] | None
    latency_s: float | None
    finish_reason: str | None


class ResponseCache:
    """A SQLite file shared by threads and processes; one connection per instance, guarded by a lock."""

    def __init__(self, path: Path, *, busy_timeout_s: float = 60.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._con = sqlite3.connect(
            self.path, timeout=busy_timeout_s, check_same_thread=False, isolation_level=None
        )
        self._con.execute("PRAGMA journal_mode=WAL")
        self._con.execute("PRAGMA synchronous=NORMAL")
        self._con.execute(_SCHEMA)

    def get(self, key: str) -> CachedResponse | None:
        with self._lock:
            row = self._con.execute(
                "SELECT raw, usage, latency_s, finish_reason FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        raw, usage, latency, finish = row
        return CachedResponse(raw, json.loads(usage) if usage else None, latency, finish)

    def put(
        self,
        key: str,
        request: dict[str, Any],
        raw: str,
        *,
        usage: dict[str, Any] | None,
        latency_s: float | None,
        finish_reason: str | None,
    ) -> None:
        """Store one answer; the request itself is kept too, so a published cache is inspectable."""
        with self._lock:
            self._con.execute(
                "INSERT OR IGNORE INTO responses (key, model, request, raw, usage, latency_s, finish_reason)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    str(request.get("model", "")),
                    json.dumps(request, sort_keys=True, ensure_ascii=False),
                    raw,
                    json.dumps(usage) if usage is not None else None,
                    latency_s,
                    finish_reason,
                ),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._con.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._con.close()
