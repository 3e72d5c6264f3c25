"""Writing a dataset directory, for every task: instances as JSON lines and Parquet (streamed, one
batch at a time) and ``coverage.csv``. Everything goes to a staging folder first and is moved into
place only when the build completes, so an interrupted build never leaves a half-written dataset
behind. The Parquet schema comes from the task: its section names and its meta fields.

For Hugging Face ``datasets`` the writer also adds one Parquet file per split (``data/<split>.parquet``,
the same rows with ``t0`` as a timestamp) and a dataset card (``README.md``) whose ``configs:``
names them, so ``datasets.load_dataset(DIR)`` returns a ``DatasetDict`` of the real splits and
never globs ``manifest.json`` or ``audit.jsonl`` as data. ``instances.jsonl`` and
``instances.parquet`` are unchanged by this (their bytes are pinned).
"""

from __future__ import annotations

import csv
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from admitdx.contracts import INSTANCES_FILE
from admitdx.jsonl import dumps
from admitdx.runs import MANIFEST_FILE
from admitdx.tasks.leak_audit import LEAK_AUDIT_FILE, LeakAudit, record_in_manifest

PARQUET_FILE = "instances.parquet"
COVERAGE_FILE = "coverage.csv"
STAGING_DIR = ".building"
SPLITS_DIR = "data"
CARD_FILE = "README.md"

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
        self._splits = SplitFiles(self.staging / SPLITS_DIR, schema)
        self._audit = LeakAudit(self.staging / LEAK_AUDIT_FILE)  # every build is audited (leak_audit.py)
        self.written = 0

    def write(self, record: dict[str, Any]) -> None:
        try:
            self._jsonl.write(dumps(record) + "\n")
        except OSError as e:  # a full disk or a file-size limit: name the file (a write error names none)
            e.filename = e.filename or str(self._jsonl.name)
            raise
        self._audit.add(record)
        self._batch.append(record)
        self.written += 1
        if len(self._batch) >= self._batch_size:
            self._flush()

    def _flush(self) -> None:
        if self._batch:
            self._parquet.write_table(pa.Table.from_pylist(self._batch, schema=self.schema))
            self._splits.write(self._batch)
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
        if (self.staging / MANIFEST_FILE).is_file():
            record_in_manifest(self.staging / MANIFEST_FILE, self._audit.counts())
        # the dataset card for Hugging Face datasets, naming the per-split files written
        (self.staging / CARD_FILE).write_text(dataset_card(self._splits.counts), encoding="utf-8")
        (self.out_dir / MANIFEST_FILE).unlink(missing_ok=True)
        staged = sorted(self.staging.iterdir(), key=lambda path: path.name == MANIFEST_FILE)
        for path in staged:
            target = self.out_dir / path.name
            if path.is_dir() and target.is_dir():  # a previous build's per-split folder, replaced whole
                shutil.rmtree(target)
            path.replace(target)
        self.staging.rmdir()

    def abort(self) -> None:
        """Drop everything staged; the dataset directory keeps what it had before.

        Closing may itself fail after a write error (a full disk fails the final flush): the
        staged patient text is removed whatever happens, and the original error is the one raised.
        """
        try:
            self._audit.close()
            if not self._jsonl.closed:
                self._jsonl.close()
        except OSError:
            pass  # the error that made us abort is already propagating; the file is removed below
        finally:
            try:
                self._parquet.close()
                self._splits.close()
            except (OSError, pa.ArrowException):
                pass  # as above
            finally:
                shutil.rmtree(self.staging, ignore_errors=True)

    def _close(self) -> None:
        self._flush()
        self._jsonl.close()
        self._audit.close()
        self._parquet.close()
        self._splits.close()


def split_schema(schema: pa.Schema) -> pa.Schema:
    """The per-split files' schema: the instance schema with ``t0`` as a timestamp (seconds)."""
    index = schema.get_field_index("t0")
    return schema if index < 0 else schema.set(index, pa.field("t0", pa.timestamp("s")))


