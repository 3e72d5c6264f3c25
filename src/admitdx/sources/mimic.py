"""DuckDB views over a MIMIC-IV root as PhysioNet distributes it.

A root holds module folders (``hosp/``, ``ed/``, ``note/``, ``ecg/``, ``echo/``, also ``icu/``),
possibly nested under versioned names (``mimic-iv-3.1/hosp``, ``mimic-iv-ed-2.2/ed``), with tables
as ``.csv.gz``, ``.csv`` or ``.parquet``. Each table becomes a view ``<module>.<table>`` (the
same names as MIMIC's own Postgres schemas, without the ``mimiciv_`` prefix), so builders write
plain SQL such as ``SELECT ... FROM ed.edstays JOIN hosp.admissions USING (hadm_id)`` and DuckDB
streams the files; nothing is loaded into Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from admitdx.errors import InputError

MODULES = ("hosp", "ed", "note", "ecg", "echo", "icu")
REQUIRED_MODULES = ("hosp", "ed")
SUFFIXES = (".parquet", ".csv.gz", ".csv")  # preference order when a table exists in several forms

# Release folders whose tables sit at the top rather than in a module folder (ECG, ECHO).
_RELEASE_PREFIXES = {"ecg": "mimic-iv-ecg", "echo": "mimic-iv-echo"}


@dataclass(frozen=True)
class TableFile:
    module: str
    table: str
    path: Path

    @property
    def qualified(self) -> str:
        return f"{self.module}.{self.table}"

    @property
    def format(self) -> str:
        return "parquet" if self.path.suffix == ".parquet" else "csv"


def _table_name(path: Path) -> str | None:
    name = path.name
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)].replace("-", "_")
    return None


def _module_of(folder: Path) -> str | None:
    name = folder.name.lower()
    if name in MODULES:
        return name
    return next((m for m, prefix in _RELEASE_PREFIXES.items() if name.startswith(prefix)), None)


def _module_dirs(root: Path, max_depth: int = 3) -> dict[str, Path]:
    """Find each module's folder under ``root``, looking a few levels down for versioned nesting."""
    found: dict[str, Path] = {}
    frontier = [root]
    for _ in range(max_depth):
        deeper: list[Path] = []
        for d in frontier:
            for child in sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
                module = _module_of(child)
                if module and module not in found and _has_tables(child):
                    found[module] = child
                else:
                    deeper.append(child)
        frontier = deeper
    return found


def _has_tables(d: Path) -> bool:
    return any(_table_name(p) for p in d.iterdir() if p.is_file())


def discover_tables(root: Path) -> dict[str, TableFile]:
    """Map ``module.table`` to its file, choosing Parquet over gzip CSV over CSV."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root} is not a directory", hint="pass the folder that holds hosp/ and ed/")
    tables: dict[str, TableFile] = {}
    for module, folder in _module_dirs(root).items():
        for path in sorted(folder.iterdir()):
            name = _table_name(path)
            if not name or not path.is_file():
                continue
            key = f"{module}.{name}"
            if key in tables and SUFFIXES.index(_suffix(tables[key].path)) <= SUFFIXES.index(_suffix(path)):
                continue
            tables[key] = TableFile(module, name, path)
    return tables


def _suffix(path: Path) -> str:
    return next(s for s in SUFFIXES if path.name.endswith(s))


class MimicSource:
    """An in-memory DuckDB connection with one view per discovered table.

    ``con`` is the connection; ``tables`` maps ``module.table`` to its file. Views read the files
    lazily, so opening a full MIMIC-IV root costs milliseconds.
    """

    def __init__(self, root: Path, *, threads: int | None = None, memory_limit: str | None = None) -> None:
        self.root = Path(root)
        self.tables = discover_tables(self.root)
        self.con = duckdb.connect(":memory:")
        if threads:
            self.con.execute(f"SET threads = {int(threads)}")
        if memory_limit:
            self.con.execute(f"SET memory_limit = '{memory_limit}'")
        for module in sorted({t.module for t in self.tables.values()}):
            self.con.execute(f'CREATE SCHEMA IF NOT EXISTS "{module}"')
        for t in self.tables.values():
            self.con.execute(f'CREATE VIEW "{t.module}"."{t.table}" AS SELECT * FROM {_reader_sql(t)}')

    def has(self, qualified: str) -> bool:
        return qualified in self.tables

    def modules(self) -> set[str]:
        return {t.module for t in self.tables.values()}

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> MimicSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# Columns that must stay text although they often look numeric (ICD-9 codes keep leading zeros).
_TEXT_COLUMNS = {
    "diagnoses_icd": ("icd_code",),
    "d_icd_diagnoses": ("icd_code",),
    "procedures_icd": ("icd_code",),
    "d_icd_procedures": ("icd_code",),
    "diagnosis": ("icd_code",),
}


def _reader_sql(t: TableFile) -> str:
    path = str(t.path).replace("'", "''")
    if t.format == "parquet":
        return f"read_parquet('{path}')"
    # All columns typed by sniffing the whole file would cost a full scan of labevents; sample and
    # let ID / code columns stay text where MIMIC stores them as text (icd_code keeps leading zeros).
    types = ", ".join(f"'{c}': 'VARCHAR'" for c in _TEXT_COLUMNS.get(t.table, ()))
    return (
        f"read_csv('{path}', header=true, auto_detect=true, sample_size=20480, "
        f"types={{{types}}}, nullstr='', quote='\"', escape='\"')"
    )


def open_mimic(root: Path, **kwargs: object) -> MimicSource:
    """Open a MIMIC-IV root (real, synthetic or converted) as DuckDB views ``<module>.<table>``."""
    return MimicSource(Path(root), **kwargs)  # type: ignore[arg-type]
