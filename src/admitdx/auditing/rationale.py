"""The gold-conditioned rationale teacher (EarlyDx appendix G).

Given the admission-time record and the encounter's *retained* labels (supported and partially
supported only, so the teacher is never asked to justify what the evidence does not substantiate),
a teacher LLM writes ``{"reasoning": ..., "diagnoses": [...]}``. Because it is conditioned on the
gold labels, the reasoning is a post-hoc explanation, not a ground-truth reasoning trace; EarlyDx's
datasheet warns against using it as reasoning supervision without that caveat.

Output ``rationales.jsonl``, one line per instance with at least one retained label::

    {"instance_id", "split", "diagnoses": [gold titles, in reference order],
     "reasoning": str | null, "raw": str, "parse_error": str | null}

An SFT export pairs ``reasoning`` + ``diagnoses`` as the assistant turn (EarlyDx's "rational-SFT").
Sampling: temperature 0.3 (appendix K: teacher traces at 0.3), the default of :data:`TEACHER_TEMPERATURE`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from admitdx.auditing.prompts import PROMPT_DIR
from admitdx.auditing.stage import JsonlStage
from admitdx.contracts import INSTANCES_FILE, Instance, load_instances
from admitdx.errors import UsageError
from admitdx.llm.client import ChatRequest, LLMClient
from admitdx.llm.prompts import load_prompt
from admitdx.runs import exclusive, sha256_file
from admitdx.tasks.answers import free_text

RATIONALES_FILE = "rationales.jsonl"
TEACHER_TEMPERATURE = 0.3
RETAINED = ("supported", "partial")


def rationale_schema(reasoning_max_chars: int | None, n_labels: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "reasoning": free_text(reasoning_max_chars),
            "diagnoses": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": n_labels,
                "maxItems": n_labels,
            },
        },
        "required": ["reasoning", "diagnoses"],
        "additionalProperties": False,
    }


def retained_labels(inst: Instance, classes: tuple[str, ...]) -> list[str]:
    return [r.text for r in inst.references if r.evidence_class in classes]


def audited_instances(dataset_dir: Path, splits: tuple[str, ...]) -> list[Instance]:
    """The instances of ``splits``; refuses a dataset no auditor has labelled."""
    instances = [i for i in load_instances(dataset_dir) if i.split in splits]
    if not any(r.evidence_class for i in instances for r in i.references):
        raise UsageError(
            f"{dataset_dir} is not audited: rationales are written only for supported and partial labels",
            hint="run `admitdx audit --dataset DIR --system rules --out AUDITED` first",
        )
    return instances


def write_rationales(
    dataset_dir: Path,
    out_dir: Path,
    client: LLMClient,
    *,
    prompt: str = "rationale.v1",
    classes: tuple[str, ...] = RETAINED,
    splits: tuple[str, ...] = ("train",),
    reasoning_max_chars: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Write one rationale per instance of ``splits`` with a retained label; return the counts.
    Holds ``out_dir``'s single-writer lock (:func:`admitdx.runs.exclusive`) throughout."""
    with exclusive(Path(out_dir), "rationale"):
        return _write_rationales(
            dataset_dir,
            out_dir,
            client,
            prompt=prompt,
            classes=classes,
            splits=splits,
            reasoning_max_chars=reasoning_max_chars,
            on_progress=on_progress,
        )


def _write_rationales(
    dataset_dir: Path,
    out_dir: Path,
    client: LLMClient,
    *,
    prompt: str = "rationale.v1",
    classes: tuple[str, ...] = RETAINED,
    splits: tuple[str, ...] = ("train",),
    reasoning_max_chars: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    dataset_dir = Path(dataset_dir)
    instances = audited_instances(dataset_dir, splits)
    template = load_prompt(prompt, PROMPT_DIR)
    inputs = {
        "dataset": {"instances_sha256": sha256_file(dataset_dir / INSTANCES_FILE)},
        "prompt": template.identity(),
        "llm": client.config.identity(),
        "egress": client.egress,
        "classes": list(classes),
        "splits": list(splits),
        "reasoning_max_chars": reasoning_max_chars,
    }
    stage = JsonlStage(
        out_dir, RATIONALES_FILE, stage="rationale", inputs=inputs, key=lambda r: r["instance_id"]
    )
    eligible = [i for i in instances if retained_labels(i, classes)]
    todo = [i for i in eligible if i.id not in stage.done]

    def request(inst: Instance) -> ChatRequest:
        labels = retained_labels(inst, classes)
        messages = template.render(record=inst.text, diagnoses=labels)
        return ChatRequest(
            messages, rationale_schema(reasoning_max_chars, len(labels)), {"prompt": template.identity()}
        )

    finished = len(eligible) - len(todo)
    for n, completion in client.map(request(inst) for inst in todo):
        inst = todo[n]
        value = completion.parsed if isinstance(completion.parsed, dict) else {}
        reasoning = value.get("reasoning") if isinstance(value.get("reasoning"), str) else None
        error = completion.parse_error or (None if reasoning else "the answer has no reasoning text")
        stage.append({
            "instance_id": inst.id, "split": inst.split, "diagnoses": retained_labels(inst, classes),
            "reasoning": reasoning, "raw": completion.raw, "parse_error": error,
        })  # fmt: skip
        finished += 1
        if on_progress:
            on_progress(finished, len(eligible))
    records = stage.records()
    outputs = {
        "rationales": len(records),
        "unparseable": sum(1 for r in records if r["parse_error"]),
        "skipped_no_retained_label": len(instances) - len(eligible),
    }
    stage.finish(outputs)
    return outputs
