"""Options several verbs share: ``KEY=VALUE`` settings given on the command line."""

from __future__ import annotations

from typing import Any

import yaml

from admitdx.errors import UsageError


def parse_key_values(items: list[str] | None, flag: str = "--set") -> dict[str, Any]:
    """``["temperature=0.2", "model=m"]`` → ``{"temperature": 0.2, "model": "m"}``.

    Values are read as YAML, so ``0.2`` is a number, ``true`` a boolean and an empty value None.
    """
    settings: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{flag} {item!r} is not KEY=VALUE", hint=f"e.g. {flag} temperature=0")
        settings[key.strip()] = yaml.safe_load(value) if value.strip() else None
    return settings
