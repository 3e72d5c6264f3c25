"""Line-delimited JSON: the on-disk format of instances, predictions and matches.

Writers append one record per line and flush, so a killed process leaves every completed line
intact; readers skip a final partial line (the one a kill may cut). Any other damage — a missing
file, a line that is not JSON or not a JSON object, bytes that are not UTF-8 — stops the reader
with an :class:`~admitdx.errors.InputError` naming the file and line. A UTF-8 byte-order mark at
the start (left by some editors) is accepted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from admitdx.errors import InputError


def dumps(record: dict[str, Any]) -> str:
    """One canonical line: sorted keys would reorder sections, so keep insertion order; no NaN."""
    return json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> int:
    """Write records to ``path`` (replacing it); return the number written."""
    n = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for record in records:
            f.write(dumps(record) + "\n")
            n += 1
    return n


def drop_partial_tail(path: Path) -> bool:
    """Cut a final line that lacks its newline (left by a kill mid-write); True if one was cut.

    Call this before appending to a file a previous run may have been killed while writing.
    """
    if not path.exists() or path.stat().st_size == 0:
        return False
    with path.open("rb+") as f:
        data = f.read()
        if data.endswith(b"\n"):
            return False
        f.truncate(data.rfind(b"\n") + 1)
    return True


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one record and flush it to the OS, so a crash loses at most the record in flight."""
    with path.open("a", encoding="utf-8") as f:
        f.write(dumps(record) + "\n")
        f.flush()


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Yield records; a truncated last line (an interrupted append) is skipped, any other bad line
    is an InputError naming the file and line."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path} does not exist", hint="check the path, or run the stage that writes it")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError("bytes that are not UTF-8", table=str(path), row=line) from None
    # split on newlines only: a record may hold U+2028 and other characters str.splitlines breaks on
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)  # a third of json.loads's time: scoring reads ~10^5 lines
        except orjson.JSONDecodeError:
            if i == len(lines) - 1:
                return  # no newline after it: the write a kill interrupted; the resumed run redoes it
            raise InputError(
                f"line is not JSON: {line.strip()[:60]!r}",
                table=str(path),
                row=i + 1,
                hint="the file was edited or damaged; restore it, or delete the directory and rerun",
            ) from None
        if not isinstance(record, dict):
            raise InputError("line is not a JSON object", table=str(path), row=i + 1)
        yield record
