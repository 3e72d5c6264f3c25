"""Options several verbs share: ``KEY=VALUE`` settings and predictions directories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from admitdx.errors import UsageError
from admitdx.yaml_reader import load_yaml

#: The metavar of an on/off flag: none. Typer's help prints every option's type (``--json <bool>``),
#: which for a flag reads as if it took a value; ``metavar`` is typer's documented way to choose what
#: the help shows there (https://typer.tiangolo.com/tutorial/options/help/). Typer's own ``--help``
#: option cannot be given one and still shows ``<bool>``.
FLAG = ""


def parse_key_values(items: list[str] | None, flag: str = "--set") -> dict[str, Any]:
    """``["temperature=0.2", "model=m"]`` → ``{"temperature": 0.2, "model": "m"}``.

    Values are read as YAML, so ``0.2`` and ``1e-4`` are numbers, ``true`` a boolean and an empty
    value None.
    """
    settings: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{flag} {item!r} is not KEY=VALUE", hint=f"e.g. {flag} temperature=0")
        settings[key.strip()] = load_yaml(value, f"{flag} {item}") if value.strip() else None
    return settings


def prediction_dirs(paths: list[Path]) -> list[Path]:
    """``--predictions`` values as folders: a file given instead (``run/predictions.jsonl``) is a
    usage error that names the folder to pass, not "run/predictions.jsonl holds no predictions"."""
    for path in paths:
        if path.is_file():
            raise UsageError(
                f"--predictions {path} is a file; it takes the predictions folder (the one holding "
                "predictions.jsonl, its manifest and matches/)",
                hint=f"pass --predictions {path.parent}",
            )
    return paths
