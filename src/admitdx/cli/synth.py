"""``admitdx data synth``: write a synthetic MIMIC-IV root (the project's embedded default data),
or with ``--erreason`` a synthetic ER-Reason release written to the release's data card."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from admitdx.cli.data import data_app
from admitdx.cli.options import FLAG
from admitdx.errors import UsageError

PATIENTS = 1000
ENCOUNTERS = 400

console = Console()


def synth(
    out: Annotated[Path, typer.Option("--out", help="Folder to create (new or empty, unless --force).")],
    patients: Annotated[
        int | None,
        typer.Option("--patients", min=1, help=f"Number of synthetic patients (default: {PATIENTS})."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Random seed; same seed, byte-identical files.")] = 0,
    workers: Annotated[
        int | None, typer.Option("--workers", min=1, help="Worker processes (default: up to 2).")
    ] = None,
    report: Annotated[
        bool, typer.Option("--report", help="Print achieved calibration next to EarlyDx's.", metavar=FLAG)
    ] = False,
    force: Annotated[
        bool,
        typer.Option("--force", help="Write into a non-empty --out, replacing its tables.", metavar=FLAG),
    ] = False,
    erreason: Annotated[
        bool,
        typer.Option(
            "--erreason",
            help="Write a synthetic ER-Reason release instead (er_reason.csv and icd_10_codes.csv to "
            "the data card, _truth/); --encounters sets its size.",
            metavar=FLAG,
        ),
    ] = False,
    encounters: Annotated[
        int | None,
        typer.Option(
            "--encounters", min=1, help=f"With --erreason: number of encounters (default: {ENCOUNTERS})."
        ),
    ] = None,
) -> None:
    """Generate a synthetic MIMIC-IV root (hosp, ed, note, ecg, echo as gzip CSV) plus _truth/,
    or with --erreason a synthetic ER-Reason release.

    Example: admitdx data synth --out data/synth --patients 1000 --seed 0 --report

    Example: admitdx data synth --erreason --out data/er-reason --encounters 400 --seed 0
    """
    _refuse_idle_options(erreason, patients=patients, workers=workers, report=report, encounters=encounters)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder", hint="choose a folder to create")
    if erreason:
        _synth_release(out, encounters or ENCOUNTERS, seed, force)
        return
    patients = patients or PATIENTS
    from admitdx.synthetic import generate_synthetic

    columns = (
        TextColumn("patients"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("synth", total=patients)
        try:
            summary = generate_synthetic(
                out,
                patients,
                seed,
                workers=workers,
                overwrite=force,
                progress=lambda done, _total: bar.update(task, completed=done),
            )
        except KeyboardInterrupt:
            console.print(
                f"[yellow]interrupted[/]: {out} holds only unfinished *.part files; rerun with --force"
            )
            raise typer.Exit(130) from None
    rate = summary.total_rows / max(summary.seconds, 1e-9)
    console.print(
        f"wrote {summary.patients:,} patients, {summary.rows.get('_truth.encounters', 0):,} ED stays, "
        f"{summary.total_rows:,} rows to {out} in {summary.seconds:.1f} s ({rate:,.0f} rows/s)"
    )
    if report:
        _print_report(out)


def _refuse_idle_options(erreason: bool, **given: object) -> None:
    """An option the chosen generator does not read is refused, not ignored: ``--report`` with
    ``--erreason`` printed nothing, and ``--patients`` sized nothing."""
    idle = ("encounters",) if not erreason else ("patients", "workers", "report")
    named = [f"--{k}" for k in idle if given[k] not in (None, False)]
    if named:
        which = "a synthetic ER-Reason release" if erreason else "a synthetic MIMIC-IV root"
        raise UsageError(
            f"{', '.join(named)} does nothing for {which}",
            hint="leave it out" + ("" if erreason else ", or pass --erreason for a release of that size"),
        )


def _synth_release(out: Path, encounters: int, seed: int, force: bool) -> None:
    from admitdx.sources.erreason import CODES_FILE, ENCOUNTERS_FILE
    from admitdx.synthetic.erreason import generate_release
    from admitdx.synthetic.erreason.generate import TRUTH_DIR

    inside = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    if inside and not force:
        raise UsageError(f"{out} is not empty", hint="choose a new folder or pass --force")
    others = [name for name in inside if name not in (ENCOUNTERS_FILE, CODES_FILE, TRUTH_DIR)]
    if others:  # the release replaces the folder whole, so --force may replace only a release
        raise UsageError(
            f"{out} holds more than a release ({', '.join(others[:5])}), which --force would delete",
            hint="choose a new folder",
        )
    generate_release(out, encounters, seed)
    console.print(f"wrote a synthetic ER-Reason release of {encounters:,} encounters to {out}")


def _print_report(root: Path) -> None:
    from admitdx.synthetic.report import calibration_report

    table = Table(title="Calibration against EarlyDx (cohort: ED stays with an admission)")
    for name in ("figure", "EarlyDx", "achieved", "measured as"):
        table.add_column(name, overflow="fold")
    for f in calibration_report(root):
        fmt = (
            (lambda v: f"{v:,.0f}") if f.name.startswith(("cohort", "encounters")) else (lambda v: f"{v:.3f}")
        )
        table.add_row(f.name, "" if f.target is None else fmt(f.target), fmt(f.achieved), f.description)
    console.print(table)


def register(app: typer.Typer) -> None:
    """Add ``data synth`` to the ``data`` group (the root app is not used directly)."""
    data_app.command("synth")(synth)
