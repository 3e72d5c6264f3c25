"""On/off flags show no value type in the help (`--json`, not `--json <bool>`): typer prints each
option's type, which for a flag reads as if it took a value; ``metavar=FLAG`` (typer's documented
``metavar``) turns it off. Typer's own ``--help`` cannot be given a metavar and keeps ``<bool>``."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from admitdx.cli import app


@pytest.mark.parametrize(
    "verb",
    [[], ["score"], ["match"], ["predict"], ["data", "check"], ["build", "earlydx"], ["export", "sft"]],
    ids=lambda v: " ".join(v) or "admitdx",
)
def test_flags_show_no_bool_metavar(verb: list[str]) -> None:
    out = CliRunner().invoke(app, [*verb, "--help"], env={"COLUMNS": "200"}).output
    flags = [line for line in out.splitlines() if "--" in line and "--help" not in line]
    assert flags and not [line for line in flags if "<bool>" in line]
    assert any("<" in line for line in flags) or verb == []  # options that take a value keep their type
