"""The manifest of a ``data convert`` folder, and the rule for trusting one as a root.

A converted folder is a root like any other, so without a record of what it should hold a reader
cannot tell a finished copy from one that was killed half-way (no labs: the build "succeeds") or
from one that still holds tables of an earlier conversion of another root (root A's notes built
into root B's dataset). So ``convert`` writes ``manifest.json`` *before* it writes any table, with
``complete: false`` and the tables it is about to write, and rewrites it with ``complete: true``,
each table's size, rows and SHA-256, as its very last step. A folder is read only when that final
manifest is there and names exactly the Parquet tables found, each with the recorded size and
SHA-256: a Parquet copy has no gzip CRC, and a flipped bit in a data page still decodes (as another
value). The digest check is remembered per file identity (:func:`verify_sha256s`), so only the
first read of a copy, and ``data check`` every time, pay for hashing it.

While it runs, ``convert`` records each finished table's size and SHA-256 in the unfinished
manifest, so a resumed conversion keeps a table only when it still has the digest it was written
with (and redoes it otherwise).

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
from admitdx.sources.integrity import Verdicts, default_verdicts, verify_sha256s
from admitdx.sources.readers import sql_path

STAGE = "convert"
SOURCE_KEY = "admitdx_source"  # Parquet key-value metadata naming the file a table was made from


def target_of(out: Path, tf: TableFile) -> Path:
    return out / tf.module / f"{tf.table}.parquet"


def write_plan(
    out: Path, inputs: dict[str, Any], planned: list[TableFile], done: dict[str, dict[str, Any]]
) -> None:
    """The manifest of a conversion under way: what it will write, the entries (:func:`table_entry`)
    of the tables finished so far, and that it has not finished."""
    tables = {
        tf.qualified: done.get(tf.qualified, {"file": f"{tf.module}/{tf.table}.parquet"}) for tf in planned
    }
    write_manifest(out, stage=STAGE, inputs=inputs, outputs={"complete": False, "tables": tables})


def table_entry(out: Path, path: Path, rows: int, sha256: str) -> dict[str, Any]:
    """One converted table as its manifest records it."""
    return {"file": str(path.relative_to(out)), "rows": rows, "bytes": path.stat().st_size, "sha256": sha256}


def write_complete(out: Path, inputs: dict[str, Any], entries: dict[str, dict[str, Any]]) -> None:
    """The manifest a conversion writes last, when every table is in place."""
    outputs = {"complete": True, "tables": dict(sorted(entries.items()))}
    write_manifest(out, stage=STAGE, inputs=inputs, outputs=outputs)


def recorded_entries(out: Path) -> dict[str, dict[str, Any]]:
    """The tables an earlier conversion into ``out`` recorded with a SHA-256 (finished or not)."""
    tables = ((read_conversion(out) or {}).get("outputs") or {}).get("tables") or {}
    return {k: v for k, v in tables.items() if isinstance(v, dict) and isinstance(v.get("sha256"), str)}


def read_conversion(folder: Path) -> dict[str, Any] | None:
    """The convert manifest in ``folder``, None if there is none; ``{}`` if it is damaged
    (:func:`checked_conversion` says how): ``convert`` then redoes every table."""
    try:
        return checked_conversion(folder)
    except InputError:
        return {}


def checked_conversion(folder: Path) -> dict[str, Any] | None:
    """The convert manifest in ``folder``, None if there is none (or another stage's); InputError
    naming it when it is not JSON, or its ``outputs`` or ``tables`` are not what ``convert`` writes.
    ``convert`` writes it aside and renames it, so a kill never leaves half of one: a damaged one was
    edited or damaged on disk, and is not "an unfinished conversion of 0 tables"."""
    path = folder / MANIFEST_FILE
    if not path.is_file():
        return None
    redo = f"rerun `admitdx data convert` into {folder} (it redoes what it cannot trust), or convert anew"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise InputError(f"not a conversion manifest: not JSON ({e})", table=str(path), hint=redo) from None
    if not isinstance(manifest, dict):
        raise InputError("not a conversion manifest: not a JSON object", table=str(path), hint=redo)
    if manifest.get("stage") != STAGE:
        return None
    if (wrong := _not_an_object(manifest.get("outputs"))) is not None:
        key, value = wrong
        raise InputError(
            f"not a conversion manifest: {key} is {type(value).__name__} {json.dumps(value)[:40]}, "
            "expected an object",
            table=str(path),
            column=key,
            hint=redo,
        )
    return manifest


def _not_an_object(outputs: Any) -> tuple[str, Any] | None:
    """The first of ``outputs``, ``outputs.tables`` and each table entry that is not an object."""
    if not isinstance(outputs, dict):
        return "outputs", outputs
    tables = outputs.get("tables")
    if not isinstance(tables, dict):
        return "outputs.tables", tables
    return next(((f"outputs.tables.{k}", v) for k, v in tables.items() if not isinstance(v, dict)), None)


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


def verify_conversions(
    root: Path,
    tables: dict[str, TableFile],
    con: duckdb.DuckDBPyConnection,
    verdicts: Verdicts | None = None,
    *,
    fresh: bool = False,
) -> None:
    """Refuse (InputError) a converted folder under ``root`` that is unfinished, stale or altered.

    ``verdicts`` remembers clean SHA-256 checks (default: the user's cache); ``fresh`` hashes every
    table again whatever is remembered (``data check``)."""
    by_folder: dict[Path, dict[str, TableFile]] = {}
    for key, tf in tables.items():
        found = root / tf.relative if tf.relative else tf.path
        by_folder.setdefault(found.parent.parent, {})[key] = tf
    for folder, found in sorted(by_folder.items()):
        manifest = checked_conversion(folder)
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
        _check_digests(folder, manifest, found, verdicts or default_verdicts(), fresh)


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


def _check_digests(
    folder: Path, manifest: dict[str, Any], found: dict[str, TableFile], verdicts: Verdicts, fresh: bool
) -> None:
    """Every table has the SHA-256 its conversion recorded (a flipped bit is refused, naming it)."""
    listed: dict[str, Any] = manifest["outputs"]["tables"]
    source = (manifest.get("inputs") or {}).get("root", "its source root")
    rerun = f"`admitdx data convert --mimic {source} --out {folder}`"
    unrecorded = sorted(k for k, entry in listed.items() if not isinstance(entry.get("sha256"), str))
    if unrecorded:
        raise InputError(
            f"{folder} was converted by an admitdx that recorded no SHA-256 of its tables, so they "
            "cannot be verified",
            table=unrecorded[0],
            hint=f"rerun {rerun}: it keeps the tables and records their digests",
        )
    expected = {found[k].path: entry["sha256"] for k, entry in listed.items()}
    altered = verify_sha256s(expected, verdicts, fresh=fresh)
    for key in sorted(listed):
        if (actual := altered.get(found[key].path)) is not None:
            raise InputError(
                f"{found[key].path} is not the file its conversion wrote: its SHA-256 is {actual[:12]}…, "
                f"the manifest records {listed[key]['sha256'][:12]}… (a flipped bit or an edit)",
                table=key,
                hint=f"rerun {rerun} (it rewrites the altered table), or restore the file",
            )
