"""Command-line verbs for building task sets and exporting them: ``admitdx build <task>`` (one
command per registered task, generated from its :class:`~admitdx.tasks.spec.TaskSpec`),
``admitdx tasks`` and ``admitdx export sft``. Thin wrappers: the work is in :mod:`admitdx.tasks`."""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.console import Console
from rich.progress import TaskID
from rich.table import Table
from typer.core import TyperGroup

from admitdx.cli.options import FLAG, parse_key_values
from admitdx.errors import UsageError
from admitdx.progress import progress_bar
from admitdx.runs import exclusive, read_manifest
from admitdx.typed_options import check_settings, hints_of

if TYPE_CHECKING:  # the registry is loaded by the `build` and `tasks` verbs, not by `admitdx --help`
    from admitdx.tasks.family import TaskFamily
    from admitdx.tasks.spec import TaskSpec


class _TaskCommands(TyperGroup):
    """``admitdx build``'s subcommands, made from the task registry the first time they are listed
    or looked up (Click's documented lazy-subcommand pattern: ``list_commands`` / ``get_command``).
    Loading the registry imports every task's builder (DuckDB, PyArrow), which `admitdx --help`
    and the other verbs do not need."""

    _loaded = False

    def _load(self) -> None:
        if not self._loaded:  # a flag, not an empty `commands`: a verb added to build_app directly stays
            self.commands.update(typer.main.get_group(_task_app()).commands)
            self._loaded = True

    def list_commands(self, ctx: Any) -> list[str]:
        self._load()
        return super().list_commands(ctx)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        self._load()
        return super().get_command(ctx, cmd_name)


build_app = typer.Typer(
    cls=_TaskCommands,
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


def _flag(name: str, kind: Any) -> str:
    """``--name``, or ``--name/--no-name`` for a boolean, so a parameter defaulting to True can be
    switched off on the command line (not only through ``--set name=false``)."""
    option = _option_name(name)
    return f"{option}/--no-{option[2:]}" if kind in (bool, bool | None) else option


def _option(name: str, kind: Any, default: Any, help_: str, flag: str | None = None) -> inspect.Parameter:
    return inspect.Parameter(
        name,
        inspect.Parameter.KEYWORD_ONLY,
        annotation=Annotated[
            kind,
            _Opt(
                flag or _flag(name, kind), help=help_, metavar=FLAG if kind in (bool, bool | None) else None
            ),
        ],
        default=default,
    )


def _init_fields(spec: TaskSpec) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(spec.params) if f.init]


def _tuple_fields(spec: TaskSpec) -> set[str]:
    hints = typing.get_type_hints(spec.params)
    return {f.name for f in _init_fields(spec) if typing.get_origin(hints[f.name]) is tuple}


def _param_options(
    spec: TaskSpec, *, unset: bool = False, notes: dict[str, str] | None = None
) -> list[inspect.Parameter]:
    """Every params field of ``spec`` as a typed option (default and help from the dataclass; with
    ``unset``, defaulting to None so that only what the user gave is passed on), and its extras;
    ``notes`` adds to the help of the options it names."""
    notes = notes or {}
    hints = typing.get_type_hints(spec.params)
    options = []
    for f in _init_fields(spec):
        cli_type, kind_note = _cli_type(hints[f.name])
        default = ",".join(f.default) if isinstance(f.default, tuple) and f.default else f.default
        help_ = f.metadata.get("help", "") + (f" ({kind_note})" if kind_note else "") + notes.get(f.name, "")
        if unset and default not in (None, (), dataclasses.MISSING):
            help_ += f" [default: {default}]"  # typer shows none for an option that defaults to None
        if unset or default == () or default is dataclasses.MISSING:
            default = None
            cli_type = cli_type | None
        options.append(_option(f.name, cli_type, default, help_))
    options += [_option(e.name, str | None, None, e.help + notes.get(e.name, "")) for e in spec.extra_options]
    return options


def _common_options() -> list[inspect.Parameter]:
    return [
        _option("out", Path, inspect.Parameter.empty, "Dataset directory to write."),
        _option("split_file", Path | None, None, "Reuse the split.csv of an earlier build."),
        _option("memory_limit", str, "3GB", "DuckDB memory cap; larger work spills to --out."),
        _option("force", bool, False, "Rebuild even if --out holds a build of the same inputs.", "--force"),
        _option(
            "set_",
            list[str] | None,
            None,
            "Any parameter as KEY=VALUE (repeatable), e.g. --set home_meds_max=20.",
            "--set",
        ),
    ]


