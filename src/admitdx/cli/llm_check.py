"""``admitdx llm check``: is this server usable for a run, and with which profile?"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
import yaml
from rich.console import Console
from rich.table import Table

from admitdx.cli.named_llm import open_named_client
from admitdx.cli.options import parse_key_values
from admitdx.systems.config import load_config

llm_app = typer.Typer(help="Look at an LLM server before a run.\n\nExample: admitdx llm check --system local")
_err = Console(stderr=True)


@llm_app.command("check")
def check(
    system: Annotated[
        str | None,
        typer.Option("--system", help="`local`, or a system in --config (default: only the --set options)."),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="YAML with `systems:` and `allow_hosts:`.")
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set", help="LLM option KEY=VALUE over the system's (repeatable), e.g. --set server=vllm."
        ),
    ] = None,
) -> None:
    """List the served models, send one small request per capability (plain, JSON schema, thinking
    on and off), show latency and the context length where the server tells it, and print a profile
    to paste under `systems:`. Exit 2, with the reason, when the server is unusable.

    The egress guard applies as in a run: a non-loopback host needs its allow_hosts entry.

    Example: admitdx llm check --set base_url=http://127.0.0.1:8000/v1 --set model=Qwen/Qwen3-8B
    --set server=vllm
    """
    from admitdx.llm.check import check_server  # here: it loads httpx, not for `admitdx --help`

    settings = parse_key_values(set_)
    with (
        _err.status("checking the server"),
        open_named_client(system, config, settings=settings) as client,
    ):
        report = check_server(client.config, load_config(config).allow_hosts)
    console = Console()
    console.print(f"server [bold]{report.base_url}[/] · profile [bold]{report.server}[/]")
    if report.models_error:
        console.print(f"models: not listed ({report.models_error})")
    else:
        console.print(f"models: {', '.join(report.models) or 'none'}")
    context = f"{report.context_length} tokens" if report.context_length else "not reported by the server"
    console.print(f"context length: {context}")
    table = Table("capability", "outcome", "latency", "thinking", "tokens (prompt/completion)", "detail")
    for p in report.probes:
        usage = p.usage or {}
        tokens = f"{usage.get('prompt_tokens', '–')}/{usage.get('completion_tokens', '–')}"
        latency = f"{p.latency_s:.2f} s" if p.latency_s is not None else "–"
        table.add_row(p.name, p.outcome, latency, "yes" if p.thought else "no", tokens, p.detail)
    console.print(table)
    profile = report.profile(client.config)
    if system == "local":  # `--system local`, the embedded server's port changes at every start
        profile["base_url"] = "local"
    entry = yaml.safe_dump({"systems": {"mine": profile}}, sort_keys=False)
    console.print("paste into a --config file:\n" + entry, markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(llm_app, name="llm")
