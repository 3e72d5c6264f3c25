"""Command-line verbs for building task sets and exporting them: ``admitdx build <task>`` (one
command per registered task, generated from its :class:`~admitdx.tasks.spec.TaskSpec`),
``admitdx tasks`` and ``admitdx export sft``. Thin wrappers: the work is in :mod:`admitdx.tasks`."""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.console import Console
from rich.progress import TaskID
from rich.table import Table

from admitdx.cli.options import parse_key_values
from admitdx.errors import UsageError
from admitdx.progress import progress_bar
from admitdx.runs import exclusive
from admitdx.tasks.registry import registered
from admitdx.tasks.spec import TaskSpec

build_app = typer.Typer(
    help="Build a benchmark's task set from an EHR root (`admitdx tasks` lists the tasks).\n\n"
    "Example: admitdx build earlydx --mimic ~/mimic-iv --out data/earlydx",
    no_args_is_help=True,
)
export_app = typer.Typer(
    help="Export a built dataset for other tools.\n\n"
    "Example: admitdx export sft --dataset data/earlydx --out data/sft",
    no_args_is_help=True,
)
_Opt = typer.Option


def _names(value: str | None) -> tuple[str, ...]:
    return tuple(s.strip() for s in value.split(",") if s.strip()) if value else ()


def _cli_type(hint: Any) -> tuple[Any, str]:
    """The type typer reads for a params field, and a note for its help: a Literal is a string whose
    values are listed (the dataclass checks them), a tuple a comma-separated list."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    optional = typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 1
    inner = args[0] if optional else hint
    if typing.get_origin(inner) is Literal:
        return (str | None) if optional else str, "one of " + ", ".join(map(str, typing.get_args(inner)))
    if typing.get_origin(inner) is tuple:
        return str | None, "comma-separated"
    return (inner | None) if optional else inner, ""


def _option_name(name: str) -> str:
    return "--" + name.replace("_", "-")


def _task_command(spec: TaskSpec) -> typer.models.CommandFunctionType:
    """``admitdx build <task>``: every params field as a typed option (its default and help from the
    dataclass), plus the spec's extra options, the common build options and ``--set``."""
    hints = typing.get_type_hints(spec.params)
    fields = [f for f in dataclasses.fields(spec.params) if f.init]
    tuple_fields = {f.name for f in fields if typing.get_origin(hints[f.name]) is tuple}
    parameters = [
        inspect.Parameter(
            "source",
            inspect.Parameter.KEYWORD_ONLY,
            annotation=Annotated[Path, _Opt(f"--{spec.source_option}", help=spec.source_help)],
        ),
        inspect.Parameter(
            "out",
            inspect.Parameter.KEYWORD_ONLY,
            annotation=Annotated[Path, _Opt("--out", help="Dataset directory to write.")],
        ),
    ]
    for f in fields:
        cli_type, note = _cli_type(hints[f.name])
        default = ",".join(f.default) if f.name in tuple_fields and f.default else f.default
        if default == () or default is dataclasses.MISSING:
            default = None
        help_ = f.metadata.get("help", "") + (f" ({note})" if note else "")
        parameters.append(
            inspect.Parameter(
                f.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=Annotated[cli_type, _Opt(_option_name(f.name), help=help_)],
                default=default,
            )
        )
    for extra in spec.extra_options:
        parameters.append(
            inspect.Parameter(
                extra.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=Annotated[str | None, _Opt(_option_name(extra.name), help=extra.help)],
                default=None,
            )
        )
    common = {
        "split_file": (Path | None, None, "Reuse the split.csv of an earlier build."),
        "memory_limit": (str, "3GB", "DuckDB memory cap; larger work spills to --out."),
        "force": (bool, False, "Rebuild even if --out holds a build of the same inputs."),
        "set_": (
            list[str] | None,
            None,
            "Any parameter as KEY=VALUE (repeatable), e.g. --set home_meds_max=20.",
        ),
    }
    for name, (kind, default, help_) in common.items():
        flag = "--set" if name == "set_" else _option_name(name)
        parameters.append(
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=Annotated[kind, _Opt(flag, help=help_)],
                default=default,
            )
        )

    def command(**values: Any) -> None:
        settings = parse_key_values(values.pop("set_"))
        source, out = values.pop("source"), values.pop("out")
        split_file, memory_limit, force = (
            values.pop("split_file"),
            values.pop("memory_limit"),
            values.pop("force"),
        )
        for name in tuple_fields | {e.name for e in spec.extra_options}:
            values[name] = _names(values[name])
        unknown = sorted(set(settings) - {f.name for f in fields})
        if unknown:
            raise UsageError(
                f"--set: {', '.join(unknown)} is not a parameter of {spec.name}",
                hint=f"parameters: {', '.join(f.name for f in fields)}",
            )
        for name, value in settings.items():
            values[name] = tuple(value) if name in tuple_fields and isinstance(value, list) else value
        values = {k: v for k, v in values.items() if not (v == () and k not in settings)}
        params = spec.make_params(**values)
        _run_build(spec, source, out, params, split_file=split_file, memory_limit=memory_limit, force=force)

    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__doc__ = f"{spec.summary}.\n\nExample: {spec.example}"
    return command


