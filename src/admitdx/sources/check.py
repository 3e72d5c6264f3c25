"""``admitdx data check``: is this folder a usable MIMIC-IV root, and what is wrong with it if not?

For every module and table it reports found / missing, the row count and the problems, reading each
table once in full through its typed view (so a value that cannot be converted, a corrupt gzip
member half-way through a file or a ragged CSV row is found now rather than in the middle of a
build). Problems are errors (the root cannot be used as is: a required table or column is missing,
a file is empty, corrupt or unreadable, a value does not convert, a NOT NULL key is null) or warnings
(worth knowing, harmless to a build: columns out of MIMIC's order, a Parquet column stored with
another type than documented, an optional table with no rows). Unknown extra columns and tables are
fine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from admitdx.errors import InputError
from admitdx.sources.files import TableFile
from admitdx.sources.integrity import GzipResult, Verdicts, default_verdicts, file_identity, verify_gzips
from admitdx.sources.mimic import MimicSource, open_mimic
from admitdx.sources.rules import ERROR, WARNING, Problem, cross_problems, scan_table
from admitdx.sources.schema import MODULES, REQUIRED_MODULES, expected_tables
from admitdx.sources.verify import remember_clean_scan

__all__ = ["ERROR", "WARNING", "CheckReport", "ModuleReport", "Problem", "TableReport", "check_mimic"]


@dataclass
class TableReport:
    module: str
    table: str
    status: str  # "found" | "missing" | "unreadable"
    required: bool
    documented: bool
    path: str | None = None
    format: str | None = None
    rows: int | None = None
    columns: int | None = None
    seconds: float | None = None
    problems: list[Problem] = field(default_factory=list)

    @property
    def qualified(self) -> str:
        return f"{self.module}.{self.table}"


@dataclass
class ModuleReport:
    module: str
    required: bool
    status: str  # "present" (all expected tables) | "partial" | "absent"
    folder: str | None
    tables: list[TableReport] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@dataclass
class CheckReport:
    root: str
    modules: list[ModuleReport]

    def errors(self) -> list[tuple[str, Problem]]:
        """``(where, problem)`` for every error, module-level first."""
        out: list[tuple[str, Problem]] = []
        for m in self.modules:
            out += [(m.module, p) for p in m.problems if p.severity == ERROR]
            out += [(t.qualified, p) for t in m.tables for p in t.problems if p.severity == ERROR]
        return out

    @property
    def ok(self) -> bool:
        return not self.errors()

    def to_dict(self) -> dict[str, Any]:
        return {"root": self.root, "ok": self.ok, "modules": [asdict(m) for m in self.modules]}

    def raise_for_errors(self) -> None:
        """Raise one InputError that names the first error's table/column/row and counts the rest."""
        errors = self.errors()
        if not errors:
            return
        where, first = errors[0]
        more = f" (and {len(errors) - 1} more problem(s) listed above)" if len(errors) > 1 else ""
        raise InputError(
            f"{self.root} is not a usable MIMIC-IV root: {first.message}{more}",
            table=where if "." in where else None,
            column=first.column,
            row=first.row,
            hint="fix or re-download the files named, then run `admitdx data check` again",
        )


def check_mimic(
    root: Path,
    *,
    on_table: Callable[[TableReport], None] | None = None,
    on_verified: Callable[[GzipResult], None] | None = None,
    threads: int | None = None,
    verdicts: Verdicts | None = None,
) -> CheckReport:
    """Validate every table under ``root`` against the documented schema; never raises for data problems.

    Raises InputError only when ``root`` is not a MIMIC-IV root at all (or is an unfinished or
    stale or altered conversion). ``on_table`` is called after each table is read and
    ``on_verified`` after each gzip checksum (from worker threads), for progress display.
    Every gzip checksum and every converted table's SHA-256 is verified afresh; clean results are
    remembered in ``verdicts`` (default: the user's cache), so a build that follows does not
    verify the same files again.
    """
    verdicts = verdicts or default_verdicts()
    with open_mimic(root, strict=False, threads=threads, verdicts=verdicts, fresh=True) as source:
        folders = {t.module: str(t.path.parent) for t in source.tables.values()}
        gzips = [source.tables[k].path for k in source.columns if source.tables[k].gzipped]
        crc = verify_gzips(
            gzips, verdicts, fresh=True, on_done=on_verified
        )  # all at once: the files decompress in parallel
        modules = []
        for module in MODULES:
            found = sorted(k for k in source.tables if source.tables[k].module == module)
            expected = {s.qualified for s in expected_tables(module)}
            reports = []
            for key in sorted(expected | set(found)):
                report = _table_report(source, key, crc, verdicts) if key in source.tables else _missing(key)
                if on_table and key in source.tables:
                    on_table(report)
                reports.append(report)
            modules.append(_module_report(module, folders.get(module), reports, expected))
        _cross_check(source, modules)
    return CheckReport(str(Path(root)), modules)


