"""``admitdx predict`` (run a system over a dataset) and ``admitdx systems`` (list the kinds)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from admitdx.cli.executor_options import ExecutorOption, RayAddressOption, RayShardOption, RayWorkersOption
from admitdx.cli.options import FLAG, parse_key_values
from admitdx.errors import UsageError

# The systems, their runner and the LLM client are imported by the verbs that use them, so that
# `admitdx --help` does not load them.


def predict(
    dataset: Annotated[Path, typer.Option("--dataset", help="Dataset directory (with instances.jsonl).")],
    system: Annotated[
        str,
        typer.Option(
            "--system",
            help="A name from --config, a registered kind, or `local` (the llm kind on the bundled "
            "llama.cpp server, as in `admitdx audit --system local`).",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="Predictions directory; rerun to resume.")],
    config: Annotated[
        Path | None, typer.Option("--config", help="YAML file with `systems:` and `allow_hosts:`.")
    ] = None,
    split: Annotated[str, typer.Option("--split", help="Split to predict.")] = "test",
    train_split: Annotated[str, typer.Option("--train-split", help="Split to learn from.")] = "train",
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            min=1,
            help="Predict only the first N (a trial: a later run with a larger or no limit appends "
            "the rest).",
        ),
    ] = None,
    keep_unsupported_only: Annotated[
        bool,
        typer.Option(
            "--keep-unsupported-only",
            help="Also predict the encounters whose labels the audit found all unsupported; scoring "
            "leaves them out (EarlyDx §4.1) unless `score --keep-unsupported-only`.",
            metavar=FLAG,
        ),
    ] = False,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="System option KEY=VALUE over --config's (repeatable), e.g. --set k=5."),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(
            "--name",
            help="Name of this run's system in predictions and reports (default: --system), so two "
            "configurations of one kind can be scored side by side without a --config file.",
        ),
    ] = None,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    ray_workers: RayWorkersOption = 2,
    ray_shard_size: RayShardOption = 8,
) -> None:
    """Predict diagnoses for every instance of a split, appending to OUT/predictions.jsonl.

    The system learns from the training split only; test references are removed before it sees them.

    Ctrl-C keeps every finished prediction: rerun the same command to continue.
    Options come from the --config entry, then --set on top, so an LLM needs no file:
    `--system local --set prompt=cot --name local-cot` — `--system local` is short for
    `--system llm --set base_url=local` and means what it means for `admitdx audit` and
    `admitdx rationale`. `admitdx systems --verbose` lists each kind's options.

    Example: admitdx predict --dataset runs/earlydx --system knn-bm25 --out runs/pred/knn-bm25
    """
    from admitdx.executors import make_executor
    from admitdx.systems.config import SystemChoice, load_config
    from admitdx.systems.llm import LOCAL
    from admitdx.systems.options import checked_options
    from admitdx.systems.runner import run_predictions

    run_config = load_config(config)
    if system == LOCAL and LOCAL not in run_config.systems:
        choice = SystemChoice(LOCAL, "llm", {"base_url": LOCAL})
    else:
        choice = run_config.choose(system)
    options = {**choice.options, **parse_key_values(set_)}
    choice = dataclasses.replace(choice, options=checked_options(choice.kind, choice.name, options))
    if name is not None:
        choice = dataclasses.replace(choice, name=name)
    if executor != "local" and choice.kind != "llm":
        raise UsageError(
            f"--executor {executor} runs the calls of llm systems; {choice.name!r} is of kind {choice.kind}",
            hint="leave out --executor for systems that make no model calls",
        )
    runs_on = make_executor(executor, address=ray_address, workers=ray_workers, shard_size=ray_shard_size)
    if choice.kind == "llm":
        choice = dataclasses.replace(choice, options={**choice.options, "executor": runs_on})
    console = Console(stderr=True)
    try:
        summary = run_predictions(
            dataset,
            choice,
            out,
            allow_hosts=run_config.allow_hosts,
            split=split,
            train_split=train_split,
            limit=limit,
            keep_unsupported_only=keep_unsupported_only,
        )
    except KeyboardInterrupt:
        console.print(
            f"[yellow]interrupted[/]: finished predictions are kept in {out}; "
            "rerun the same command to predict the rest"
        )
        raise typer.Exit(130) from None
    finally:
        runs_on.close()
    console.print(
        f"{summary.system}: {summary.predicted} predicted now, {summary.resumed} earlier, "
        f"{summary.total} in all; {summary.outcome()} → {summary.out_dir}"
    )


def systems(
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Also list each kind's options (for --set KEY=VALUE).", metavar=FLAG
        ),
    ] = False,
) -> None:
    """List the registered system kinds (use one as --system, or as `kind:` in a --config file).

    Example: admitdx systems --verbose
    """
    from admitdx.systems import registered
    from admitdx.systems.options import kind_options

    table = Table(
        "kind",
        "answers",
        "description",
        *(["options (--set KEY=VALUE, default)"] if verbose else []),
        box=None,
    )
    for spec in registered().values():
        table.add_row(
            spec.name,
            ", ".join(spec.answers),
            spec.description,
            *([kind_options(spec.factory)] if verbose else []),
        )
    Console(width=max(Console().width, 160) if verbose else None).print(table)


def register(app: typer.Typer) -> None:
    """Add this area's verbs to the root app."""
    app.command("predict")(predict)
    app.command("systems")(systems)
