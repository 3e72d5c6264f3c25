"""Writing a dataset directory, for every task: instances as JSON lines and Parquet (streamed, one
batch at a time) and ``coverage.csv``. Everything goes to a staging folder first and is moved into
place only when the build completes, so an interrupted build never leaves a half-written dataset
behind. The Parquet schema comes from the task: its section names and its meta fields."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from admitdx.contracts import INSTANCES_FILE
from admitdx.jsonl import dumps
from admitdx.runs import MANIFEST_FILE

PARQUET_FILE = "instances.parquet"
COVERAGE_FILE = "coverage.csv"
STAGING_DIR = ".building"

_S = pa.string()
REFERENCE = pa.struct(
    [
        ("text", _S),
        ("code", _S),
        ("code_system", _S),
        ("seq_num", pa.int64()),
        ("ed_title", _S),
        ("dictionary_title", _S),
        ("explicit", pa.bool_()),
        ("evidence_class", _S),
        ("evidence_quote", _S),
    ]
)


def instance_schema(
    sections: tuple[str, ...], meta: tuple[tuple[str, pa.DataType], ...], *, target: bool = False
) -> pa.Schema:
    """The Parquet schema of ``instances.parquet`` (same rows as the JSONL): the task's sections
    and meta fields; ``target`` adds the gold answer column of category and text tasks."""
    fields = [
        ("id", _S),
        ("subject_id", pa.int64()),
        ("task", _S),
        ("split", _S),
        ("sections", pa.struct([(name, _S) for name in sections])),
        ("text", _S),
        ("references", pa.list_(REFERENCE)),
        ("meta", pa.struct(list(meta))),
        ("history", _S),
        ("hadm_id", pa.int64()),
        ("stay_id", pa.int64()),
        ("t0", _S),
    ]
    if target:
        fields.append(("target", _S))
    return pa.schema(fields)


class InstanceWriter:
    """Streams instance dicts to ``instances.jsonl`` and ``instances.parquet`` in a staging folder."""

    def __init__(self, out_dir: Path, schema: pa.Schema, batch_size: int = 2000) -> None:
        self.out_dir = Path(out_dir)
        self.schema = schema
        self.staging = self.out_dir / STAGING_DIR
        if self.staging.exists():
            shutil.rmtree(self.staging)
        self.staging.mkdir(parents=True)
        self._jsonl = (self.staging / INSTANCES_FILE).open("w", encoding="utf-8")
        self._parquet = pq.ParquetWriter(self.staging / PARQUET_FILE, schema)
        self._batch: list[dict[str, Any]] = []
        self._batch_size = batch_size
        self.written = 0

    def write(self, record: dict[str, Any]) -> None:
        self._jsonl.write(dumps(record) + "\n")
        self._batch.append(record)
        self.written += 1
        if len(self._batch) >= self._batch_size:
            self._flush()

    def _flush(self) -> None:
        if self._batch:
            self._parquet.write_table(pa.Table.from_pylist(self._batch, schema=self.schema))
            self._batch = []

    def staged(self, name: str) -> Path:
        """A path in the staging folder for another output file (moved in by :meth:`commit`)."""
        return self.staging / name

    def commit(self) -> None:
        """Close the files and move every staged file into the dataset directory, manifest last.

        The old manifest goes first: a kill between two renames leaves a directory with no
        manifest, which no stage accepts as a finished build (the rerun rebuilds it), never a mix
        of old and new files under a manifest that vouches for them.
        """
        self._close()
        (self.out_dir / MANIFEST_FILE).unlink(missing_ok=True)
        staged = sorted(self.staging.iterdir(), key=lambda path: path.name == MANIFEST_FILE)
        for path in staged:
            path.replace(self.out_dir / path.name)
        self.staging.rmdir()

    def abort(self) -> None:
        """Drop everything staged; the dataset directory keeps what it had before.

        Closing may itself fail after a write error (a full disk fails the final flush): the
        staged patient text is removed whatever happens, and the original error is the one raised.
        """
        try:
            if not self._jsonl.closed:
                self._jsonl.close()
        except OSError:
            pass  # the error that made us abort is already propagating; the file is removed below
        finally:
            try:
                self._parquet.close()
            except (OSError, pa.ArrowException):
                pass  # as above
            finally:
                shutil.rmtree(self.staging, ignore_errors=True)

    def _close(self) -> None:
        self._flush()
        self._jsonl.close()
        self._parquet.close()


def write_coverage(path: Path, coverage: dict[str, dict[str, Any]]) -> None:
    """``section, cohort_present, cohort_fraction, dataset_present, dataset_fraction``."""
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["section", "cohort_present", "cohort_fraction", "dataset_present", "dataset_fraction"])
        for name, c in coverage.items():
            w.writerow(
                [name, c["cohort_present"], c["cohort_fraction"], c["dataset_present"], c["dataset_fraction"]]
            )