def _cross_check(source: MimicSource, modules: list[ModuleReport]) -> None:
    """Add the cross-table rules' errors to the tables they name (only tables that read cleanly)."""
    reports = {t.qualified: t for m in modules for t in m.tables}
    clean = {
        k: source.column_names(k)
        for k, t in reports.items()
        if t.status == "found" and not any(p.severity == ERROR for p in t.problems)
    }
    for table, problem in cross_problems(source.con, source.tables, clean):
        reports[table].problems.append(problem)


def _missing(key: str) -> TableReport:
    module, table = key.split(".", 1)
    spec = next(s for s in expected_tables(module) if s.name == table)
    return TableReport(module, table, "missing", spec.required, True)


def _module_report(
    module: str, folder: str | None, tables: list[TableReport], expected: set[str]
) -> ModuleReport:
    required = module in REQUIRED_MODULES
    found_expected = [t for t in tables if t.qualified in expected and t.status != "missing"]
    if expected:
        status = (
            "present" if len(found_expected) == len(expected) else "partial" if found_expected else "absent"
        )
    else:  # a module admitdx does not read (icu): present when any table is there
        status = "present" if tables else "absent"
    report = ModuleReport(module, required, status, folder, tables)
    if required and status == "absent":
        report.problems.append(Problem(ERROR, f"required module {module}/ not found (no {module} tables)"))
    elif required:
        for t in tables:
            if t.status == "missing":
                t.problems.append(Problem(ERROR, f"required table {t.qualified} is missing"))
    return report


def _table_report(
    source: MimicSource, key: str, crc: dict[Path, GzipResult], verdicts: Verdicts
) -> TableReport:
    tf = source.tables[key]
    schema = tf.schema
    report = TableReport(
        tf.module,
        tf.table,
        "found",
        bool(schema and schema.required),
        schema is not None,
        path=str(tf.path),
        format=tf.format,
    )
    if key in source.unreadable:
        report.status = "unreadable"
        err = source.unreadable[key]
        report.problems.append(Problem(ERROR, err.detail, err.column, err.row))
        return report
    header = source.columns[key]
    report.columns = len(header)
    if schema:
        _check_columns(report, tf, header)
    started = time.perf_counter()
    identity = file_identity(tf.path)
    if tf.gzipped and (damage := crc[tf.path].damage):
        report.status = "unreadable"
        report.problems.append(Problem(ERROR, f"corrupt gzip file: {damage}"))
        return report
    scan = scan_table(source.con, tf, [n for n, _ in header])
    report.seconds = round(time.perf_counter() - started, 3)
    report.rows = scan.rows
    report.problems += scan.problems
    if scan.rows is None:
        report.status = "unreadable"
        return report
    if scan.rows == 0:
        severity = ERROR if report.required else WARNING
        report.problems.append(Problem(severity, f"{key} has a header but no rows"))
    if not any(p.severity == ERROR for p in report.problems):
        remember_clean_scan(tf, identity, scan.rows, verdicts)
    return report


def _check_columns(report: TableReport, tf: TableFile, header: list[tuple[str, str]]) -> None:
    assert tf.schema is not None
    stored = dict(header)
    for column in tf.schema.required_columns:
        if column not in stored:
            report.problems.append(Problem(ERROR, f"required column {column} is missing", column))
    documented = [c.name for c in tf.schema.columns if c.name in stored]
    if [n for n in stored if n in tf.schema.types] != documented:
        report.problems.append(Problem(WARNING, "columns are not in MIMIC's documented order"))
    if tf.format == "parquet":
        for name, want in tf.schema.types.items():
            if name in stored and stored[name] != want:
                report.problems.append(
                    Problem(WARNING, f"stored as {stored[name]}, documented {want} (read as {want})", name)
                )
