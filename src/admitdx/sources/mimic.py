"""DuckDB views over a MIMIC-IV root as PhysioNet distributes it (or as ``data convert`` wrote it).

Each table becomes a typed view ``<module>.<table>`` (the names of MIMIC's own Postgres schemas
without the ``mimiciv_`` prefix), so builders write plain SQL such as
``SELECT ... FROM ed.edstays JOIN hosp.admissions USING (hadm_id)`` and DuckDB streams the files;
nothing is loaded into Python. Column types come from :mod:`admitdx.sources.schema` (ids INTEGER,
codes VARCHAR, ``*time`` TIMESTAMP, ``*date`` DATE), never from sniffing.

A value that cannot be converted only shows when a query reads it; run queries through
:meth:`MimicSource.execute` or inside :meth:`MimicSource.translate_errors` to get an InputError that
names the table, column and row instead of a raw DuckDB exception.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from admitdx.errors import InputError, UsageError
from admitdx.runs import fingerprint_files
from admitdx.sources.conversion import verify_conversions
from admitdx.sources.files import TableFile, discover_tables
from admitdx.sources.integrity import Verdicts
from admitdx.sources.readers import quote_ident, read_error, read_header, view_sql, write_failure
from admitdx.sources.schema import REQUIRED_MODULES
from admitdx.sources.verify import Needs, missing_hint, verify_tables

__all__ = ["REQUIRED_MODULES", "MimicSource", "Needs", "TableFile", "discover_tables", "open_mimic"]


class MimicSource:
    """An in-memory DuckDB connection with one typed view per discovered table.

    ``con`` is the connection; ``tables`` maps ``module.table`` to its file; ``columns`` maps it to
    the file's column names and stored types. With ``strict=False`` a table whose file cannot be
    read at all (empty, corrupt gzip, no header) gets no view and its error is kept in
    ``unreadable`` instead of being raised; ``data check`` uses that to report every problem at once.

    A converted folder is opened only when its conversion finished and it holds exactly the tables
    it wrote, each with the SHA-256 recorded (:mod:`admitdx.sources.conversion`). With ``needs``,
    the tables a verb reads are verified before it can read them
    (:func:`admitdx.sources.verify.verify_tables`), and ``rows`` holds their row counts.
    """

    def __init__(
        self,
        root: Path,
        *,
        threads: int | None = None,
        memory_limit: str | None = None,
        strict: bool = True,
        needs: Needs | None = None,
        verdicts: Verdicts | None = None,
        fresh: bool = False,
    ) -> None:
        self.root = Path(root)
        self.needs = needs
        self.rows: dict[str, int] = {}
        self.tables: dict[str, TableFile] = discover_tables(self.root)
        self.columns: dict[str, list[tuple[str, str]]] = {}
        self.unreadable: dict[str, InputError] = {}
        self.con = duckdb.connect(":memory:")
        # DuckDB's own progress bar writes to the terminal during long scans; admitdx shows its own.
        self.con.execute("SET enable_progress_bar = false")
        if threads:
            self.con.execute(f"SET threads = {int(threads)}")
        if memory_limit:
            try:
                self.con.execute(f"SET memory_limit = '{memory_limit.replace(chr(39), '')}'")
            except duckdb.Error as e:
                self.con.close()
                raise UsageError(
                    f"invalid memory limit {memory_limit!r}", hint="use a size such as 2GB"
                ) from e
        for module in sorted({t.module for t in self.tables.values()}):
            self.con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(module)}")
        for key, tf in self.tables.items():
            try:
                header = read_header(tf, self.con)
            except InputError as e:
                if strict:
                    self.con.close()
                    raise
                self.unreadable[key] = e
                continue
            self.columns[key] = header
            self.con.execute(
                f"CREATE VIEW {quote_ident(tf.module)}.{quote_ident(tf.table)} AS {view_sql(tf, header)}"
            )
        try:
            verdicts = verdicts or (needs.verdicts if needs is not None else None)
            verify_conversions(self.root, self.tables, self.con, verdicts, fresh=fresh)
            if needs is not None:
                self.rows = verify_tables(self.con, self.tables, self.columns, needs)
        except BaseException:
            self.con.close()
            raise

    def has(self, qualified: str) -> bool:
        """Whether ``module.table`` exists and has a view."""
        return qualified in self.columns

    def require(self, tables: tuple[str, ...], needed_by: str) -> None:
        """Stop early (exit 2) when a table ``needed_by`` a task is absent, naming every missing one."""
        missing = [t for t in tables if not self.has(t)]
        if missing:
            raise InputError(
                f"{self.root} lacks table(s) needed by {needed_by}: {', '.join(missing)}",
                hint=missing_hint(missing),
            )

    def modules(self) -> set[str]:
        return {self.tables[k].module for k in self.columns}

    def column_names(self, qualified: str) -> list[str]:
        return [name for name, _ in self.columns[qualified]]

    def fingerprints(self) -> dict[str, dict[str, Any]]:
        """Content fingerprints of the files this source reads, keyed by where they were found.

        With ``needs``, only the tables the verb reads: a table it never opens (``icu/`` for a
        build) neither changes its output nor belongs in its manifest. Keys are the paths under the
        root as laid out, so a symlinked module folder pointing elsewhere is named as ``hosp/…``.
        """
        keys = self.needs.scope(self.tables) if self.needs is not None else sorted(self.tables)
        out: dict[str, dict[str, Any]] = {}
        for key in keys:
            tf = self.tables[key]
            (digest,) = fingerprint_files([tf.path]).values()
            out[tf.relative] = digest
        return dict(sorted(out.items()))

    @contextmanager
    def translate_errors(self, writing: Path | None = None) -> Iterator[None]:
        """Turn DuckDB errors raised inside the block into InputErrors naming table/column/row, and
        a failed write (a full disk while DuckDB spills or writes, or any I/O error on a file under
        ``writing``) into a UsageError: neither is a problem of the input."""
        try:
            yield
        except (duckdb.ConversionException, duckdb.InvalidInputException, duckdb.IOException) as e:
            if failed := write_failure(e):
                raise failed from e
            if writing is not None and isinstance(e, duckdb.IOException) and str(writing) in str(e):
                raise UsageError(
                    f"cannot write under {writing}: {str(e).strip().splitlines()[0]}",
                    hint="check that this folder can be written to, then rerun the same command",
                ) from e
            raise read_error(e, self.tables) from e

    def execute(self, sql: str, params: Any = None) -> duckdb.DuckDBPyConnection:
        """``con.execute`` with read errors translated; the result is ready to ``fetch*``."""
        with self.translate_errors():
            return self.con.execute(sql, params) if params is not None else self.con.execute(sql)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> MimicSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_mimic(
    root: Path,
    *,
    threads: int | None = None,
    memory_limit: str | None = None,
    strict: bool = True,
    needs: Needs | None = None,
    verdicts: Verdicts | None = None,
    fresh: bool = False,
) -> MimicSource:
    """Open a MIMIC-IV root (real, synthetic or converted) as typed DuckDB views ``<module>.<table>``.

    ``needs``: verify the tables a verb reads before returning (see :class:`Needs`). A converted
    copy's tables are checked against their recorded SHA-256, remembered in ``verdicts`` (default:
    ``needs.verdicts``, else the user's cache); ``fresh`` hashes them again whatever is remembered."""
    return MimicSource(
        Path(root),
        threads=threads,
        memory_limit=memory_limit,
        strict=strict,
        needs=needs,
        verdicts=verdicts,
        fresh=fresh,
    )
