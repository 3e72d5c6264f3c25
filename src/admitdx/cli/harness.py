"""``admitdx export inspect|lm-eval`` and ``admitdx import inspect|lm-eval``: admitdx tasks inside
the evaluation harnesses researchers already run, and their logs back as prediction runs.
Thin wrappers: the work is in :mod:`admitdx.harness`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from admitdx.cli.build import export_app
from admitdx.cli.options import FLAG, parse_key_values

import_app = typer.Typer(
    help="Read an evaluation harness's log of an exported task as a prediction run (then match, score, "
    "report or study it like any other).\n\n"
    "Example: admitdx import inspect logs/run.eval --dataset data/earlydx --out runs/pred/inspect-qwen",
    no_args_is_help=True,
)
_Opt = typer.Option

_Dataset = Annotated[Path, _Opt("--dataset", help="The built dataset directory (with instances.jsonl).")]
_System = Annotated[
    str,
    _Opt(
        "--system",
        help="A prompted system whose prompts to export: `llm` (any task), `llm-codes` (CliniBench codes), "
        "or a name in --config; options as for `admitdx predict` (prompt, k, retriever, graded, …).",
    ),
]
_Config = Annotated[Path | None, _Opt("--config", help="YAML file with `systems:` (as `admitdx predict`).")]
_Set = Annotated[
    list[str] | None,
    _Opt("--set", help="System option KEY=VALUE over --config's (repeatable), e.g. prompt=few-shot."),
]
_Split = Annotated[str, _Opt("--split", help="The split the harness answers (as `admitdx predict`).")]
_Keep = Annotated[
    bool,
    _Opt(
        "--keep-unsupported-only",
        help="Also export the encounters outside the benchmark set (as `admitdx predict`).",
        metavar=FLAG,
    ),
]


def _export(harness: str, dataset: Path, out: Path, system: str, config: Path | None, set_: list[str] | None,
            name: str | None, split: str, keep: bool) -> None:  # fmt: skip
    from admitdx.harness.calls import Scope
    from admitdx.harness.export import CALLS_FILE, export_calls
    from admitdx.harness.task_files import write_inspect, write_lmeval
    from admitdx.systems.config import load_config
    from admitdx.systems.options import checked_options

    choice = load_config(config).choose(system)
    options = checked_options(choice.kind, choice.name, {**choice.options, **parse_key_values(set_)})
    choice = dataclasses.replace(choice, options=options, name=name or choice.name)
    header, calls = export_calls(
        dataset, choice, out, harness, Scope(split=split, keep_unsupported_only=keep)
    )
    task_file = write_inspect(out, header) if harness == "inspect" else write_lmeval(out, header, calls)
    console = Console(stderr=True)
    console.print(
        f"{header['instances']} instances, {header['calls']} calls of {header['task']} "
        f"({choice.name}, {choice.kind}) → {out / CALLS_FILE}; "
        f"dataset {header['dataset']['inputs_sha256'][:12]}…"
    )
    console.print(f"[bold]the data stays here[/]: {header['data']}")
    typer.echo(task_file)


_INSPECT_DOC = """Write an Inspect AI task of the dataset's test calls: the prompts `admitdx predict` sends
    (zero-shot, or few-shot with the demonstrations its retriever chooses, fixed here), each sample
    carrying its instance id and no gold in its input; the header records the dataset's fingerprint.
    Its scorer `quick_exact_not_paper_metric` is a quick look, not the paper's metric. The export
    holds MIMIC-derived text: it stays on this disk.

    Example: admitdx export inspect --dataset data/earlydx --out harness/earlydx-inspect --set prompt=few-shot
    then: inspect eval harness/earlydx-inspect/admitdx_earlydx_llm.py --model openai/MODEL
    """
_LMEVAL_DOC = """Write an lm-evaluation-harness task folder (YAML, utils.py, documents) of the dataset's test
    calls, with the prompts `admitdx predict` sends; run it with --apply_chat_template
    --fewshot_as_multiturn --log_samples so the requests are those messages. Its metric
    `quick_exact_not_paper_metric` is a quick look, not the paper's metric. The export holds
    MIMIC-derived text: it stays on this disk.

    Example: admitdx export lm-eval --dataset data/earlydx --out harness/earlydx-lmeval
    then: lm_eval --model local-chat-completions --model_args model=M,base_url=http://127.0.0.1:8000/v1/chat/completions
    --include_path harness/earlydx-lmeval --tasks admitdx_earlydx_llm
    --apply_chat_template --fewshot_as_multiturn
    --log_samples --output_path logs
    """


def _export_verb(harness: str, out_help: str, doc: str) -> Callable[..., None]:
    """The ``admitdx export <harness>`` verb (both harnesses take the same options)."""

    def verb(
        dataset: _Dataset,
        out: Path,
        system: _System = "llm",
        config: _Config = None,
        set_: _Set = None,
        name: Annotated[
            str | None, _Opt("--name", help="The system's name in the export (default: --system).")
        ] = None,
        split: _Split = "test",
        keep_unsupported_only: _Keep = False,
    ) -> None:
        _export(harness, dataset, out, system, config, set_, name, split, keep_unsupported_only)

    verb.__doc__ = doc
    # each harness's own help for --out (an annotation object: this module's annotations are strings)
    verb.__annotations__["out"] = Annotated[Path, _Opt("--out", help=out_help)]
    return verb


export_app.command("inspect")(
    _export_verb("inspect", "Folder for the task file, calls.jsonl and admitdx_export.json.", _INSPECT_DOC)
)
export_app.command("lm-eval")(
    _export_verb("lm-eval", "Folder for the task YAML, utils.py and the documents.", _LMEVAL_DOC)
)


def _import(harness: str, log: Path, dataset: Path, out: Path, name: str | None) -> None:
    from admitdx.harness.importing import import_log

    summary = import_log(harness, log, dataset, out, name)
    Console(stderr=True).print(
        f"{summary.system}: {summary.predicted} imported now, {summary.resumed} earlier, "
        f"{summary.total} in all; "
        f"{summary.outcome()} → {summary.out_dir}"
    )


_Out = Annotated[
    Path, _Opt("--out", help="Predictions directory (predictions.jsonl, samples.jsonl, manifest.json).")
]
_Name = Annotated[str | None, _Opt("--name", help="The run's system name in reports (default: the harness).")]


@import_app.command("inspect")
def import_inspect(
    log: Annotated[Path, typer.Argument(help="The Inspect log (.eval or .json) of an exported task.")],
    dataset: _Dataset,
    out: _Out,
    name: _Name = None,
) -> None:
    """Read an Inspect log of a task `admitdx export inspect` wrote into a prediction run: each answer
    read as `admitdx predict` reads a server's (unparseable ones counted alike), a predict manifest
    bound to the dataset's fingerprint with the model, its settings and token usage. A log of another
    dataset, or missing or extra instances, is refused (exit 2).

    Example: admitdx import inspect logs/run.eval --dataset data/earlydx --out runs/pred/inspect
    """
    _import("inspect", log, dataset, out, name)


@import_app.command("lm-eval")
def import_lmeval(
    log: Annotated[Path, typer.Argument(help="The samples_<task>_<date>.jsonl of `lm_eval --log_samples`.")],
    dataset: _Dataset,
    out: _Out,
    name: _Name = None,
) -> None:
    """Read lm-eval's logged samples of a task `admitdx export lm-eval` wrote into a prediction run,
    as `admitdx import inspect` does (lm-eval logs no token usage; the model comes from the
    results_*.json beside the samples).

    Example: admitdx import lm-eval logs/M/samples_admitdx_earlydx_llm_DATE.jsonl --dataset data/earlydx
    --out runs/pred/lmeval
    """
    _import("lm-eval", log, dataset, out, name)


def register(app: typer.Typer) -> None:
    """Add ``import`` (``export inspect|lm-eval`` were added to ``export``'s group above)."""
    app.add_typer(import_app, name="import")
