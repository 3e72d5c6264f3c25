"""``admitdx data``: check, convert and synthesize MIMIC-IV roots; check an ER-Reason release."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)
from rich.table import Table

from admitdx.cli.options import FLAG
from admitdx.errors import UsageError
from admitdx.runs import exclusive
from admitdx.sources.convert import DEFAULT_COMPRESSION, DEFAULT_MEMORY_LIMIT
from admitdx.sources.files import TableFile, discover_tables
from admitdx.sources.rules import ERROR

if TYPE_CHECKING:  # the checks and their verdicts (every task's builder) load when a verb runs
    from admitdx.sources.check import CheckReport, TableReport
    from admitdx.sources.convert import ConvertedTable
    from admitdx.sources.integrity import GzipResult

data_app = typer.Typer(help="Inspect, convert and synthesize MIMIC-IV roots.", no_args_is_help=True)

EXIT_INTERRUPTED = 130
_MIMIC_HELP = "MIMIC-IV root: the folder holding hosp/ and ed/ (or their versioned release folders)."
_ERREASON_HELP = "ER-Reason release folder: er_reason.csv and icd_10_codes.csv."


def register(app: typer.Typer) -> None:
    app.add_typer(data_app, name="data")


@data_app.command("check")
def check(
    mimic: Annotated[Path | None, typer.Option("--mimic", help=_MIMIC_HELP)] = None,
    erreason: Annotated[Path | None, typer.Option("--erreason", help=_ERREASON_HELP)] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON (nothing else on stdout).", metavar=FLAG)
    ] = False,
) -> None:
    """Validate a MIMIC-IV root (--mimic) or an ER-Reason release (--erreason).

    An ER-Reason release is checked exactly as `admitdx build er-reason` reads it: a missing
    er_reason.csv or icd_10_codes.csv, a missing column, or an acuitylevel or eddisposition outside
    the data card's values exits 2 naming the file, the column and the record; a release that loads
    prints its counts (encounters, patients, codes, rationales, targets).

    For a MIMIC-IV root: per module and table, found or missing, row count and problems.

    Reads every table once in full, with the documented column types, and verifies every gzip
    checksum afresh (convert and build trust a checksum verified before while the file is unchanged).

    Exit code 2 when the root cannot be used: a required table or column is missing, a file is empty,
    corrupt or unreadable, a value does not convert, a NOT NULL key is null, or a row breaks a rule
    builds rely on (an ED stay ending before it starts, a negative age). Warnings alone exit 0.

    Example: admitdx data check --mimic ../shared/data/mimic-iv-demo
    """
    if erreason is not None and mimic is None:
        _check_release(erreason, as_json)
        return
    if mimic is None or erreason is not None:
        raise UsageError(
            "data check: give exactly one of --mimic ROOT or --erreason DIR",
            hint="e.g. admitdx data check --mimic ../shared/data/mimic-iv-demo",
        )
    from admitdx.cli.data_verdict import verdict_lines, verdicts
    from admitdx.sources.check import check_mimic

    err = Console(stderr=True)
    tables = discover_tables(mimic)
    try:
        with _progress(err, disable=as_json) as progress:
            crc = progress.add_task("verifying gzip checksums", total=_source_bytes(tables, gzipped=True))
            task = progress.add_task("checking tables", total=_source_bytes(tables))

            def verified(r: GzipResult) -> None:
                progress.update(crc, advance=r.path.stat().st_size, description=f"checksum {r.path.name}")

            def done(t: TableReport) -> None:
                rows = f"{t.rows:,} rows" if t.rows is not None else t.status
                size = Path(t.path).stat().st_size if t.path else 0
                progress.update(task, advance=size, description=f"{t.qualified} ({rows})")

            report = check_mimic(mimic, on_table=done, on_verified=verified)
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/]: nothing was written; run the check again when ready")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if as_json:
        typer.echo(json.dumps({**report.to_dict(), "tasks": dict(verdicts(report))}, indent=2))
    else:
        Console().print(_report_table(report))
        for line in verdict_lines(report):  # what this root can build, task by task
            Console(soft_wrap=True).print(line, highlight=False, markup=False)
    report.raise_for_errors()


def _check_release(root: Path, as_json: bool) -> None:
    """Load the release as the builders do (errors exit 2 from there) and print its counts."""
    from admitdx.sources.erreason import VISIT_YEAR, load_release, release_summary

    summary = release_summary(load_release(root, optional=(VISIT_YEAR,)))
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    table = Table(title=f"ER-Reason release {summary['root']}", title_justify="left", show_header=False)
    table.add_column("what")
    table.add_column("value")
    for key, value in summary.items():
        if key != "root":
            shown = (
                ", ".join(f"{k} {v:,}" for k, v in value.items()) if isinstance(value, dict) else f"{value:,}"
            )
            table.add_row(key.replace("_", " "), shown)
    Console().print(table)


@data_app.command("convert")
def convert(
    mimic: Annotated[Path, typer.Option("--mimic", help=_MIMIC_HELP)],
    out: Annotated[Path, typer.Option("--out", help="Folder for the Parquet copy (module layout kept).")],
    compression: Annotated[str, typer.Option(help="Parquet compression codec.")] = DEFAULT_COMPRESSION,
    threads: Annotated[int, typer.Option(help="DuckDB threads (0 = all cores).")] = 0,
    memory_limit: Annotated[
        str, typer.Option(help="DuckDB memory limit; the sort spills to disk beyond it.")
    ] = DEFAULT_MEMORY_LIMIT,
) -> None:
    """Write a typed Parquet copy of a MIMIC-IV root (timestamps parsed, rows sorted by subject_id).

    Builds read the copy exactly like the original (pass the output folder as --mimic), only faster.

    Refuses (exit 2, before writing anything) a root with a table `data check` would report an error
    in. An interrupted run keeps the tables it finished; running the same command again skips them.
    Until a run finishes, the folder is marked unfinished and builds refuse it.

    Example: admitdx data convert --mimic ~/physionet/mimiciv --out ~/mimiciv-parquet
    """
    from admitdx.sources.convert import check_request, convert_mimic

    console = Console(stderr=True)
    check_request(mimic, out, compression)
    tables = discover_tables(mimic)
    with _progress(console) as progress:
        crc = progress.add_task("verifying gzip checksums", total=_source_bytes(tables, gzipped=True))
        task = progress.add_task("converting", total=_source_bytes(tables))

        def verified(r: GzipResult) -> None:
            progress.update(crc, advance=r.path.stat().st_size, description=f"checksum {r.path.name}")

        def start(tf: TableFile) -> None:
            progress.update(task, description=tf.qualified)

        def done(r: ConvertedTable) -> None:
            progress.update(task, advance=r.source_bytes)
            rate = f"{r.rows / r.seconds:,.0f} rows/s" if r.seconds > 0 and not r.skipped else ""
            note = "unchanged, kept" if r.skipped else f"{r.seconds:.2f} s  {rate}"
            progress.console.print(f"  {r.qualified:<32} {r.rows:>14,} rows  {note}")

        try:
            with exclusive(out, "data convert"):  # two converts into one folder would mix their tables
                results = convert_mimic(
                    mimic,
                    out,
                    compression=compression,
                    threads=threads or None,
                    memory_limit=memory_limit or None,
                    on_start=start,
                    on_done=done,
                    on_verified=verified,
                )
        except KeyboardInterrupt:
            console.print("[yellow]interrupted[/]: finished tables are kept; run the same command to resume")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    rows = sum(r.rows for r in results)
    console.print(f"[green]done[/]: {len(results)} tables, {rows:,} rows → {out}")


def _source_bytes(tables: dict[str, TableFile], *, gzipped: bool = False) -> int:
    """Total size of the (gzip) table files: progress bars count bytes read, a fair proxy for time."""
    return sum(tf.path.stat().st_size for tf in tables.values() if tf.gzipped or not gzipped)


def _progress(console: Console, *, disable: bool = False) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description:<40}"),
        BarColumn(),
        TransferSpeedColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=disable,
    )


_STATUS_STYLE = {"present": "green", "partial": "yellow", "absent": "dim", "found": "green", "missing": "red"}


def _report_table(report: CheckReport) -> Table:
    table = Table(title=f"MIMIC-IV root {report.root}", title_justify="left")
    for name, justify in (
        ("module", "left"),
        ("table", "left"),
        ("status", "left"),
        ("rows", "right"),
        ("problems", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for m in report.modules:
        kind = "required" if m.required else "optional"
        style = "red" if m.required and m.status != "present" else _STATUS_STYLE[m.status]
        module_cell = f"{m.module} [{style}]{m.status}[/] ({kind})"
        if m.status == "absent":
            table.add_row(
                module_cell, "—", "", "", "; ".join(p.message for p in m.problems), end_section=True
            )
            continue
        for i, t in enumerate(m.tables):
            status_style = (
                "red"
                if any(p.severity == ERROR for p in t.problems)
                else _STATUS_STYLE.get(t.status, "yellow")
            )
            problems = "; ".join(
                f"[{'red' if p.severity == ERROR else 'yellow'}]{p.message}[/]" for p in t.problems
            )
            table.add_row(
                module_cell if i == 0 else "",
                t.table,
                f"[{status_style}]{t.status}[/]",
                f"{t.rows:,}" if t.rows is not None else "",
                problems,
                end_section=i == len(m.tables) - 1,
            )
    return table
