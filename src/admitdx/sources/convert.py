"""``admitdx data convert``: a typed, subject-sorted Parquet copy of a MIMIC-IV root.

Each table is streamed by DuckDB ``COPY (SELECT * FROM <typed view> ORDER BY ...) TO ... (FORMAT
parquet)``; nothing passes through Python, and DuckDB spills the sort to ``<out>/.duckdb_tmp`` when a
table (full labevents: 158 M rows) does not fit in memory. The output keeps the module layout
(``<out>/hosp/labevents.parquet``, ``<out>/ecg/record_list.parquet``) with lower-case MIMIC column
names and the schema's types, so :func:`admitdx.sources.mimic.open_mimic` reads it exactly like the
CSV original, only faster: timestamps are already parsed and rows of one patient sit together, so
per-subject filters skip whole row groups.

Why sorted by ``subject_id`` then the table's first time column: builders select a cohort of
subjects and read their events in time order; Parquet row-group min/max statistics on the leading
sort key turn those filters into skipped reads. Order among rows that tie on both keys is unspecified.

Before a table is written it passes every check ``data check`` would make of it (gzip checksums,
required columns, value types, NOT NULL keys, row rules, rows in a required table): a Parquet copy
has no gzip CRC left to catch a flipped bit, and its sorted rows no longer match the original's row
numbers, so a problem found later could no longer be traced to the file that has it.

Resuming: each Parquet file records the path, size and modification time of the file it was made
from (key-value metadata ``admitdx_source``); a rerun skips tables whose source is unchanged and
whose SHA-256 is still the one recorded when they were written, so an interrupted conversion
continues where it stopped and a table altered since is written again. Files are written under a
temporary name and renamed when complete, so an interruption never leaves a half-written table
behind; the folder's manifest says ``complete: false`` until the last table is in place, and
readers refuse the folder until then (:mod:`admitdx.sources.conversion`). Converting another root
into the same folder first removes the tables of the earlier conversion that the new root does not
have.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from admitdx.errors import UsageError, output_errors, writable_dir
from admitdx.runs import LOCK_FILE, MANIFEST_FILE
from admitdx.sources.conversion import (
    SOURCE_KEY,
    made_by_convert,
    read_conversion,
    recorded_entries,
    table_entry,
    target_of,
    write_complete,
    write_plan,
)
from admitdx.sources.files import TableFile, discover_tables
from admitdx.sources.integrity import GzipResult, sha256_of
from admitdx.sources.mimic import MimicSource, Needs, open_mimic
from admitdx.sources.readers import quote_ident, sql_path

DEFAULT_COMPRESSION = "zstd"
COMPRESSIONS = ("zstd", "snappy", "gzip", "lz4", "brotli", "uncompressed")
# The subject sort is the only memory-hungry step; DuckDB spills it to disk beyond this limit. 2 GB
# keeps the process under the 4 GiB target (peak RSS ~2.1 GB on a 12 M-row root) at no measured
# cost in speed; 1 GB halves the peak but doubles the time.
DEFAULT_MEMORY_LIMIT = "2GB"
DEFAULT_ROW_GROUP_SIZE = 122_880  # DuckDB's default: ~1 M-row groups would weaken subject skipping
_TIME_TYPES = ("TIMESTAMP", "DATE")


@dataclass(frozen=True)
class ConvertedTable:
    qualified: str
    path: Path
    rows: int
    seconds: float
    source_bytes: int
    skipped: bool  # already converted from the same source file by an earlier run
    sha256: str  # of the Parquet file, recorded in the manifest and verified by every reader


def _source_stamp(tf: TableFile) -> str:
    stat = tf.path.stat()
    return f"{tf.path} size={stat.st_size} mtime_ns={stat.st_mtime_ns}"


def sort_keys(tf: TableFile, columns: list[str]) -> list[str]:
    """``subject_id`` then the first documented time column; dictionaries sort by their first column."""
    keys = ["subject_id"] if "subject_id" in columns else columns[:1]
    if tf.schema:
        first_time = next(
            (c.name for c in tf.schema.columns if c.type in _TIME_TYPES and c.name in columns), None
        )
        if first_time:
            keys.append(first_time)
    return keys


def _already_converted(
    con: duckdb.DuckDBPyConnection, target: Path, stamp: str, recorded: str | None
) -> tuple[int, str] | None:
    """Row count and SHA-256 of ``target`` if it was made from the same source file and still has
    the digest ``recorded`` when it was written, else None (convert it again).

    With no recorded digest (a conversion by an admitdx that recorded none) the file is hashed as
    it is now: that is what a rerun asked to record the digests does."""
    if not target.exists():
        return None
    path = sql_path(target)
    try:
        meta = con.execute(
            f"SELECT value::VARCHAR FROM parquet_kv_metadata({path}) WHERE key::VARCHAR = ?", [SOURCE_KEY]
        ).fetchone()
    except (duckdb.IOException, duckdb.InvalidInputException):
        return None  # its footer is damaged: write it again
    if not meta or meta[0] != stamp:
        return None
    digest = sha256_of(target)
    if recorded is not None and digest != recorded:
        return None
    rows = con.execute(f"SELECT sum(num_rows) FROM parquet_file_metadata({path})").fetchone()
    return (int(rows[0]) if rows and rows[0] is not None else 0), digest


def _claim_out(con: duckdb.DuckDBPyConnection, out: Path, planned: list[TableFile]) -> None:
    """Make ``out`` hold only this conversion's tables: refuse a folder holding files ``convert``
    did not write, and delete the tables an earlier conversion (of another root) wrote that this
    one will not rewrite. Parquet files are told apart by the metadata only ``convert`` writes."""
    keep = {target_of(out, tf) for tf in planned}
    ours = read_conversion(out) is not None  # a convert manifest, finished or not
    stale: list[Path] = []
    for path in sorted(out.rglob("*")):
        inside = path.relative_to(out).parts
        if not path.is_file() or inside[0] == ".duckdb_tmp" or path.name.endswith(".partial"):
            continue
        if inside == (LOCK_FILE,) or (ours and inside == (MANIFEST_FILE,)):
            continue
        if len(inside) == 1 and path.name.startswith(f".{MANIFEST_FILE}."):  # a manifest write a kill cut
            continue
        if len(inside) == 2 and path.suffix == ".parquet" and made_by_convert(con, path):
            if path not in keep:
                stale.append(path)
            continue
        raise UsageError(
            f"--out {out} holds files that `admitdx data convert` did not write (e.g. {path})",
            hint="convert into a new or empty folder, or into an earlier conversion's folder",
        )
    for path in stale:
        path.unlink()
    for folder in sorted(p for p in out.iterdir() if p.is_dir() and p.name != ".duckdb_tmp"):
        if not any(folder.iterdir()):
            folder.rmdir()


def check_request(root: Path, out: Path, compression: str) -> None:
    """UsageError for a conversion that cannot be done as asked (checked before anything is written)."""
    if Path(out).resolve() == Path(root).resolve():
        raise UsageError("--out must differ from --mimic", hint="write the Parquet copy to a new folder")
    if compression not in COMPRESSIONS:
        raise UsageError(
            f"unknown Parquet compression {compression!r}", hint=f"use one of {', '.join(COMPRESSIONS)}"
        )


def convert_mimic(
    root: Path,
    out: Path,
    *,
    compression: str = DEFAULT_COMPRESSION,
    row_group_size: int = DEFAULT_ROW_GROUP_SIZE,
    threads: int | None = None,
    memory_limit: str | None = DEFAULT_MEMORY_LIMIT,
    on_start: Callable[[TableFile], None] | None = None,
    on_done: Callable[[ConvertedTable], None] | None = None,
    on_verified: Callable[[GzipResult], None] | None = None,
) -> list[ConvertedTable]:
    """Write ``<out>/<module>/<table>.parquet`` for every table under ``root``; returns one record per table.

    Raises InputError for unreadable or inconsistent input (naming table, column and row) before
    anything is written, and UsageError when ``out`` is the input root, holds other files, or
    cannot be written (permission, full disk).
    """
    root, out = Path(root), Path(out)
    check_request(root, out, compression)
    writable_dir(out)
    found = discover_tables(root)
    required = tuple(k for k, tf in found.items() if tf.schema and tf.schema.required)
    results: list[ConvertedTable] = []
    with (
        open_mimic(
            root,
            threads=threads,
            memory_limit=memory_limit,
            needs=Needs(requires=required, on_verified=on_verified),
        ) as source,
        output_errors(out),
    ):
        planned = [source.tables[k] for k in source.columns]
        inputs = {
            "root": str(root.resolve()),
            "compression": compression,
            "row_group_size": row_group_size,
            "tables": {tf.qualified: _source_stamp(tf) for tf in planned},
        }
        recorded = {k: v["sha256"] for k, v in recorded_entries(out).items()}
        _claim_out(source.con, out, planned)
        done: dict[str, dict[str, Any]] = {}
        write_plan(out, inputs, planned, done)
        spill = out / ".duckdb_tmp"
        source.con.execute(f"SET temp_directory = '{str(spill).replace(chr(39), chr(39) * 2)}'")
        # Smallest first: quick tables finish early and the progress estimate settles sooner.
        for tf in sorted(planned, key=lambda t: t.path.stat().st_size):
            if on_start:
                on_start(tf)
            result = _convert_table(source, tf, out, compression, row_group_size, recorded.get(tf.qualified))
            results.append(result)
            done[result.qualified] = table_entry(out, result.path, result.rows, result.sha256)
            write_plan(out, inputs, planned, done)  # a resumed run keeps only tables with these digests
            if on_done:
                on_done(result)
        shutil.rmtree(spill, ignore_errors=True)
        write_complete(out, inputs, done)
    return results


def _convert_table(
    source: MimicSource, tf: TableFile, out: Path, compression: str, row_group_size: int, recorded: str | None
) -> ConvertedTable:
    target = target_of(out, tf)
    stamp = _source_stamp(tf)
    size = tf.path.stat().st_size
    started = time.perf_counter()
    done = _already_converted(source.con, target, stamp, recorded)
    if done is not None:
        rows, digest = done
        return ConvertedTable(tf.qualified, target, rows, time.perf_counter() - started, size, True, digest)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    order = ", ".join(
        f"{quote_ident(k)} NULLS LAST" for k in sort_keys(tf, source.column_names(tf.qualified))
    )
    view = f"{quote_ident(tf.module)}.{quote_ident(tf.table)}"
    stamp_sql = stamp.replace("'", "''")
    partial_sql = str(partial).replace("'", "''")  # COPY TO writes the name as given (no globbing)
    try:
        with source.translate_errors(writing=out):
            row = source.con.execute(
                f"COPY (SELECT * FROM {view} ORDER BY {order}) TO '{partial_sql}' "
                f"(FORMAT parquet, COMPRESSION {compression}, ROW_GROUP_SIZE {int(row_group_size)}, "
                f"KV_METADATA {{admitdx_source: '{stamp_sql}'}})"
            ).fetchone()
        with output_errors(out):  # hashed before the rename: the digest is of the bytes written
            digest = sha256_of(partial)
            partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    rows = int(row[0]) if row else 0
    return ConvertedTable(tf.qualified, target, rows, time.perf_counter() - started, size, False, digest)
