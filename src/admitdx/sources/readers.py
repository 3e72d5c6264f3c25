"""Typed DuckDB readers for MIMIC-IV table files, and DuckDB errors turned into InputErrors.

CSV columns get their types from the documented schema instead of DuckDB's sniffer: sniffing a
sample would, for example, read ICD-9 ``icd_code`` as an integer (losing ``'0010'``'s zeros) or a
mostly-empty time column as VARCHAR, and only a full-file sniff (a full scan of labevents) would be
safe. The header is read in Python (one line), so a file's own column order is kept and extra,
undocumented columns come through as VARCHAR. Parquet columns are cast to the schema's types too,
so a view has the same types whichever file form backs it.
"""

from __future__ import annotations

import csv
import gzip
import io
import re
import zlib
from collections import Counter
from pathlib import Path

import duckdb

from admitdx.errors import InputError, UsageError
from admitdx.sources.files import TableFile
from admitdx.sources.integrity import gzip_damage

UNKNOWN_COLUMN_TYPE = "VARCHAR"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_GLOB = re.compile(r"([*?\[\]{}])")


def sql_path(path: Path) -> str:
    """``path`` as a DuckDB string literal that names exactly that file.

    DuckDB's readers expand ``*``, ``?`` and ``[...]`` anywhere in a path, so ``--mimic data[12]``
    would read ``data1/``. Each special character is written as a one-character class (``[[]``),
    which DuckDB's globber matches literally; braces are escaped the same way in case a later
    DuckDB expands them.
    """
    return _sql_str(_GLOB.sub(r"[\1]", str(path)))


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_header(tf: TableFile, con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """The file's columns as ``(name, stored type)``, lower-cased, in file order.

    CSV stored types are ``"VARCHAR"`` (text on disk). Raises InputError for an empty file, a
    corrupt gzip, an unreadable header or Parquet footer, a file that cannot be opened (permission)
    and a column name that appears twice (which would make every read of the table ambiguous).
    """
    try:
        header = _parquet_header(tf, con) if tf.format == "parquet" else _csv_header(tf)
    except PermissionError as e:
        raise InputError(
            f"cannot read {tf.path}: permission denied",
            table=tf.qualified,
            hint=f"make it readable for this user (chmod a+r {tf.path})",
        ) from e
    seen = Counter(name for name, _ in header)
    if dup := next((name for name, _ in header if seen[name] > 1), None):
        positions = [str(i + 1) for i, (name, _) in enumerate(header) if name == dup]
        raise InputError(
            f"column {dup} appears {seen[dup]} times in the header (columns {', '.join(positions)})",
            table=tf.qualified,
            column=dup,
            hint=f"keep one {dup} column in {tf.path.name} (column names are compared case-insensitively)",
        )
    return header


def _parquet_header(tf: TableFile, con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    if tf.path.stat().st_size == 0:
        raise InputError("empty file (0 bytes)", table=tf.qualified, hint=f"re-download {tf.path.name}")
    tf.path.open("rb").close()  # a permission problem as PermissionError, not as a Parquet error
    try:
        rows = con.execute(f"DESCRIBE SELECT * FROM read_parquet({sql_path(tf.path)})").fetchall()
    except (duckdb.IOException, duckdb.InvalidInputException) as e:
        raise InputError(f"unreadable Parquet file {tf.path}: {_first_line(e)}", table=tf.qualified) from e
    return [(str(r[0]).lower(), str(r[1])) for r in rows]


def _csv_header(tf: TableFile) -> list[tuple[str, str]]:
    if tf.path.stat().st_size == 0:
        raise InputError("empty file (0 bytes)", table=tf.qualified, hint=f"re-download {tf.path.name}")
    with tf.path.open("rb") as f:  # opened first: a PermissionError is not a gzip problem
        try:
            first = gzip.GzipFile(fileobj=f).readline() if tf.gzipped else f.readline()
        except (gzip.BadGzipFile, EOFError, zlib.error) as e:
            raise InputError(
                f"corrupt gzip file {tf.path}: {e}", table=tf.qualified, hint=f"re-download {tf.path.name}"
            ) from e
    text = first.decode("utf-8-sig", errors="replace").strip()
    if not text:
        raise InputError(f"empty file {tf.path}: no header line", table=tf.qualified)
    names = next(csv.reader(io.StringIO(text)))
    if not all(_NAME.match(n.strip()) for n in names):
        raise InputError(
            f"unreadable CSV {tf.path}: the first line is not a header of column names: {text[:80]!r}",
            table=tf.qualified,
        )
    return [(n.strip().lower(), "VARCHAR") for n in names]


def view_sql(tf: TableFile, header: list[tuple[str, str]]) -> str:
    """``SELECT`` over the file with schema types (undocumented columns: VARCHAR / stored type)."""
    types = tf.schema.types if tf.schema else {}
    path = sql_path(tf.path)
    if tf.format == "parquet":
        cols = ", ".join(
            f"CAST({quote_ident(n)} AS {types[n]}) AS {quote_ident(n)}"
            if n in types and types[n] != t
            else quote_ident(n)
            for n, t in header
        )
        return f"SELECT {cols} FROM read_parquet({path})"
    if not tf.schema:  # a table MIMIC does not document: let DuckDB sniff, header and dialect fixed
        return f"SELECT * FROM read_csv({path}, header=true, delim=',', quote='\"', escape='\"', nullstr='')"
    columns = ", ".join(f"{_sql_str(n)}: {_sql_str(types.get(n, UNKNOWN_COLUMN_TYPE))}" for n, _ in header)
    return (
        f"SELECT * FROM read_csv({path}, header=true, auto_detect=false, delim=',', quote='\"', "
        f"escape='\"', nullstr='', columns={{{columns}}})"
    )


def read_error(e: duckdb.Error, tables: dict[str, TableFile]) -> InputError:
    """:func:`translate_error`, except that a failed read of a damaged gzip file is reported as
    the damage: DuckDB does not verify gzip checksums, so a flipped byte shows up as a value that
    does not convert (``'STA0' is not a valid DOUBLE``) or a ragged row, which sends the user
    hunting for a CSV problem that is not there."""
    err = translate_error(e, tables)
    tf = tables.get(err.table) if err.table else None
    if tf is not None and tf.gzipped and (damage := gzip_damage(tf.path)) is not None:
        return InputError(
            f"corrupt gzip file {tf.path}: {damage}", table=tf.qualified, hint=f"re-download {tf.path.name}"
        )
    return err


_DISK_FULL = ("No space left on device", "Disk quota exceeded")
_FILE_LIMIT = "File too large"  # EFBIG: the process's file-size limit (ulimit -f)
_WRITTEN = re.compile(r'(?:write|open) file \\?"([^"\\]+)')


def write_failure(e: BaseException) -> UsageError | None:
    """A DuckDB error that is really a failed write (disk full or a file-size limit while writing
    or spilling), if it is."""
    msg = str(e)
    reason = next((r for r in (*_DISK_FULL, _FILE_LIMIT) if r in msg), None)
    if reason is None:
        return None
    where = m.group(1) if (m := _WRITTEN.search(msg)) else _first_line(e)
    fix = (
        "raise the file-size limit (`ulimit -f unlimited`)"
        if reason == _FILE_LIMIT
        else "free space on that disk or choose an --out on another one"
    )
    return UsageError(f"cannot write {where}: {reason.lower()}", hint=f"{fix}, then rerun the same command")


_COLUMN = re.compile(r'converting column "([^"]+)"')
_LINE = re.compile(r"CSV Error on Line: (\d+)")
_VALUE = re.compile(r"Could not convert string \"(.{0,60})\"[^']*to '([A-Z ]+)'")
_COLUMNS_FOUND = re.compile(r"Expected Number of Columns: (\d+) Found: (\d+)")


def _first_line(e: BaseException) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def translate_error(e: duckdb.Error, tables: dict[str, TableFile]) -> InputError:
    """Name the table, column and row of a DuckDB read error (cast failure, corrupt gzip, bad CSV).

    DuckDB reports CSV *file lines* counting the header as line 1; the row given is the data row
    (line − 1), which equals the file line minus one unless an earlier quoted field spans lines.
    """
    msg = str(e)
    tf = next((t for t in tables.values() if str(t.path) in msg), None)
    table = tf.qualified if tf else None
    hint = f"fix or re-download {tf.path.name}, then run `admitdx data check`" if tf else None
    line = int(m.group(1)) if (m := _LINE.search(msg)) else None
    row = line - 1 if line else None
    where = f" at file line {line}" if line else ""
    if (col := _COLUMN.search(msg)) is not None:
        val = _VALUE.search(msg)
        what = (
            f"value {val.group(1)!r} is not a valid {val.group(2)}" if val else "a value cannot be converted"
        )
        return InputError(f"{what}{where}", table=table, column=col.group(1), row=row, hint=hint)
    if "gzip" in msg.lower() or "zlib" in msg.lower():
        return InputError(f"corrupt gzip file: {_first_line(e)}", table=table, hint=hint)
    if (cnt := _COLUMNS_FOUND.search(msg)) is not None:
        return InputError(
            f"unreadable CSV{where}: expected {cnt.group(1)} fields, found {cnt.group(2)}",
            table=table,
            row=row,
            hint=hint,
        )
    return InputError(f"cannot read{where}: {_first_line(e)}", table=table, row=row, hint=hint)
