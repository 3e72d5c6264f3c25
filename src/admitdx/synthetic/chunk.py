"""Generate one chunk of patients into gzip-compressed CSV members, one per table.

A chunk is the unit of work a worker process does: it generates its patients into in-memory rows,
serialises each table with the ``csv`` module (RFC 4180 quoting, empty field = NULL), and
compresses it as one self-contained gzip member (mtime 0, no file name). Members of consecutive
chunks concatenate into a valid gzip file, so the parent only appends bytes in chunk order and
the output is the same whatever the number of workers.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections import defaultdict
from typing import Any

from admitdx.synthetic.calibration import Knobs
from admitdx.synthetic.tables import PER_PATIENT
from admitdx.synthetic.timeline import generate_patient


class Sink:
    """Rows per table and truth records for one chunk."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
        self.truth: list[dict[str, Any]] = []

    def add(self, table: str, row: tuple[Any, ...]) -> None:
        self.rows[table].append(row)


def compress(data: bytes, level: int) -> bytes:
    return gzip.compress(data, compresslevel=level, mtime=0)


def csv_bytes(rows: list[tuple[Any, ...]], header: tuple[str, ...] | None = None) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if header:
        writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


def run_chunk(args: tuple[int, int, int, Knobs, int]) -> tuple[dict[str, bytes], bytes, dict[str, int]]:
    """(first patient index, count, seed, knobs, gzip level) → (gzip member per table, truth member, rows)."""
    start, count, seed, knobs, level = args
    sink = Sink()
    for index in range(start, start + count):
        generate_patient(index, seed, sink, knobs)
    members = {t: compress(csv_bytes(sink.rows[t]), level) for t in PER_PATIENT}
    truth = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in sink.truth)
    counts = {t: len(sink.rows[t]) for t in PER_PATIENT}
    counts["_truth.encounters"] = len(sink.truth)
    return members, compress(truth.encode("utf-8"), level), counts
