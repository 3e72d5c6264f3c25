"""Options several verbs share: ``KEY=VALUE`` settings given on the command line."""

from __future__ import annotations

from typing import Any

from admitdx.errors import UsageError
from admitdx.yaml_reader import load_yaml


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
