"""Gzip checksums and the SHA-256 of converted Parquet tables, verified once per file and remembered.

DuckDB's gzip reader does not check a member's CRC-32 or length, so a flipped bit inside a
``.csv.gz`` either garbles a value that still parses (one demo chief complaint became
``Head38999,3, …``) or surfaces as a misleading cast error. Only a full decompression with Python's
:mod:`gzip` (which checks every member's trailer) proves the file is what PhysioNet published.

That costs a full decompression (about 20 s per GB compressed on one core), so a verified file is
remembered in :class:`Verdicts`, keyed by its identity on disk: resolved path, device, inode, size,
modification time *and* change time. Any write to the file changes ``st_ctime``, which no user tool
can set back (``touch -r`` restores only ``st_mtime``), so an edited or re-downloaded file is
verified again; a rename or copy is too. Only clean results are remembered: a damaged file is
checked again on every run, so the error goes away as soon as the file is fixed. Bit rot that
changes nothing in the inode is not seen by a remembered verdict; ``admitdx data check`` therefore
always verifies afresh (and refreshes the verdicts the other verbs use).

A Parquet copy written by ``data convert`` has no checksum a reader verifies: DuckDB writes no page
CRCs, so a flipped bit in a data page decodes as another value (one demo triage row read as a
different chief complaint, exit 0). ``convert`` therefore records each table's SHA-256 in its
manifest, and :func:`verify_sha256s` compares it on every read, remembered the same way.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import json
import logging
import os
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

GZIP_CRC = "gzip-crc32"  # what a verdict says was checked; part of the key
SHA256 = "sha256"  # the check of a file against a recorded digest; the digest is part of the key
_CHUNK = 1 << 22
# Files smaller than this are verified again each time (milliseconds) rather than remembered, so
# the cache holds only what pays for itself, not an entry for every tiny test root ever built.
MIN_REMEMBERED_BYTES = 1 << 16


def cache_dir() -> Path:
    """``$ADMITDX_CACHE_DIR/verified`` (default ``~/.cache/admitdx/verified``)."""
    base = os.environ.get("ADMITDX_CACHE_DIR") or Path.home() / ".cache" / "admitdx"
    return Path(base) / "verified"


def file_identity(path: Path) -> dict[str, Any]:
    """What must stay equal for a verdict about ``path`` to still hold (see the module docstring)."""
    st = path.stat()
    return {
        "path": str(path.resolve()),
        "dev": st.st_dev,
        "ino": st.st_ino,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "ctime_ns": st.st_ctime_ns,
    }


class Verdicts:
    """Remembered clean verdicts: one small JSON file per (check, file identity) under ``folder``.

    One file per verdict, written to a temporary name and renamed, so concurrent runs never see a
    half-written entry and need no lock. The entry's body (for example a row count) is returned by
    :meth:`get`. ``folder=None`` remembers nothing; files under ``min_bytes`` are not remembered.
    """

    def __init__(self, folder: Path | None, min_bytes: int = MIN_REMEMBERED_BYTES) -> None:
        self.folder = folder
        self.min_bytes = min_bytes

    def _entry(self, check: str, identity: dict[str, Any]) -> Path | None:
        if self.folder is None:
            return None
        key = hashlib.sha256(json.dumps([check, identity], sort_keys=True).encode()).hexdigest()
        return self.folder / key[:2] / f"{key}.json"

    def get(self, check: str, path: Path) -> dict[str, Any] | None:
        entry = self._entry(check, file_identity(path))
        if entry is None or not entry.is_file():
            return None
        try:
            body = json.loads(entry.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:  # a damaged entry only costs a re-verification
            log.warning("ignoring unreadable verdict %s (%s); the file is verified again", entry, e)
            return None
        return body if isinstance(body, dict) else None

    def put(self, check: str, identity: dict[str, Any], body: dict[str, Any]) -> None:
        """Remember a clean verdict; ``identity`` is the file's identity taken *before* it was read."""
        entry = self._entry(check, identity)
        if entry is None or identity["size"] < self.min_bytes:
            return
        if file_identity(Path(identity["path"])) != identity:
            return  # changed while it was read: the verdict may describe neither version
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            tmp = entry.with_name(f".{entry.name}.{os.getpid()}.{threading.get_ident()}")
            tmp.write_text(json.dumps({**body, "file": identity, "check": check}), encoding="utf-8")
            tmp.replace(entry)
        except OSError as e:  # a read-only or full cache costs time on the next run, never a result
            log.warning("cannot remember the verdict on %s in %s (%s)", identity["path"], self.folder, e)


