"""``admitdx export inspect|lm-eval``: a dataset's test calls as a task of an evaluation harness.

Both exports write, into one folder on the user's disk:

* ``calls.jsonl`` — one line per model call (:mod:`admitdx.harness.calls`): the sample id, the
  instance id, the part (ER-Reason planning), the exact chat ``messages`` ``admitdx predict`` would
  send, and the gold ``target`` for the harness's quick score (never in the messages);
* ``admitdx_export.json`` — the header: the dataset's fingerprints as ``predict`` records them,
  the scope (split, benchmark set), the system (kind and the options that shape the prompt and
  the reading of answers), the prompt template's hash, the generation settings, the counts, and
  :data:`DATA_NOTE`. The harness carries the header into its log (Inspect: the task's metadata;
  lm-eval: every document), so ``admitdx import`` can bind the log to its dataset;
* the harness's task files (:mod:`admitdx.harness.inspect_files`, :mod:`admitdx.harness.lmeval_files`).

The export stays where it is written: the harness reads it from there, and admitdx uploads
nothing. The data is MIMIC-derived and falls under its data use agreement like the dataset.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from admitdx.errors import UsageError
from admitdx.harness.calls import Call, Prepared, Scope, calls, prepare
from admitdx.jsonl import write_jsonl
from admitdx.llm.redact import redact_options
from admitdx.systems.config import SystemChoice

EXPORT_FILE = "admitdx_export.json"
CALLS_FILE = "calls.jsonl"
FORMAT = "admitdx-harness-export/1"
HARNESSES = ("inspect", "lm-eval")
DATA_NOTE = (
    "These files hold MIMIC-derived text (the test split's inputs, few-shot demonstrations and gold "
    "answers): they stay on this disk under the data use agreement. The harness reads them from here; "
    "admitdx uploads nothing. Send them only to a model endpoint your agreement allows."
)
#: What the harness-native score is, in its own words (the metric names say it too).
NATIVE_NOTE = (
    "quick look only, not the paper's metric: exact match of the answer (a category or text) or the "
    "share of gold labels named word for word or by code (diagnosis lists). The papers' protocols "
    "(one-to-one matching, micro/example F1, bootstrap intervals) are `admitdx import` then "
    "`admitdx match`/`admitdx score`."
)


def header(
    prepared: Prepared, choice: SystemChoice, scope: Scope, harness: str, n_calls: int
) -> dict[str, Any]:
    """The export's record: everything an import needs to rebuild the reader and check the dataset."""
    llm = prepared.predictor
    config = llm.client.config
    answering = {k: v for k, v in choice.options.items() if k not in llm.execution_options}
    return {
        "format": FORMAT,
        "harness": harness,
        "task": prepared.task.name,
        "answer": prepared.task.answer,
        "categories": list(prepared.task.categories),
        "max_items": llm.shape.max_items,
        "dataset": prepared.fingerprints,
        "scope": dataclasses.asdict(scope),
        "system": {"name": choice.name, "kind": choice.kind, "options": redact_options(answering)},
        "prompt": llm.template.identity(),
        "part_calls": llm.part_calls,
        "parts": list(llm.parts) if llm.part_calls == "per-part" else [],
        "generate": {"temperature": config.temperature, "max_tokens": config.max_tokens, "seed": config.seed},
        "instances": len(prepared.seen),
        "calls": n_calls,
        "oracle": prepared.oracle,
        "data": DATA_NOTE,
        "native_score": NATIVE_NOTE,
    }


def call_record(call: Call) -> dict[str, Any]:
    return {
        "id": call.sample_id,
        "instance_id": call.instance_id,
        "part": call.part,
        "messages": call.messages,
        "target": call.target,
    }


def export_calls(
    dataset_dir: Path, choice: SystemChoice, out: Path, harness: str, scope: Scope | None = None
) -> tuple[dict[str, Any], list[Call]]:
    """Render every call, write ``calls.jsonl`` and the header into ``out``; (header, calls).

    Refuses a folder that holds an export of another dataset or system (exit 2 naming both), so an
    old log's export is never overwritten by a different one under the same name."""
    scope = scope or Scope()
    prepared = prepare(dataset_dir, choice, scope, full_fit=False)
    rendered = list(calls(prepared))
    schemas = {json.dumps(c.schema, sort_keys=True) for c in rendered}
    if len(schemas) > 1:  # every call of one system shares its answer schema; the task file sends one
        raise UsageError(f"system {choice.name!r} asks {len(schemas)} answer schemas; an export sends one")
    head = header(prepared, choice, scope, harness, len(rendered))
    head["schema"] = rendered[0].schema if rendered else None
    out = Path(out)
    previous = out / EXPORT_FILE
    if previous.is_file():
        old = json.loads(previous.read_text(encoding="utf-8"))
        if (old.get("dataset"), old.get("system"), old.get("harness")) != (
            head["dataset"],
            head["system"],
            head["harness"],
        ):
            raise UsageError(
                f"{out} holds an export of dataset {str(old.get('dataset', {}).get('inputs_sha256'))[:12]}… "
                f"(system {old.get('system', {}).get('name')}, {old.get('harness')}); this one is "
                f"{head['dataset']['inputs_sha256'][:12]}… (system {choice.name}, {harness})",
                hint="export into a new --out folder",
            )
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / CALLS_FILE, (call_record(c) for c in rendered))
    previous.write_text(json.dumps(head, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return head, rendered


def read_header(folder: Path) -> dict[str, Any]:
    """An export's header (by the task files at run time); exit 2 naming the file if it is not one."""
    path = Path(folder) / EXPORT_FILE
    try:
        head = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UsageError(f"{path} is not an admitdx export header: {e}") from e
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise UsageError(f"{path} is not an admitdx export header (format {FORMAT} expected)")
    return head
