"""Content-addressed cache of model responses (SQLite, WAL mode).

Every LLM call costs minutes or money, and a published cache must reproduce a paper's table
without one model call. The key is the SHA-256 of a canonical JSON of everything that changes the
answer: model identity (name + revision), the messages, the sampling parameters, the output schema
and the prompt template's hash. The base URL, API key, timeout and the structured-output dialect
are deliberately *not* in the key: they say how the answer was fetched, not what was asked.

WAL mode lets many processes read while one writes; ``busy_timeout`` makes concurrent writers
wait for each other instead of failing; ``INSERT OR IGNORE`` makes two writers of the same key
harmless (both computed the same request; the first answer stays).

A damaged file (a flipped page, a truncated copy, something that is not SQLite at all) is never
"repaired" by dropping it: a published cache may be the only way to reproduce a table, since the
weights behind an API alias change. Every SQLite failure becomes a :class:`CacheError` (exit 2)
that names the file and the two ways on: restore it, or move it aside and recompute.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from admitdx.errors import UsageError

# SQLite's result codes for a file that is not (or no longer) a readable database.
DAMAGED_CODES = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_FORMAT"})

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


class CacheError(UsageError):
    """The response cache file cannot be opened, read or written."""


def cache_error(path: Path, error: sqlite3.Error | OSError) -> CacheError:
    """The message for ``error`` on the cache at ``path``: damaged, or unusable for another reason."""
    name = getattr(error, "sqlite_errorname", None)
    if name in DAMAGED_CODES:
        return CacheError(
            f"the LLM response cache {path} is damaged (SQLite: {error}); finished outputs are kept",
            hint=f"restore it from where it came from (a published cache cannot always be recomputed), "
            f"or move it aside and rerun to recompute its answers: mv {path} {path}.damaged "
            f"(and remove {path}-wal and {path}-shm if present)",
        )
    if name in ("SQLITE_BUSY", "SQLITE_LOCKED"):
        return CacheError(
            f"the LLM response cache {path} stayed locked by another process: {error}",
            hint="wait for the other run to finish and rerun, or give this run its own cache_path=...",
        )
    return CacheError(
        f"cannot use the LLM response cache {path}: {error}",
        hint="check that its folder exists and is writable, or choose another file with cache_path=...",
    )


class ResponseCache:
    """A SQLite file shared by threads and processes; one connection per instance, guarded by a lock."""

    def __init__(self, path: Path, *, busy_timeout_s: float = 60.0) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        with self._translated():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._con = sqlite3.connect(
                self.path, timeout=busy_timeout_s, check_same_thread=False, isolation_level=None
            )
            try:  # a file that is not SQLite fails here, at the first statement, not at connect()
                self._con.execute("PRAGMA journal_mode=WAL")
                self._con.execute("PRAGMA synchronous=NORMAL")
                self._con.execute(_SCHEMA)
            except sqlite3.Error:
                self._con.close()
                raise

    @contextmanager
    def _translated(self) -> Iterator[None]:
        """Hold the lock and turn SQLite and OS errors into a CacheError that says what to do."""
        try:
            with self._lock:
                yield
        except (sqlite3.Error, OSError) as e:
            raise cache_error(self.path, e) from e

    def get(self, key: str) -> CachedResponse | None:
        with self._translated():
            row = self._con.execute(
                "SELECT raw, usage, latency_s, finish_reason FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        raw, usage, latency, finish = row
        if not isinstance(raw, str):  # a number a server once sent as its content: not an answer, ask again
            with self._translated():
                self._con.execute("DELETE FROM responses WHERE key = ?", (key,))
            return None
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
        with self._translated():
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
        with self._translated():
            return int(self._con.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._con.close()
