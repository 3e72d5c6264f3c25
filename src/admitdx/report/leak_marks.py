"""The leak audit's spans in the encounter browser: each input section is shown with the spans
the build's audit found (``leak_audit.jsonl`` beside the dataset's instances) marked, so a reader
sees where a gold answer may have reached the system. Kept apart from the browser's layout."""

from __future__ import annotations

import json
from pathlib import Path

from markupsafe import Markup, escape

from admitdx.tasks.leak_audit import LEAK_AUDIT_FILE

#: instance id → field → [(start, end)], in the field's text.
Spans = dict[str, dict[str, list[tuple[int, int]]]]


def leak_spans(dataset: str | Path | None) -> Spans:
    """The audit's spans of a dataset folder ({} when it has no audit, as a build before it)."""
    path = Path(dataset) / LEAK_AUDIT_FILE if dataset else None
    spans: Spans = {}
    if path is None or not path.is_file():
        return spans
    for line in path.read_text(encoding="utf-8").splitlines():
        f = json.loads(line)
        spans.setdefault(f["instance"], {}).setdefault(f["field"], []).append((f["start"], f["end"]))
    return spans


def marked(text: str, spans: list[tuple[int, int]] | None) -> Markup:
    """``text`` escaped, each span wrapped in ``<mark class="leak">`` (overlaps merged)."""
    out, last = [], 0
    for start, end in sorted(spans or []):
        start = max(start, last)
        if start >= end:
            continue
        out += [
            escape(text[last:start]),
            Markup('<mark class="leak">'),
            escape(text[start:end]),
            Markup("</mark>"),
        ]
        last = end
    return Markup("").join([*out, escape(text[last:])])