def _run_build(spec: TaskSpec, source: Path, out: Path, params: Any, **options: Any) -> None:
    console = Console(stderr=True)
    try:
        with progress_bar(console) as bar:
            tasks: dict[str, TaskID] = {}

            def report(stage: str, done: int, total: int) -> None:
                if stage not in tasks:
                    tasks[stage] = bar.add_task(stage, total=total)
                bar.update(tasks[stage], completed=done, total=total)

            with exclusive(out, f"build {spec.name}"):
                result = spec.build(source, out, params, progress=report, **options)
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]: nothing was written; rerun the same command to build again.")
        raise typer.Exit(130) from None
    if result.get("skipped"):
        console.print(f"{out} already holds this build (same inputs and parameters); use --force to rebuild.")
    for line in spec.report_build(result, params) if spec.report_build else []:
        console.print(line)
    console.print(f"see {out / 'manifest.json'}")


def tasks() -> None:
    """List the registered benchmark tasks (each is a `build` subcommand).

    Example: admitdx tasks
    """
    table = Table("task", "answer", "matcher", "metric suite", "what it asks", box=None)
    for spec in registered().values():
        answer = spec.answer + (f" ({', '.join(spec.categories)})" if spec.categories else "")
        table.add_row(spec.name, answer, spec.matcher or "—", spec.suite, spec.summary)
    console = Console()
    Console(file=console.file, width=max(console.width, 150), force_terminal=console.is_terminal).print(table)


_RATIONALES_HELP = "rationales.jsonl of `admitdx rationale`: reasoning before the diagnoses (CoT SFT)."
_EVIDENCE_HELP = "Keep only labels of these evidence classes, e.g. supported,partial (audited datasets)."


@export_app.command("sft")
def sft(
    dataset: Annotated[Path, _Opt("--dataset", help="A built EarlyDx dataset directory.")],
    out: Annotated[
        Path, _Opt("--out", help="Directory for <split>.jsonl, <split>.parquet and dataset_info.json.")
    ],
    splits: Annotated[
        str | None, _Opt(help="Comma-separated splits to export (default: train, and val if present).")
    ] = None,
    include_test: Annotated[
        bool, _Opt(help="Allow exporting the test split (a model tuned on it cannot be evaluated on it).")
    ] = False,
    answer_format: Annotated[
        str,
        _Opt(
            help="json: the prompt and JSON answer `admitdx predict --system llm` evaluates; lines: the "
            "paper's question and one diagnosis per line."
        ),
    ] = "json",
    evidence: Annotated[str | None, _Opt(help=_EVIDENCE_HELP)] = None,
    system_prompt: Annotated[
        Path | None, _Opt(help="File with a system prompt replacing the format's own.")
    ] = None,
    rationales: Annotated[Path | None, _Opt(help=_RATIONALES_HELP)] = None,
) -> None:
    """Write chat-format (system/user/assistant) JSONL and Parquet for supervised fine-tuning, with
    LLaMA-Factory's dataset_info.json; TRL's SFTTrainer reads the `messages` column as it is.

    The answers are the dataset's label texts: build with `--label-text dictionary` to train on
    ICD dictionary titles instead of the ED's own diagnosis titles.

    Example: admitdx export sft --dataset data/earlydx --out data/earlydx-sft
    """
    from admitdx.tasks.earlydx.export import export_sft

    prompt = system_prompt.read_text(encoding="utf-8").strip() if system_prompt else None
    chosen = _names(splits) or None
    if include_test and (chosen is None or "test" in chosen):
        Console(stderr=True).print(
            "[yellow]warning[/]: exporting the test split: do not fine-tune on it a model you evaluate on it"
        )
    counts = export_sft(
        dataset,
        out,
        splits=chosen,
        include_test=include_test,
        answer_format=answer_format,  # type: ignore[arg-type]
        evidence=_names(evidence) or None,
        system_prompt=prompt,
        rationales=rationales,
    )
    for split, c in counts.items():
        typer.echo(f"{split}: {c['examples']} examples → {out / f'{split}.jsonl'}")
    typer.echo(f"LLaMA-Factory: {out / 'dataset_info.json'}")


def register(app: typer.Typer) -> None:
    """Add ``build`` (one subcommand per registered task), ``tasks`` and ``export`` to the root app."""
    for spec in registered().values():
        build_app.command(spec.name)(_task_command(spec))
    app.add_typer(build_app, name="build")
    app.add_typer(export_app, name="export")
    app.command("tasks")(tasks)
