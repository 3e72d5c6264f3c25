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
from admitdx.synthetic.truth import ENCOUNTERS_FILE, NOTES_FILE


class Sink:
    """Rows per table and truth records for one chunk."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
        self.truth: list[dict[str, Any]] = []
        self.note_truth: list[dict[str, Any]] = []  # discharge-note sections (truth.NOTES_FILE)

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


def _jsonl_member(records: list[dict[str, Any]], level: int) -> bytes:
    return compress(
        "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode("utf-8"), level
    )


def run_chunk(
    args: tuple[int, int, int, Knobs, int],
) -> tuple[dict[str, bytes], dict[str, bytes], dict[str, int]]:
    """(first patient index, count, seed, knobs, gzip level) → (gzip member per table, gzip member
    per truth file, rows)."""
    start, count, seed, knobs, level = args
    sink = Sink()
    for index in range(start, start + count):
        generate_patient(index, seed, sink, knobs)
    members = {t: compress(csv_bytes(sink.rows[t]), level) for t in PER_PATIENT}
    truth = {
        ENCOUNTERS_FILE: _jsonl_member(sink.truth, level),
        NOTES_FILE: _jsonl_member(sink.note_truth, level),
    }
    counts = {t: len(sink.rows[t]) for t in PER_PATIENT}
    counts["_truth.encounters"] = len(sink.truth)
    counts["_truth.discharge_sections"] = len(sink.note_truth)
    return members, truth, counts
