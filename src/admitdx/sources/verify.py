"""The checks a verb runs on the tables it is about to read, before it reads them.

``data check`` reports every problem of a root; ``convert`` and ``build`` used to trust whatever
parsed, so a root that check rejects (a flipped bit in a ``.csv.gz``, a header-only ``edstays``, a
NULL ``stay_id``, an ED stay ending before it starts) was built into a dataset with exit 0. Now each
verb names what it reads (:class:`Needs`) and :func:`verify_tables` refuses, with an InputError
naming table, column and row, anything ``data check`` would report as an error in those tables:

- the file is an intact gzip (CRC-32 and length of every member, :mod:`admitdx.sources.integrity`);
- every documented required column is there;
- every value converts to its documented type, NOT NULL keys have no nulls and the row rules hold
  (one full read, :func:`admitdx.sources.rules.scan_table`);
- the tables the verb cannot do without exist and have rows; the cross-table rules hold.

Both the checksum and the scan are remembered per file identity (:class:`Verdicts`), so the first
build of a root pays one extra read of it and later builds pay almost nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import duckdb

from admitdx.errors import InputError
from admitdx.sources.files import TableFile
from admitdx.sources.integrity import GzipResult, Verdicts, default_verdicts, file_identity, verify_gzips
from admitdx.sources.rules import ERROR, cross_problems, rules_digest, scan_table

_HINT = "fix or re-download it; `admitdx data check --mimic ROOT` lists every problem of the root"


@dataclass(frozen=True)
class Needs:
    """What a verb reads from a root.

    ``reads``: tables it reads when present (documented ``module.table`` names); ``None`` means
    every table found. ``requires``: tables it cannot do without, which must exist with at least
    one row (a missing or header-only one would change the result instead of failing it).
    """

    reads: tuple[str, ...] | None = None
    requires: tuple[str, ...] = field(default=())
    verdicts: Verdicts | None = field(default=None, compare=False)
    on_verified: Callable[[GzipResult], None] | None = field(default=None, compare=False)  # progress

    def scope(self, tables: dict[str, TableFile]) -> list[str]:
        """The found tables this verb reads, by their view name (``module.table``)."""
        if self.reads is None:
            return sorted(tables)
        wanted = set(self.reads) | set(self.requires)
        return sorted(k for k, tf in tables.items() if (tf.schema.qualified if tf.schema else k) in wanted)


def _content_check(tf: TableFile) -> str:
    return f"table-scan-{rules_digest(tf)}"


#: The PhysioNet project that ships each MIMIC-IV module (the core holds hosp/ and icu/).
MODULE_PROJECTS = {
    "ed": "MIMIC-IV-ED",
    "note": "MIMIC-IV-Note",
    "ecg": "MIMIC-IV-ECG",
    "echo": "MIMIC-IV-ECHO",
}


def missing_hint(tables: list[str]) -> str:
    """What to add for absent ``module.table`` names: the module folders and the PhysioNet projects
    they come from (a one-liner without note/ was told to look for hosp/ and ed/)."""
    modules = sorted({t.split(".", 1)[0] for t in tables})
    projects = [f"{m}/ from {MODULE_PROJECTS.get(m, 'MIMIC-IV')}" for m in modules]
    return (
        f"add {', '.join(projects)} to this root, or point --mimic at a root that has "
        f"{'it' if len(modules) == 1 else 'them'} (check it with `admitdx data check --mimic DIR`)"
    )


def verify_tables(
    con: duckdb.DuckDBPyConnection,
    tables: dict[str, TableFile],
    columns: dict[str, list[tuple[str, str]]],
    needs: Needs,
) -> dict[str, int]:
    """Raise InputError for the first problem in the tables ``needs`` names; return their row counts."""
    verdicts = needs.verdicts or default_verdicts()
    absent = [t for t in needs.requires if t not in tables]
    if absent:
        raise InputError(
            f"the root lacks {', '.join(absent)}, which this command cannot do without",
            table=absent[0],
            hint=missing_hint(absent),
        )
    scope = needs.scope(tables)
    for key in scope:
        _require_columns(tables[key], [n for n, _ in columns[key]])
    gzips = [tables[k].path for k in scope if tables[k].gzipped]
    checked = verify_gzips(gzips, verdicts, on_done=needs.on_verified)
    damaged = {p: r.damage for p, r in checked.items() if r.damage}
    for key in scope:
        if (damage := damaged.get(tables[key].path)) is not None:
            raise InputError(
                f"corrupt gzip file {tables[key].path}: {damage}",
                table=key,
                hint=f"re-download {tables[key].path.name} (its checksum does not match its content)",
            )
    rows = {key: _scanned_rows(con, tables[key], [n for n, _ in columns[key]], verdicts) for key in scope}
    for key in needs.requires:
        if rows.get(key) == 0:
            raise InputError(f"{key} has a header but no rows", table=key, hint=_HINT)
    for table, problem in cross_problems(con, tables, {k: [n for n, _ in columns[k]] for k in scope}):
        raise InputError(problem.message, table=table, column=problem.column, row=problem.row, hint=_HINT)
    return rows


def _require_columns(tf: TableFile, names: Iterable[str]) -> None:
    present = set(names)
    missing = [c for c in (tf.schema.required_columns if tf.schema else ()) if c not in present]
    if missing:
        raise InputError(
            f"required column {missing[0]} is missing"
            + (f" (and {len(missing) - 1} more: {', '.join(missing[1:])})" if len(missing) > 1 else ""),
            table=tf.qualified,
            column=missing[0],
            hint=f"{tf.path.name} must have MIMIC-IV's columns; {_HINT}",
        )


def _scanned_rows(con: duckdb.DuckDBPyConnection, tf: TableFile, names: list[str], verdicts: Verdicts) -> int:
    """The table's row count from a clean scan, remembered or made now; InputError if not clean."""
    check = _content_check(tf)
    remembered = verdicts.get(check, tf.path)
    if remembered is not None and isinstance(remembered.get("rows"), int):
        return int(remembered["rows"])
    identity = file_identity(tf.path)
    scan = scan_table(con, tf, names)
    first = next((p for p in scan.problems if p.severity == ERROR), None)
    if first is not None:
        raise InputError(first.message, table=tf.qualified, column=first.column, row=first.row, hint=_HINT)
    assert scan.rows is not None
    verdicts.put(check, identity, {"rows": scan.rows})
    return scan.rows


def remember_clean_scan(tf: TableFile, identity: dict[str, object], rows: int, verdicts: Verdicts) -> None:
    """Record a clean scan made by ``data check``, so the next build does not repeat it."""
    verdicts.put(_content_check(tf), dict(identity), {"rows": rows})