def default_verdicts() -> Verdicts:
    return Verdicts(cache_dir())


@dataclass(frozen=True)
class GzipResult:
    path: Path
    damage: str | None  # why the file is not a valid gzip, or None
    remembered: bool  # the clean verdict came from an earlier run
    seconds: float


def gzip_damage(path: Path) -> str | None:
    """Why ``path`` is not an intact gzip file (CRC, length, truncation), or None.

    Raises PermissionError (and other OSErrors that are not about the content) to the caller: a
    file that cannot be opened is not a corrupt file, and must not be reported as one.
    """
    try:
        with gzip.open(path, "rb") as f:
            while f.read(_CHUNK):
                pass
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        return str(e) or type(e).__name__
    except OSError as e:
        if e.errno in (errno.EACCES, errno.EPERM, errno.ENOENT, errno.EISDIR):
            raise
        return str(e) or type(e).__name__  # gzip reports some damage as a bare OSError
    return None


def verify_gzip(path: Path, verdicts: Verdicts, *, fresh: bool = False) -> GzipResult:
    """Check one gzip file's CRC and length, unless a clean verdict for it is remembered.

    ``fresh``: verify even when a verdict exists (``data check``), and record the result.
    """
    started = time.perf_counter()
    if not fresh and verdicts.get(GZIP_CRC, path) is not None:
        return GzipResult(path, None, True, time.perf_counter() - started)
    identity = file_identity(path)
    damage = gzip_damage(path)
    seconds = time.perf_counter() - started
    if damage is None:
        verdicts.put(GZIP_CRC, identity, {"seconds": round(seconds, 3)})
    return GzipResult(path, damage, False, seconds)


def verify_gzips(
    paths: Iterable[Path],
    verdicts: Verdicts,
    *,
    fresh: bool = False,
    workers: int | None = None,
    on_done: Callable[[GzipResult], None] | None = None,
) -> dict[Path, GzipResult]:
    """:func:`verify_gzip` for several files at once (zlib releases the GIL, so threads scale).

    ``on_done`` is called from the worker threads as each file finishes (for a progress bar)."""
    todo = sorted(set(paths), key=lambda p: -p.stat().st_size)  # largest first: shortest makespan

    def one(path: Path) -> GzipResult:
        result = verify_gzip(path, verdicts, fresh=fresh)
        if on_done:
            on_done(result)
        return result

    workers = workers or min(4, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(todo) or 1))) as pool:
        return {r.path: r for r in pool.map(one, todo)}


def sha256_of(path: Path) -> str:
    """The file's SHA-256 (hashlib releases the GIL on these large updates, so threads scale)."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def verify_sha256s(
    expected: dict[Path, str], verdicts: Verdicts, *, fresh: bool = False, workers: int | None = None
) -> dict[Path, str]:
    """The files of ``expected`` (path → recorded SHA-256) whose content has another digest, with
    that digest; a match is remembered, keyed by the file's identity *and* the recorded digest, so
    only a file written or replaced since (or recorded anew) is hashed again. ``fresh``: hash
    every file even when a verdict exists (``data check``)."""

    def one(item: tuple[Path, str]) -> tuple[Path, str | None]:
        path, digest = item
        check = f"{SHA256}-{digest}"
        if not fresh and verdicts.get(check, path) is not None:
            return path, None
        identity = file_identity(path)
        actual = sha256_of(path)
        if actual != digest:
            return path, actual
        verdicts.put(check, identity, {})
        return path, None

    todo = sorted(expected.items(), key=lambda kv: -kv[0].stat().st_size)  # largest first
    workers = workers or min(4, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(todo) or 1))) as pool:
        return {path: actual for path, actual in pool.map(one, todo) if actual is not None}