def _make_params(spec: TaskSpec, values: dict[str, Any], settings: dict[str, Any]) -> Any:
    """The spec's params from typed option values (None or () where not given) and ``--set`` pairs."""
    settings = check_settings(settings, hints_of(spec.params), f"task {spec.name}")
    tuple_fields = _tuple_fields(spec)
    values = dict(values)
    for name in tuple_fields | {e.name for e in spec.extra_options}:
        if name in values:
            values[name] = _names(values[name])
    for name, value in settings.items():
        values[name] = tuple(value) if name in tuple_fields and isinstance(value, list) else value
    return spec.make_params(
        **{k: v for k, v in values.items() if not (v is None or v == ()) or k in settings}
    )


def _common_values(values: dict[str, Any]) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """Pop ``--out``, the build options and the ``--set`` pairs off a command's values."""
    settings = parse_key_values(values.pop("set_"))
    out = values.pop("out")
    options = {k: values.pop(k) for k in ("split_file", "memory_limit", "force")}
    return out, options, settings


def _task_command(spec: TaskSpec) -> typer.models.CommandFunctionType:
    """``admitdx build <task>``: every params field as a typed option (its default and help from the
    dataclass), plus the spec's extra options, the common build options and ``--set``."""
    source = _option("source", Path, inspect.Parameter.empty, spec.source_help, f"--{spec.source_option}")

    def command(**values: Any) -> None:
        out, options, settings = _common_values(values)
        source_dir = values.pop("source")
        params = _make_params(spec, values, settings)
        _run_build(spec, source_dir, out, params, **options)

    command.__signature__ = inspect.Signature([source, *_param_options(spec), *_common_options()])  # type: ignore[attr-defined]
    command.__doc__ = f"{spec.summary}.\n\nExample: {spec.example}"
    return command


def _family_command(family: TaskFamily) -> typer.models.CommandFunctionType:
    """``admitdx build <family> --task T (--<source> DIR | …)``: the member spec for (T, source).

    Its options are the union of the members' options; one a member does not have is refused for
    it (not ignored), so a release option given with --mimic is a usage error naming both."""
    task = _option(
        "task",
        str,
        inspect.Parameter.empty,
        f"The task to build: one of {', '.join(family.tasks)}.",
        "--task",
    )
    sources = [
        _option(
            f"source_{o}", Path | None, None, family.source_help(o) + " Give exactly one source.", f"--{o}"
        )
        for o in family.source_options
    ]
    owners: dict[str, set[str]] = {}
    for spec in family.specs:
        for p in _param_options(spec, unset=True):
            owners.setdefault(p.name, set()).add(spec.source_option)
    notes = {
        name: f" [--{', --'.join(sorted(sources_))} only]"
        for name, sources_ in owners.items()
        if len(sources_) < len(family.source_options)
    }
    options: dict[str, inspect.Parameter] = {}
    for spec in family.specs:
        for p in _param_options(spec, unset=True, notes=notes):
            options.setdefault(p.name, p)

    def command(**values: Any) -> None:
        out, build_options, settings = _common_values(values)
        given = {o: values.pop(f"source_{o}") for o in family.source_options}
        chosen = [o for o, v in given.items() if v is not None]
        if len(chosen) != 1:
            raise UsageError(
                f"{family.name}: give exactly one source ({' or '.join(f'--{o}' for o in given)})",
                hint=f"e.g. {family.example}",
            )
        spec = family.spec_for(values.pop("task"), chosen[0])
        own = {p.name for p in _param_options(spec, unset=True)}
        foreign = sorted(_option_name(k) for k, v in values.items() if v is not None and k not in own)
        if foreign:
            raise UsageError(
                f"{', '.join(foreign)} is not an option of {spec.name} (built from --{chosen[0]})",
                hint=f"`admitdx build {spec.name} --help` lists its options",
            )
        params = _make_params(spec, {k: v for k, v in values.items() if k in own}, settings)
        _run_build(spec, given[chosen[0]], out, params, **build_options)

    parameters = [task, *sources, *options.values(), *_common_options()]
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    members = "; ".join(
        f"{t}: {', '.join(f'--{o} ({s.name})' for o, s in by_source.items())}"
        for t, by_source in family.members.items()
    )
    command.__doc__ = f"{family.summary}.\n\nTasks — {members}.\n\nExample: {family.example}"
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
    from admitdx.tasks.leak_audit import warning_line

    if leaks := warning_line(out):  # the leak audit of every build (tasks/leak_audit.py)
        console.print(f"[yellow]warning[/]: {leaks}", highlight=False)
    console.print(f"see {out / 'manifest.json'}")


