"""The manifest of a ``data convert`` folder, and the rule for trusting one as a root.

A converted folder is a root like any other, so without a record of what it should hold a reader
cannot tell a finished copy from one that was killed half-way (no labs: the build "succeeds") or
from one that still holds tables of an earlier conversion of another root (root A's notes built
into root B's dataset). So ``convert`` writes ``manifest.json`` *before* it writes any table, with
``complete: false`` and the tables it is about to write, and rewrites it with ``complete: true``,
each table's size and rows, as its very last step. A folder is read only when that final manifest
is there and names exactly the Parquet tables found, each with the recorded size.

A folder of Parquet tables with no manifest is still a root (users make their own), unless its
files carry the ``admitdx_source`` metadata that only ``convert`` writes: then it is a conversion
whose manifest was lost or never written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from admitdx.errors import InputError
from admitdx.runs import MANIFEST_FILE, write_manifest
from admitdx.sources.files import TableFile
from admitdx.sources.readers import sql_path

STAGE = "convert"
SOURCE_KEY = "admitdx_source"  # Parquet key-value metadata naming the file a table was made from


def target_of(out: Path, tf: TableFile) -> Path:
    return out / tf.module / f"{tf.table}.parquet"


def write_plan(out: Path, inputs: dict[str, Any], planned: list[TableFile]) -> None:
    """The manifest a conversion writes first: what it will write, and that it has not finished."""
    tables = {tf.qualified: {"file": f"{tf.module}/{tf.table}.parquet"} for tf in planned}
    write_manifest(out, stage=STAGE, inputs=inputs, outputs={"complete": False, "tables": tables})


def write_complete(out: Path, inputs: dict[str, Any], rows: dict[str, int], files: dict[str, Path]) -> None:
    """The manifest a conversion writes last, when every table is in place."""
    tables = {
        key: {"file": str(path.relative_to(out)), "rows": rows[key], "bytes": path.stat().st_size}
        for key, path in sorted(files.items())
    }
    write_manifest(out, stage=STAGE, inputs=inputs, outputs={"complete": True, "tables": tables})


def read_conversion(folder: Path) -> dict[str, Any] | None:
    """The convert manifest in ``folder``, None if there is none; ``{}`` if it cannot be parsed."""
    path = folder / MANIFEST_FILE
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):  # cut off by a kill while it was written
        return {}
    if not isinstance(manifest, dict) or manifest.get("stage") != STAGE:
        return None
    return manifest


def made_by_convert(con: duckdb.DuckDBPyConnection, path: Path) -> bool:
    """Whether a Parquet file carries the metadata only ``data convert`` writes (False for a file
    that is not readable Parquet at all: ``convert`` renames a table into place only once written)."""
    try:
        found = con.execute(
            f"SELECT count(*) FROM parquet_kv_metadata({sql_path(path)}) WHERE key::VARCHAR = ?", [SOURCE_KEY]
        ).fetchone()
    except (duckdb.IOException, duckdb.InvalidInputException):
        return False
    return bool(found and found[0])


def verify_conversions(root: Path, tables: dict[str, TableFile], con: duckdb.DuckDBPyConnection) -> None:
    """Refuse (InputError) a converted folder under ``root`` that is unfinished, stale or altered."""
    by_folder: dict[Path, dict[str, TableFile]] = {}
    for key, tf in tables.items():
        found = root / tf.relative if tf.relative else tf.path
        by_folder.setdefault(found.parent.parent, {})[key] = tf
    for folder, found in sorted(by_folder.items()):
        manifest = read_conversion(folder)
        if manifest is None:
            parquet = [tf for tf in found.values() if tf.format == "parquet"]
            if made := next((tf for tf in parquet if made_by_convert(con, tf.path)), None):
                raise InputError(
                    f"{folder} was written by `admitdx data convert` but has no manifest.json: the "
                    f"conversion did not finish (its tables, e.g. {made.path.name}, may be incomplete)",
                    table=made.qualified,
                    hint="rerun `admitdx data convert` into this folder, or convert into a new one",
                )
            continue
        _check_manifest(folder, manifest, found)


def _check_manifest(folder: Path, manifest: dict[str, Any], found: dict[str, TableFile]) -> None:
    outputs = manifest.get("outputs") or {}
    listed: dict[str, Any] = outputs.get("tables") or {}
    source = (manifest.get("inputs") or {}).get("root", "its source root")
    rerun = f"rerun `admitdx data convert --mimic {source} --out {folder}` to finish or redo it"
    if outputs.get("complete") is not True:
        done = sum(1 for key in listed if key in found)
        raise InputError(
            f"{folder} is an unfinished `admitdx data convert` ({done} of {len(listed)} tables written): "
            "it was interrupted or failed, so tables may be missing",
            hint=rerun,
        )
    if extra := sorted(set(found) - set(listed)):
        raise InputError(
            f"{folder} holds {len(extra)} table(s) its conversion manifest does not list, e.g. {extra[0]}",
            table=extra[0],
            hint=f"remove {found[extra[0]].path.name}, or {rerun}",
        )
    if missing := sorted(set(listed) - set(found)):
        raise InputError(
            f"{folder} lacks {len(missing)} table(s) its conversion wrote, e.g. {missing[0]}",
            table=missing[0],
            hint=rerun,
        )
    for key, entry in sorted(listed.items()):
        size = found[key].path.stat().st_size
        if found[key].format != "parquet" or size != entry.get("bytes"):
            raise InputError(
                f"{found[key].path} changed after the conversion wrote it "
                f"({size} bytes, manifest says {entry.get('bytes')})",
                table=key,
                hint=rerun,
            )
