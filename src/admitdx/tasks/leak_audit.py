"""The leak audit: after every build of every task, every system-visible input is scanned for the
gold answer, and what is found is written down.

The readers decide what a system may see (cut notes, redact, window by t0); the audit checks their
result from the other side, with rules of its own, so that a note spelt in a way no test foresaw
shows up as a count instead of a silent leak. It never changes an input: it only adds
``leak_audit.jsonl`` (one line per finding: ``instance``, ``field``, ``rule``, ``start``, ``end``,
``span``) and ``outputs.leak_audit`` (counts) to the build's manifest, and ``admitdx build``
prints one warning line when anything was found.

What is scanned: each instance's ``sections`` and ``history`` — what a system reads (``text`` is
rendered from them). The rules are per task family (``tasks/<family>/leak_rules.py``), each a
function from an instance record to ``(field, rule, start, end)`` findings:

* ER-Reason: the gold category (a word-bounded match), the gold ICD codes and their normalised
  titles, and for the release's disposition task every expression of the disposition lexicon;
* CliniBench: any heading the heading grammar reads as discharge-time;
* EarlyDx: any date or time printed in an input that is later than t0.
"""

from __future__ import annotations

import importlib
import json
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from admitdx.jsonl import dumps
from admitdx.runs import MANIFEST_FILE

LEAK_AUDIT_FILE = "leak_audit.jsonl"
#: (field, rule, start, end) of one finding in ``record["sections"][field]`` (or ``history``).
Finding = tuple[str, str, int, int]
Rule = Callable[[dict[str, Any]], Iterable[Finding]]
#: Task-name prefix → the module whose ``findings`` audits that family's instances.
_RULE_MODULES = {
    "er-reason": "admitdx.tasks.erreason.leak_rules",
    "clinibench": "admitdx.tasks.clinibench.leak_rules",
    "earlydx": "admitdx.tasks.earlydx.leak_rules",
}


def rule_for(task: str) -> Rule | None:
    """The audit rule of ``task`` (imported on first use: the rules import the task's readers)."""
    for prefix, module in _RULE_MODULES.items():
        if task.startswith(prefix):
            rule: Rule = importlib.import_module(module).findings
            return rule
    return None


def visible_fields(record: dict[str, Any]) -> dict[str, str]:
    """The text a system reads of one instance record: its sections and its history."""
    fields = {k: v for k, v in (record.get("sections") or {}).items() if isinstance(v, str)}
    if isinstance(record.get("history"), str):
        fields["history"] = record["history"]
    return fields


class LeakAudit:
    """Audits the records of one build as they are written, streaming findings to a hidden file
    beside ``path`` that :meth:`close` renames to ``path`` (so a copy of an older audit into the
    same folder, as the evidence auditor's carry-over does, is replaced, not interleaved)."""

    def __init__(self, path: Path) -> None:
        self.audited = 0
        self.findings = 0
        self.path = path
        self._part = path.with_name(f".{path.name}.part")
        self._out = self._part.open("w", encoding="utf-8")
        self.by_rule: Counter[str] = Counter()
        self.by_field: Counter[str] = Counter()
        self.instances: set[str] = set()
        self._rules: dict[str, Rule | None] = {}

    def add(self, record: dict[str, Any]) -> None:
        task = str(record.get("task") or "")
        if task not in self._rules:
            self._rules[task] = rule_for(task)
        rule = self._rules[task]
        if rule is None:
            return
        self.audited += 1
        fields = visible_fields(record)
        for field, name, start, end in rule(record):
            self.instances.add(record["id"])
            self.by_rule[name] += 1
            self.by_field[field] += 1
            span = fields[field][start:end]
            finding = {"instance": record["id"], "field": field, "rule": name, "start": start, "end": end}
            self._out.write(dumps({**finding, "span": span}) + "\n")
            self.findings += 1

    def counts(self) -> dict[str, Any]:
        return {
            "instances_audited": self.audited,
            "instances_with_findings": len(self.instances),
            "findings": self.findings,
            "by_rule": dict(sorted(self.by_rule.items())),
            "by_field": dict(sorted(self.by_field.items())),
        }

    def close(self) -> None:
        if not self._out.closed:
            self._out.close()
            self._part.replace(self.path)


def record_in_manifest(manifest_path: Path, counts: dict[str, Any]) -> None:
    """Add the audit's counts and file to a build's (staged) manifest, leaving the rest as it was."""
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    outputs = manifest.setdefault("outputs", {})
    files = outputs.get("files", [])
    outputs["files"] = files if LEAK_AUDIT_FILE in files else [*files, LEAK_AUDIT_FILE]
    outputs["leak_audit"] = counts
    text = json.dumps(manifest, indent=2, ensure_ascii=False, default=str) + "\n"
    manifest_path.write_text(text, encoding="utf-8")


def build_counts(out_dir: Path) -> list[tuple[Path, dict[str, Any]]]:
    """The audit counts of a build folder: its own manifest's, or each dataset subfolder's (a
    CliniBench build of several datasets)."""
    manifests = [out_dir / MANIFEST_FILE, *sorted(out_dir.glob(f"*/{MANIFEST_FILE}"))]
    found = []
    for path in manifests:
        if path.is_file():
            counts = json.loads(path.read_text(encoding="utf-8")).get("outputs", {}).get("leak_audit")
            if counts:
                found.append((path.parent, counts))
    return found


def warning_line(out_dir: Path) -> str | None:
    """The one line ``build`` prints when the audit found anything (None when it found nothing)."""
    found = [(folder, c) for folder, c in build_counts(out_dir) if c.get("findings")]
    if not found:
        return None
    rules: Counter[str] = Counter()
    for _, c in found:
        rules.update(c["by_rule"])
    files = ", ".join(str(folder / LEAK_AUDIT_FILE) for folder, _ in found)
    total = {
        k: sum(c[k] for _, c in found) for k in ("findings", "instances_with_findings", "instances_audited")
    }
    return (
        f"leak audit: {total['findings']} possible answer spans in "
        f"{total['instances_with_findings']} of {total['instances_audited']} "
        f"instances ({', '.join(f'{k} {v}' for k, v in sorted(rules.items()))}); see {files}"
    )
