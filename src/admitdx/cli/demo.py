"""``admitdx demo``: the whole pipeline on synthetic data, no arguments needed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from admitdx.cli.options import FLAG
from admitdx.demo.params import DemoParams

_defaults = DemoParams()


def demo(
    out: Annotated[
        Path, typer.Option("--out", help="Where every stage writes its directory.")
    ] = _defaults.out,
    patients: Annotated[
        int, typer.Option("--patients", min=50, help="Synthetic patients.")
    ] = _defaults.patients,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of the data, split and bootstrap.")
    ] = _defaults.seed,
    test_fraction: Annotated[
        float,
        typer.Option("--test-fraction", min=0.001, max=0.5, help="Share of patients in the test split."),
    ] = _defaults.test_fraction,
    llm: Annotated[
        bool,
        typer.Option(
            "--llm/--no-llm", help="Run the local SmolLM2 steps (needs admitdx\\[local]).", metavar=FLAG
        ),
    ] = True,
    other_tasks: Annotated[
        bool,
        typer.Option(
            "--other-tasks/--earlydx-only",
            help="Also CliniBench (hosp, ICD-10) and the ER-Reason acuity and disposition tasks.",
            metavar=FLAG,
        ),
    ] = _defaults.other_tasks,
) -> None:
    """Generate a synthetic MIMIC-IV, then run the shipped study (`admitdx.demo`'s demo_study.yaml,
    an example study file): EarlyDx (build, audit, four baselines and the local model on its first
    20 test encounters, match, score, report), then CliniBench (hosp, ICD-10) and the MIMIC-IV-ED
    ER-Reason acuity and disposition tasks on the same root, each with its baselines and the local
    model on a small subset. Prints one path: the leaderboard, which links every report.

    Resumable: rerun after Ctrl-C and finished stages are reused. The local SmolLM2-135M model
    proves the LLM path end to end; it has no clinical skill.

    Example: admitdx demo --out admitdx-demo
    """
    params = DemoParams(
        out=out,
        patients=patients,
        seed=seed,
        test_fraction=test_fraction,
        use_llm=llm,
        other_tasks=other_tasks,
    )
    from admitdx.demo.run import run_demo  # every stage: not on the import path of --version

    console = Console(stderr=True)
    try:
        leaderboard = run_demo(params, console)
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]: rerun `admitdx demo` with the same options to continue")
        raise typer.Exit(130) from None
    console.print("\n[bold green]Leaderboard[/] (every report and its encounter browser are linked from it):")
    typer.echo(leaderboard.resolve())


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
