"""The ``admitdx`` command line: one thin function per verb; the work happens in the library.

Each area registers its verbs from its own module. Errors the user can fix (bad input data, a
refused endpoint, a missing extra) end with a message and exit code 2, never a traceback.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.markup import escape
from typer import rich_utils

from admitdx import __version__
from admitdx.cli import build, data, demo, harness, llm, llm_check, matching, predict, scoring, study, synth
from admitdx.cli.options import FLAG
from admitdx.errors import AdmitdxError

# Help and tables are laid out for at least HELP_WIDTH columns when the output is not a terminal
# (pipes, logs, CI report 80), so option help is wrapped at a readable width instead of cut.
HELP_WIDTH = 120
if rich_utils.MAX_WIDTH is None and not sys.stdout.isatty():
    rich_utils.MAX_WIDTH = HELP_WIDTH

app = typer.Typer(
    name="admitdx",
    help="Build, run and score admission-time diagnosis benchmarks on MIMIC-IV-shaped EHR data.\n\n"
    "Example: admitdx demo",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"admitdx {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version.", metavar=FLAG
    ),
) -> None:
    """admitdx: build → predict → match → score → report."""


for _area in (data, synth, build, llm, llm_check, predict, harness, matching, scoring, demo, study):
    _area.register(app)

# `admitdx --help` groups the verbs by stage, in the order a study runs them; a new verb must be
# placed here (an unplaced one fails at import, so it cannot be forgotten).
_PANELS = {
    "1 · data and benchmarks": ("data", "tasks", "build", "export", "audit", "rationale"),
    "2 · systems": ("systems", "serve-local", "llm", "predict", "import"),
    "3 · scoring": ("match", "agree", "judge-concepts", "score", "score-mean", "report"),
    "everything at once": ("study", "demo"),
}
_panel_of = {verb: panel for panel, verbs in _PANELS.items() for verb in verbs}
_order = [verb for verbs in _PANELS.values() for verb in verbs]
app.registered_commands.sort(key=lambda c: _order.index(c.name))
app.registered_groups.sort(key=lambda g: _order.index(g.name))
for _cmd in app.registered_commands:
    _cmd.rich_help_panel = _panel_of[_cmd.name]
for _group in app.registered_groups:
    _group.rich_help_panel = _panel_of[_group.name]


def main() -> None:
    try:
        app()
    except AdmitdxError as e:
        # escaped: a message may quote text with brackets (a server log's "[/path]" broke rich's markup)
        Console(stderr=True).print(f"[bold red]error:[/] {escape(str(e))}", highlight=False)
        sys.exit(e.exit_code)
