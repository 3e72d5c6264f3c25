"""Values as the EarlyDx authors' builder prints them: pandas rows through f-strings.

Their builder reads each CSV with ``pandas.read_csv`` defaults and prints cells with f-strings, so
what a number looks like depends on the dtype pandas inferred for the whole *column*: an integer
column with no missing value is int64 and prints "105"; one missing value anywhere, or one decimal,
makes it float64 and every value prints "105.0"; a column with any text stays text and prints as
written. A missing value prints "nan", and the strings pandas reads as missing ("NA", "None", …,
``PANDAS_NA``) are missing too. ``field_format`` "pandas" prints every field this way.

:func:`column_kinds` infers the dtype pandas would give each column from the whole table in one
scan. The typed views hold DOUBLE columns as numbers, so a column the file spells "105.0" on every
row with none missing reads as int64 here where pandas says float64; MIMIC and admitdx's synthetic
roots spell integral values without a decimal point. Their lab table is read in chunks of 3,000,000
rows, each inferred alone; a root with more lab rows than that whose chunks differ in kind is not
reproduced.
"""

from __future__ import annotations

from typing import Literal

from admitdx.sources.mimic import MimicSource

Kind = Literal["int", "float", "text"]

#: Strings pandas.read_csv reads as missing by default (its documented ``na_values``).
PANDAS_NA = frozenset({
    "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
    "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})  # fmt: skip

#: PANDAS_NA as a SQL list, for ``column NOT IN ('', {NA_SQL})``.
NA_SQL = ", ".join(repr(x) for x in sorted(PANDAS_NA))

_NUMERIC = ("DOUBLE", "FLOAT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "HUGEINT", "DECIMAL")


def is_missing(text: str | None) -> bool:
    """Whether pandas reads this cell as missing."""
    return text is None or text == "" or text in PANDAS_NA


def column_kinds(src: MimicSource, table: str, columns: tuple[str, ...]) -> dict[str, Kind]:
    """The dtype pandas infers for each column of ``table`` (read whole)."""
    types = {r[0]: str(r[1]) for r in src.con.execute(f"DESCRIBE {table}").fetchall()}
    tests = []
    for c in columns:
        if types[c].startswith(_NUMERIC):
            tests += [f"count({c}) = count(*) AND coalesce(bool_and({c} = floor({c})), TRUE)", "TRUE"]
        else:
            x = f"(CASE WHEN {c} IN ('', {NA_SQL}) THEN NULL ELSE {c} END)"
            integer = f"regexp_full_match({x}, '\\s*[+-]?\\d+\\s*')"
            tests += [
                f"count({x}) = count(*) AND coalesce(bool_and({integer}), TRUE)",
                f"coalesce(bool_and({x} IS NULL OR TRY_CAST({x} AS DOUBLE) IS NOT NULL), TRUE)",
            ]
    row = src.con.execute(f"SELECT {', '.join(tests)} FROM {table}").fetchone()
    assert row is not None
    return {c: "int" if row[2 * i] else "float" if row[2 * i + 1] else "text" for i, c in enumerate(columns)}


def pandas_str(value: float | str | None, kind: Kind) -> str:
    """One cell as ``f"{cell}"`` prints it from a column of that kind."""
    if value is None or (isinstance(value, str) and is_missing(value)):
        return "nan"
    if kind == "int":
        return str(int(float(value)))
    if kind == "float":
        return repr(float(value))
    return str(value)


def kinds_sql(kinds: dict[str, Kind]) -> str:
    """The kinds as a DuckDB struct literal, for a section query to hand its renderer."""
    return "{" + ", ".join(f"'{c}': '{k}'" for c, k in kinds.items()) + "}"
