"""``admitdx serve-local``, ``admitdx audit`` and ``admitdx rationale``: the LLM area's verbs."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from admitdx.cli.executor_options import (
    ExecutorOption,
    RayAddressOption,
    RayShardOption,
    RayWorkersOption,
    named_endpoints,
    open_executor,
)
from admitdx.cli.named_llm import open_named_client
from admitdx.cli.options import parse_key_values
from admitdx.progress import progress_bar

_console = Console(stderr=True)
ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="YAML with `systems:` and `allow_hosts:`.")
]
SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set", help="LLM option KEY=VALUE, over the config (repeatable), e.g. --set temperature=0."
    ),
]


@contextmanager
def _progress(what: str) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar (count, rate, time left); Ctrl-C keeps finished work and says how to resume."""
    with progress_bar(_console) as progress:
        task = progress.add_task(what, total=None)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        try:
            yield update
        except KeyboardInterrupt:
            progress.stop()
            _console.print(
                "[yellow]interrupted[/]: finished items are kept; rerun the same command to resume"
            )
            raise typer.Exit(130) from None


def serve_local(
    model: Annotated[
        Path | None, typer.Option("--model", help="A .gguf file (default: SmolLM2-135M).")
    ] = None,
    port: Annotated[int | None, typer.Option("--port", help="Loopback port (default: a free one).")] = None,
    n_ctx: Annotated[int, typer.Option("--n-ctx", help="Context window in tokens.")] = 2048,
    log: Annotated[
        Path | None,
        typer.Option("--log", help="Server log file (default: $ADMITDX_CACHE_DIR/logs/llama-server-….log)."),
    ] = None,
) -> None:
    """Start the embedded llama.cpp OpenAI-compatible server on loopback; Ctrl-C stops it.

    It answers one self-test prompt before it says it is serving. SmolLM2-135M proves the pipeline
    works end to end; it has no clinical skill.

    Example: admitdx serve-local --n-ctx 4096
    """
    from admitdx.llm.local_server import LocalServer  # here, not for `admitdx --help`

    server = LocalServer(model_path=model, n_ctx=n_ctx, port=port, log_path=log)
    with _console.status(f"starting llama.cpp with {server.model_path}"):
        server.start()
    try:
        _console.print(f"serving [bold]{server.alias}[/] at [bold]{server.base_url}[/] (Ctrl-C to stop)")
        _console.print(f"log: {server.log_path}")
        entry = f"kind: llm, base_url: {server.base_url}, model: {server.alias}, structured: json_object"
        _console.print(f"use it in a --config file as: systems: {{mine: {{{entry}}}}}")
        while server.process is not None and server.process.poll() is None:
            time.sleep(0.5)
        server.check_alive(when="while serving")  # it exited: raise with its exit signal and log
    except KeyboardInterrupt:
        _console.print("stopping")
    finally:
        server.stop()


def audit(
    dataset: Annotated[Path, typer.Option("--dataset", help="Dataset directory to audit.")],
    system: Annotated[
        str, typer.Option("--system", help="`rules` (no LLM), `local`, or a name in --config.")
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Where the audited dataset version goes; rerun to resume.")
    ],
    config: ConfigOption = None,
    truth: Annotated[
        Path | None, typer.Option("--truth", help="Synthetic root: report agreement with its _truth/.")
    ] = None,
    set_: SetOption = None,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    ray_workers: RayWorkersOption = 2,
    ray_shard_size: RayShardOption = 8,
) -> None:
    """Label every reference supported / partial / unsupported and write a new dataset version.

    `--system rules` is the transparent rule-based auditor that needs no LLM.

    Example: admitdx audit --dataset runs/earlydx --system rules --out runs/earlydx-audited
    """
    from admitdx.auditing import RuleAuditor, audit_dataset  # here, not for `admitdx --help`
    from admitdx.auditing.llm_auditor import LLMAuditor

    with _progress("audit") as update:
        if system == "rules":
            outputs = audit_dataset(dataset, out, RuleAuditor(), truth_root=truth, on_progress=update)
        else:
            with (
                open_executor(executor, ray_address, ray_workers, ray_shard_size) as runs_on,
                open_named_client(system, config, settings=parse_key_values(set_), log_dir=out) as client,
            ):
                endpoints = named_endpoints(system, config, client)
                auditor = LLMAuditor(client, executor=runs_on, endpoints=endpoints)
                outputs = audit_dataset(dataset, out, auditor, truth_root=truth, on_progress=update)
    _console.print(audit_summary(outputs, out))
    if "agreement" in outputs:
        a = outputs["agreement"]
        _console.print(f"agreement with _truth over {a['compared']} labels: accuracy {a['accuracy']:.3f}, "
                       f"Cohen's kappa {a['cohen_kappa']:.3f} (see {out / 'agreement.json'})")  # fmt: skip


def audit_summary(outputs: dict[str, Any], out: Path) -> Table:
    """The audit's counts as a table (it printed a raw JSON dict): labels per evidence class with
    their share, unparseable verdicts, and the encounters the benchmark set keeps."""
    n = outputs["references"] or 1
    table = Table("labels", "n", "share", title=f"audited {outputs['references']} labels → {out}", box=None)
    for name, count in [*outputs["evidence_class"].items(), ("unparseable", outputs["unparseable"])]:
        table.add_row(name, str(count), f"{100 * count / n:.0f} %")
    table.add_row("encounters kept (a supported or partial label)", str(outputs["retained_instances"]),
                  f"of {outputs['instances']}", end_section=True)  # fmt: skip
    return table


def rationale(
    dataset: Annotated[Path, typer.Option("--dataset", help="An audited dataset directory.")],
    system: Annotated[str, typer.Option("--system", help="`local`, or a name in --config.")],
    out: Annotated[Path, typer.Option("--out", help="Where rationales.jsonl goes; rerun to resume.")],
    config: ConfigOption = None,
    split: Annotated[
        list[str] | None, typer.Option("--split", help="Split to explain (repeatable; default train).")
    ] = None,
    set_: SetOption = None,
) -> None:
    """Write gold-conditioned rationales for the supported and partially supported labels.

    Temperature 0.3 unless the config sets one (EarlyDx appendix K).

    Example: admitdx rationale --dataset runs/earlydx-audited --system local --out runs/rationales
    """
    from admitdx.auditing.rationale import TEACHER_TEMPERATURE, audited_instances, write_rationales

    splits = tuple(split or ["train"])
    audited_instances(dataset, splits)  # fail before starting a model server
    with (
        _progress("rationale") as update,
        open_named_client(
            system,
            config,
            defaults={"temperature": TEACHER_TEMPERATURE},
            settings=parse_key_values(set_),
            log_dir=out,
        ) as client,
    ):
        outputs = write_rationales(dataset, out, client, splits=splits, on_progress=update)
    _console.print(f"{outputs['rationales']} rationales → {out} ({outputs['unparseable']} unparseable, "
                   f"{outputs['skipped_no_retained_label']} instances without a retained label)")  # fmt: skip


def register(app: typer.Typer) -> None:
    """Add this area's verbs to the root app."""
    app.command("serve-local")(serve_local)
    app.command("audit")(audit)
    app.command("rationale")(rationale)
