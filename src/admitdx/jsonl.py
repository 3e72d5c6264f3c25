"""Line-delimited JSON: the on-disk format of instances, predictions and matches.

Writers append one record per line and flush, so a killed process leaves every completed line
intact; readers skip a final partial line (the one a kill may cut). Any other damage — a missing
file, a line that is not JSON or not a JSON object, bytes that are not UTF-8 — stops the reader
with an :class:`~admitdx.errors.InputError` naming the file and line. A UTF-8 byte-order mark at
the start (left by some editors) is accepted.

Both directions use orjson (scoring reads ~10^5 lines and writes ~5·10^4). Reading parses a clean
file (every line one object, none blank, a newline at the end) in one pass and leaves any other
file to the careful line-by-line reader, which finds and names what is wrong. Writing keeps a
line orjson wrote only where it cannot differ from :func:`json.dumps`, whose bytes are the
format: no ``null`` (orjson writes NaN as null where json refuses it) and no float in exponent or
``0.0000…`` notation (the two switch notation at different magnitudes); any other line, and any
record orjson refuses, goes through ``json.dumps`` as before.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from admitdx.errors import InputError

_BOM = "\ufeff".encode()
#: every digit as 0 and "E" as "e", so that one substring test finds a digit before an exponent
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789E", b"000000000e")
#: hand every type orjson would serialize on its own but json refuses (dataclasses, dates, str and
#: int subclasses) back as a TypeError, so json.dumps decides
_ORJSON_OPTIONS = (
    orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def dumps(record: dict[str, Any]) -> str:
    """One canonical line: sorted keys would reorder sections, so keep insertion order; no NaN."""
    return json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _dumps_bytes(record: dict[str, Any]) -> bytes:
    """:func:`dumps` as UTF-8 bytes, by orjson where that is byte-identical (module docstring)."""
    try:
        line = orjson.dumps(record, option=_ORJSON_OPTIONS)
    except TypeError:  # a type orjson does not take (numpy scalar, int key, big int): json decides
        return dumps(record).encode("utf-8")
    return dumps(record).encode("utf-8") if _may_differ(line) else line


def _may_differ(line: bytes) -> bool:
    """Could json.dumps write this record otherwise? Yes where orjson wrote null (NaN or inf are
    null to orjson, an error to json) or a float in exponent or ``0.0000…`` notation; text that
    looks like these inside a string only costs the slow path."""
    return b"null" in line or b"0.0000" in line or b"0e" in line.translate(_DIGITS_AS_ZERO)


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> int:
    """Write records to ``path`` (replacing it); return the number written.

    Records are written in chunks of :data:`_CHUNK` lines: orjson writes a chunk, and one look
    at the whole chunk (not one per line) tells whether it may keep that chunk's bytes."""
    n = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    chunk: list[dict[str, Any]] = []
    with path.open("wb") as f:
        for record in records:
            chunk.append(record)
            if len(chunk) == _CHUNK:
                f.write(_dumps_chunk(chunk))
                n += len(chunk)
                chunk = []
        f.write(_dumps_chunk(chunk))
    return n + len(chunk)


_CHUNK = 1024


def encode_jsonl(records: list[dict[str, Any]]) -> bytes:
    """The bytes :func:`write_jsonl` writes for ``records``: for a file assembled from parts that
    were encoded elsewhere (scoring encodes each system's lines in its own worker process)."""
    return b"".join([_dumps_chunk(records[k : k + _CHUNK]) for k in range(0, len(records), _CHUNK)])


def _dumps_chunk(records: list[dict[str, Any]]) -> bytes:
    """The lines of ``records``, each ended by a newline, byte for byte as :func:`dumps` writes them."""
    try:
        text = b"".join(
            [orjson.dumps(r, option=_ORJSON_OPTIONS | orjson.OPT_APPEND_NEWLINE) for r in records]
        )
    except TypeError:
        text = None
    if text is None or _may_differ(text):
        return b"".join([_dumps_bytes(r) + b"\n" for r in records])
    return text


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
    data = _read(Path(path))
    records = _parse_clean(data)
    if records is not None:
        yield from records
        return
    for _, record in _parse_careful(Path(path), data):
        yield record


def read_jsonl_numbered(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) pairs, read as :func:`read_jsonl` reads them: for readers that check
    each record's fields and must name the line of a bad one."""
    data = _read(Path(path))
    records = _parse_clean(data)
    if records is not None:
        return enumerate(records, start=1)
    return _parse_careful(Path(path), data)


def _read(path: Path) -> bytes:
    if not path.is_file():
        raise InputError(f"{path} does not exist", hint="check the path, or run the stage that writes it")
    return path.read_bytes()


def _parse_clean(data: bytes) -> list[dict[str, Any]] | None:
    """The records of a clean file — every line one JSON object, ended by a newline, none blank —
    in one pass without per-line checks; None for any other file, which :func:`_parse_careful`
    then reads (and explains). orjson checks the UTF-8 of each line itself."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    if not data:
        return []
    if not data.endswith(b"\n") or data.startswith(b"\n") or b"\n\n" in data:
        return None
    loads = orjson.loads
    try:
        records = [loads(line) for line in data[:-1].split(b"\n")]
    except orjson.JSONDecodeError:
        return None
    return records if set(map(type, records)) == {dict} else None


def _parse_careful(path: Path, data: bytes) -> Iterator[tuple[int, dict[str, Any]]]:
    """Line by line: skips blank lines and a partial last line, names the first bad line."""
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
        yield i + 1, record
