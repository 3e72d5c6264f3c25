"""``admitdx study STUDY.yaml``: every task × system of a study, then one leaderboard."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from admitdx.cli.options import FLAG


def study(
    study_file: Annotated[Path, typer.Argument(help="The study file (YAML; see `admitdx.study.spec`).")],
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Build the datasets (no model call), then print per task × system the instances, the "
            "model calls still to make (cache hits subtracted) and their prompt tokens; call nothing.",
            metavar=FLAG,
        ),
    ] = False,
    take_over: Annotated[
        bool,
        typer.Option(
            "--take-over",
            help="Run in an out: folder that another study's OUT/study.json claims, replacing its runs "
            "of the same names and its leaderboard; the folder is then this study's.",
            metavar=FLAG,
        ),
    ] = False,
) -> None:
    """Run a study: build, audit, predict, match, score and report every task for every system, then
    write OUT/leaderboard.html (.json, .md, .tex) with the papers' published numbers beside yours.

    The whole file is checked first (every system, option, matcher and score option; names are
    folders under out:), and OUT/study.json records which study the folder belongs to: another
    study's folder is refused before any work unless --take-over.

    Resumable: every stage is cached and provenance-checked, so a rerun after Ctrl-C or a kill makes
    no model call twice and skips what is done. Each task's report links to its encounter browser.

    Example: admitdx study study.yaml --dry-run
    """
    from admitdx.study.spec import load_study
    from admitdx.study.steps import Steps

    console = Console(stderr=True)
    spec = load_study(study_file)
    steps = Steps(console)
    try:
        if dry_run:
            from admitdx.study.dry_run import dry_run as estimate

            _print_estimates(estimate(spec, steps, take_over))
            return
        from admitdx.study.run import run_study

        path, _ = run_study(spec, steps, take_over)
    except KeyboardInterrupt:
        console.print(f"[yellow]interrupted[/]: finished work is kept; rerun `admitdx study {study_file}`")
        raise typer.Exit(130) from None
    typer.echo(path.resolve())


def _print_estimates(rows: list) -> None:  # type: ignore[type-arg]
    table = Table("task", "system", "instances", "done", "calls to make", "cache hits", "prompt tokens",
                  "counted by", box=None)  # fmt: skip
    for r in rows:
        table.add_row(r.task, r.system, str(r.instances), str(r.done), str(r.calls), str(r.cache_hits),
                      f"{r.prompt_tokens:,}", r.tokens_by or "—")  # fmt: skip
    console = Console()
    console = Console(file=console.file, width=max(console.width, 140), force_terminal=console.is_terminal)
    console.print(table)
    total = sum(r.calls for r in rows)
    console.print(f"{total} model call(s) to make, ≈{sum(r.prompt_tokens for r in rows):,} prompt tokens")


def register(app: typer.Typer) -> None:
    app.command("study")(study)
