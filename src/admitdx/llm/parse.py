"""Tolerant parsing of model output: JSON when there is JSON, a list when there is a list.

Guided decoding makes most outputs valid JSON, but servers that ignore the schema, models that
wrap JSON in prose or code fences, and plain numbered lists all occur (CliniBench table 4: many
instruct models produce no valid JSON at all unguided). The parser tries, in order:

1. the whole text as JSON;
2. each fenced code block (```json ... ```);
3. the first balanced ``{...}`` or ``[...]`` span that is valid JSON;
4. numbered or bulleted list lines (``1. X``, ``2) X``, ``- X``, ``* X``, ``• X``), as a list of strings.

If none applies the result carries ``error`` and no value; the caller keeps the raw text and
counts the failure. Nothing here guesses beyond these rules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_LIST_LINE = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*•])\s+(.+?)\s*$")


@dataclass(frozen=True)
class Parsed:
    """``value`` is the decoded JSON (or list of strings); ``how`` names the rule that worked."""

    value: Any = None
    error: str | None = None
    how: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _balanced_spans(text: str) -> Iterator[str]:
    """Candidate JSON spans, left to right: each opening bracket to its matching close (strings skipped)."""
    for start, ch in enumerate(text):
        if ch not in "{[":
            continue
        depth, in_str, esc = 0, False, False
        for end in range(start, len(text)):
            c = text[end]
            if in_str:
                if esc:
                    esc = False
                elif c == "\\":
                    esc = True
                elif c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth == 0:
                    yield text[start : end + 1]
                    break


def _try_json(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return False, None


def parse_output(text: str) -> Parsed:
    """Decode a model's answer by the rules above; never raises."""
    if not text or not text.strip():
        return Parsed(error="empty output")
    ok, value = _try_json(text.strip())
    if ok:
        return Parsed(value, how="json")
    for block in _FENCE.findall(text):
        ok, value = _try_json(block.strip())
        if ok:
            return Parsed(value, how="code fence")
    for span in _balanced_spans(text):
        ok, value = _try_json(span)
        if ok:
            return Parsed(value, how="json in prose")
    items = [m.group(1) for line in text.splitlines() if (m := _LIST_LINE.match(line))]
    if items:
        return Parsed(items, how="list lines")
    snippet = text.strip()[:80].replace("\n", " ")
    return Parsed(error=f"no JSON object, JSON array or list found in output starting {snippet!r}")
