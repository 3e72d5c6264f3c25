"""What must hold inside a table for builds to trust it, and the one scan that checks it.

:func:`scan_table` reads a table once in full through its typed view, counting rows, the non-null
values of every column (which forces every value through its documented type) and the rows that
break a :class:`RowRule`. ``data check`` reports its problems; ``convert`` and ``build`` refuse a
table with an error before reading it for real (:mod:`admitdx.sources.verify`).

Row rules are facts that hold in every MIMIC-IV release and whose violation silently changes a
build rather than failing it: an ED stay that ends before it starts loses every section windowed on
the stay, and a negative age is rendered as "-39 yo". :data:`CROSS_RULES` are the same across two
tables (the age at an admission comes from ``patients`` and ``admissions``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import duckdb

from admitdx.sources.files import TableFile
from admitdx.sources.readers import quote_ident, read_error

ERROR, WARNING = "error", "warning"


@dataclass
class Problem:
    severity: str
    message: str
    column: str | None = None
    row: int | None = None


@dataclass(frozen=True)
class RowRule:
    """Rows of ``table`` where ``violation`` (SQL over its columns) is true are errors at ``column``."""

    table: str
    column: str
    needs: tuple[str, ...]
    violation: str
    message: str


ROW_RULES = (
    RowRule("ed.edstays", "outtime", ("intime", "outtime"), "outtime < intime", "outtime before intime"),
    RowRule("hosp.patients", "anchor_age", ("anchor_age",), "anchor_age < 0", "negative anchor_age"),
)


@dataclass(frozen=True)
class CrossRule:
    """A rule over ``table`` joined to ``other``; errors name ``table``'s row (its file order)."""

    table: str
    other: str
    column: str
    needs: tuple[tuple[str, ...], tuple[str, ...]]  # columns of table, columns of other
    join: str  # SQL joining alias t (table, with its row number rn) to alias o (other)
    violation: str
    message: str


CROSS_RULES = (
    CrossRule(
        "hosp.admissions",
        "hosp.patients",
        "admittime",
        (("subject_id", "admittime"), ("subject_id", "anchor_age", "anchor_year")),
        "o.subject_id = t.subject_id",
        "o.anchor_age + year(t.admittime) - o.anchor_year < 0",
        "admitted before the patient was born (anchor_age + year(admittime) - anchor_year < 0)",
    ),
)


@dataclass
class TableScan:
    rows: int | None
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return not any(p.severity == ERROR for p in self.problems)


def view_name(tf: TableFile) -> str:
    return f"{quote_ident(tf.module)}.{quote_ident(tf.table)}"


def _rules_for(tf: TableFile, names: list[str]) -> list[RowRule]:
    documented = tf.schema.qualified if tf.schema else tf.qualified
    return [r for r in ROW_RULES if r.table == documented and all(c in names for c in r.needs)]


def rules_digest(tf: TableFile) -> str:
    """Changes whenever what :func:`scan_table` checks for this table changes (schema or rules), so
    a remembered clean scan made by another version of admitdx is not trusted."""
    schema = tf.schema
    parts = [repr(schema.columns) if schema else "undocumented"]
    parts += [repr(r) for r in ROW_RULES if schema and r.table == schema.qualified]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def scan_table(con: duckdb.DuckDBPyConnection, tf: TableFile, names: list[str]) -> TableScan:
    """Read the table once; its row count and every null-key / row-rule / conversion error in it."""
    rules = _rules_for(tf, names)
    counts = ", ".join(
        [f"count({quote_ident(n)})" for n in names]
        + [f"count(*) FILTER (WHERE {r.violation})" for r in rules]
    )
    try:
        row = con.execute(f"SELECT count(*), {counts} FROM {view_name(tf)}").fetchone()
    except duckdb.Error as e:
        err = read_error(e, {tf.qualified: tf})
        return TableScan(None, [Problem(ERROR, err.detail, err.column, err.row)])
    assert row is not None
    rows = int(row[0])
    non_null = dict(zip(names, row[1 : 1 + len(names)], strict=True))
    problems: list[Problem] = []
    for column in tf.schema.not_null_columns if tf.schema else ():
        nulls = rows - non_null.get(column, rows)
        if nulls:
            first = first_row(con, tf, f"{quote_ident(column)} IS NULL")
            message = f"{nulls} null value(s) in NOT NULL column {column} (first at row {first})"
            problems.append(Problem(ERROR, message, column, first))
    for rule, bad in zip(rules, row[1 + len(names) :], strict=True):
        if bad:
            first = first_row(con, tf, rule.violation)
            problems.append(
                Problem(ERROR, f"{bad} row(s) with {rule.message} (first at row {first})", rule.column, first)
            )
    return TableScan(rows, problems)


def first_row(con: duckdb.DuckDBPyConnection, tf: TableFile, condition: str) -> int:
    """1-based data row of the first row where ``condition`` holds. ``row_number() OVER ()`` streams
    in file order."""
    found = con.execute(
        f"SELECT rn FROM (SELECT row_number() OVER () AS rn, * FROM {view_name(tf)}) "
        f"WHERE {condition} ORDER BY rn LIMIT 1"
    ).fetchone()
    assert found is not None
    return int(found[0])


def cross_problems(
    con: duckdb.DuckDBPyConnection, tables: dict[str, TableFile], columns: dict[str, list[str]]
) -> list[tuple[str, Problem]]:
    """``(table, problem)`` for every :data:`CROSS_RULES` rule whose two tables are in ``columns``
    (tables known to read cleanly, with their column names) with the columns the rule needs."""
    out: list[tuple[str, Problem]] = []
    for rule in CROSS_RULES:
        mine, theirs = rule.needs
        if not (
            set(mine) <= set(columns.get(rule.table, ())) and set(theirs) <= set(columns.get(rule.other, ()))
        ):
            continue
        t, o = view_name(tables[rule.table]), view_name(tables[rule.other])
        bad, first = con.execute(
            f"SELECT count(*), min(t.rn) FROM (SELECT row_number() OVER () AS rn, * FROM {t}) t "
            f"JOIN {o} o ON {rule.join} WHERE {rule.violation}"
        ).fetchone()  # type: ignore[misc]
        if bad:
            message = f"{bad} row(s) {rule.message} (first at row {first})"
            out.append((rule.table, Problem(ERROR, message, rule.column, int(first))))
    return out
