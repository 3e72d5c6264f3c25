"""``admitdx data``: check, convert and synthesize MIMIC-IV roots."""

from __future__ import annotations

import typer

data_app = typer.Typer(help="Inspect, convert and synthesize MIMIC-IV roots.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(data_app, name="data")