class SplitFiles:
    """One Parquet writer per split, opened at the split's first row (``data/<split>.parquet``)."""

    def __init__(self, folder: Path, schema: pa.Schema) -> None:
        self.folder = folder
        self.schema = split_schema(schema)
        self._writers: dict[str, pq.ParquetWriter] = {}
        self.counts: dict[str, int] = {}

    def write(self, records: list[dict[str, Any]]) -> None:
        by_split: dict[str, list[dict[str, Any]]] = {}
        for record in records:
            by_split.setdefault(str(record["split"]), []).append(_timestamped(record))
        for split, rows in by_split.items():
            if split not in self._writers:
                self.folder.mkdir(parents=True, exist_ok=True)
                self._writers[split] = pq.ParquetWriter(self.folder / f"{split}.parquet", self.schema)
            self._writers[split].write_table(pa.Table.from_pylist(rows, schema=self.schema))
            self.counts[split] = self.counts.get(split, 0) + len(rows)

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers = {}


def _timestamped(record: dict[str, Any]) -> dict[str, Any]:
    t0 = record.get("t0")
    return {**record, "t0": datetime.fromisoformat(t0)} if isinstance(t0, str) else record


#: Which encounters the splits hold (issue 23): all that were built, while scoring evaluates only
#: the benchmark set of an audited dataset, so a user of the Parquet splits must filter the same way.
_WHICH_SET = (
    "The splits hold every built encounter. Once audited (`admitdx audit`), an encounter whose labels "
    "are all unsupported has `meta.retained = false`: it is outside the benchmark set, which "
    "`admitdx predict` and `admitdx score` use by default (EarlyDx §4.1); filter on `meta.retained` "
    "to do the same.\n\n"
)
_PRIVACY = (
    "**This folder holds MIMIC-derived text.** It is covered by the PhysioNet credentialed data use "
    "agreement: keep it with your MIMIC data, and do not upload it to a hub or share it.\n"
)


def _ordered(counts: dict[str, int]) -> list[str]:
    return sorted(counts, key=lambda s: (s != "train", s != "val", s))


def _config(name: str, folder: str, counts: dict[str, int]) -> str:
    """One ``configs:`` entry: each split with rows, mapped to ``<folder>data/<split>.parquet``."""
    files = "".join(
        f"  - split: {s}\n    path: {folder}{SPLITS_DIR}/{s}.parquet\n" for s in _ordered(counts) if counts[s]
    )
    return f"- config_name: {name}\n  data_files:\n{files}"


def dataset_card(counts: dict[str, int]) -> str:
    """``README.md``: the Hugging Face dataset card whose ``configs:`` maps each split to its file."""
    sizes = ", ".join(f"{s} {counts[s]}" for s in _ordered(counts))
    return (
        f"---\nconfigs:\n{_config('default', '', counts)}---\n\n"
        "# admitdx dataset\n\n"
        f'Instances per split: {sizes}. Load with `datasets.load_dataset("<this folder>")`; the same rows '
        "are in `instances.jsonl` (what admitdx reads) and `instances.parquet`.\n\n" + _WHICH_SET + _PRIVACY
    )


def configs_card(datasets: dict[str, dict[str, int]]) -> str:
    """``README.md`` of a build of several datasets (one subfolder each): one named configuration
    per dataset, so ``datasets.load_dataset(DIR, "hosp-icd9")`` gives that dataset's own splits
    and never merges two datasets (a plain ``load_dataset(DIR)`` would glob them all together)."""
    configs = "".join(_config(name, f"{name}/", counts) for name, counts in datasets.items())
    sizes = "; ".join(
        f"{name}: " + ", ".join(f"{s} {counts[s]}" for s in _ordered(counts))
        for name, counts in datasets.items()
    )
    first = next(iter(datasets), "NAME")
    return (
        f"---\nconfigs:\n{configs}---\n\n"
        "# admitdx datasets\n\n"
        f"One configuration per dataset ({sizes}). Load one with "
        f'`datasets.load_dataset("<this folder>", "{first}")`; each subfolder is a complete admitdx '
        "dataset of its own.\n\n" + _WHICH_SET + _PRIVACY
    )


def write_coverage(path: Path, coverage: dict[str, dict[str, Any]]) -> None:
    """``section, cohort_present, cohort_fraction, dataset_present, dataset_fraction``."""
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["section", "cohort_present", "cohort_fraction", "dataset_present", "dataset_fraction"])
        for name, c in coverage.items():
            w.writerow(
                [name, c["cohort_present"], c["cohort_fraction"], c["dataset_present"], c["dataset_fraction"]]
            )