def tasks() -> None:
    """List the registered benchmark tasks (each is a `build` subcommand).

    Example: admitdx tasks
    """
    from admitdx.tasks.family import families
    from admitdx.tasks.registry import registered

    table = Table("task", "answer", "matcher", "metric suite", "what it asks", box=None)
    for spec in registered().values():
        answer = spec.answer + (f" ({', '.join(spec.categories)})" if spec.categories else "")
        table.add_row(spec.name, answer, spec.matcher or "—", spec.suite, spec.summary)
    console = Console()
    wide = Console(file=console.file, width=max(console.width, 150), force_terminal=console.is_terminal)
    wide.print(table)
    for family in families().values():
        wide.print(
            f"\n{family.name}: `admitdx build {family.name} --task {'|'.join(family.tasks)}` builds the task "
            f"from {' or '.join(f'--{o}' for o in family.source_options)} (one of the tasks above)."
        )


_RATIONALES_HELP = "rationales.jsonl of `admitdx rationale`: reasoning before the diagnoses (CoT SFT)."
_EVIDENCE_HELP = "Keep only labels of these evidence classes, e.g. supported,partial (audited datasets)."


@export_app.command("sft")
def sft(
    dataset: Annotated[
        Path, _Opt("--dataset", help="A built dataset directory (EarlyDx, CliniBench, any ER-Reason task).")
    ],
    out: Annotated[
        Path, _Opt("--out", help="Directory for <split>.jsonl, <split>.parquet and dataset_info.json.")
    ],
    splits: Annotated[
        str | None, _Opt(help="Comma-separated splits to export (default: train, and val if present).")
    ] = None,
    include_test: Annotated[
        bool,
        _Opt(
            help="Allow exporting the test split (a model tuned on it cannot be evaluated on it).",
            metavar=FLAG,
        ),
    ] = False,
    answer_format: Annotated[
        str,
        _Opt(
            help="json: the task's own prompt and the JSON answer `admitdx predict --system llm` evaluates; "
            "lines: EarlyDx's question and one diagnosis per line (EarlyDx only)."
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

    Each task's own predict prompt and answer schema: diagnosis lists (EarlyDx, CliniBench), a
    category (ER-Reason acuity, disposition) or a text (one-liner, planning). The answers are the
    dataset's gold texts: build EarlyDx with `--label-text dictionary` to train on ICD dictionary
    titles instead of the ED's own diagnosis titles. A task without a prompt, or an export with
    no example, stops with exit 2.

    Example: admitdx export sft --dataset data/earlydx --out data/earlydx-sft
    """
    from admitdx.systems.labels import is_retained
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
        in_benchmark_set=is_retained,
    )
    for split, c in counts.items():
        outside = (
            f" ({c['outside_benchmark_set']} outside the benchmark set)"
            if "outside_benchmark_set" in c
            else ""
        )
        typer.echo(f"{split}: {c['examples']} examples{outside} → {out / f'{split}.jsonl'}")
    typer.echo(f"holds: {read_manifest(out)['outputs']['holds']} (see manifest.json)")
    typer.echo(f"LLaMA-Factory: {out / 'dataset_info.json'}")


def _task_app() -> typer.Typer:
    """One subcommand per registered task and task family (read by :class:`_TaskCommands`)."""
    from admitdx.tasks.family import families
    from admitdx.tasks.registry import registered

    tasks_app = typer.Typer()
    specs = registered()
    for spec in specs.values():
        tasks_app.command(spec.name)(_task_command(spec))
    for family in families().values():
        if family.name in specs:
            raise ValueError(f"task family {family.name!r} has the name of a task")
        tasks_app.command(family.name)(_family_command(family))
    return tasks_app


def register(app: typer.Typer) -> None:
    """Add ``build`` (one subcommand per registered task), ``tasks`` and ``export`` to the root app."""
    app.add_typer(build_app, name="build")
    app.add_typer(export_app, name="export")
    app.command("tasks")(tasks)
