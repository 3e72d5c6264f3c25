"""What the Inspect AI task file of an export runs (``admitdx export inspect`` writes a file of a
few lines that calls :func:`exported_task` on its own folder): the exported calls as Inspect
samples, one ``generate()``, and the quick scorer.

Each sample's ``input`` is the exported chat messages exactly (system, demonstrations as
user/assistant turns, the record); its ``target`` (the gold answer, JSON) is seen by the scorer
only; its metadata holds the instance id and part. The task's metadata carries the export header,
so the log says which dataset and system it answers and ``admitdx import inspect LOG`` can check.
Generation follows the export: temperature, token budget and seed of the exported system, and the
answer schema as Inspect's structured output (``-T structured=false`` leaves it out for a provider
that refuses it; admitdx's reader parses either way).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ResponseSchema,
)
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState, generate
from inspect_ai.util import JSONSchema

from admitdx.harness.export import CALLS_FILE, read_header
from admitdx.harness.logs import HEADER_KEY
from admitdx.harness.quick_score import METRIC, quick_score
from admitdx.jsonl import read_jsonl

_ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def messages(turns: list[dict[str, str]]) -> list[ChatMessage]:
    return [_ROLES[t["role"]](content=t["content"]) for t in turns]


def samples(folder: Path) -> list[Sample]:
    return [
        Sample(
            input=messages(row["messages"]),
            target=json.dumps(row["target"], ensure_ascii=False),
            id=row["id"],
            metadata={"instance_id": row["instance_id"], "part": row["part"]},
        )
        for row in read_jsonl(Path(folder) / CALLS_FILE)
    ]


def quick_scorer(header: dict[str, Any]) -> Any:
    """Inspect's scorer named :data:`METRIC`: a quick look, not the paper's metric."""

    @scorer(metrics=[mean()], name=METRIC)
    def quick() -> Any:
        async def score(state: TaskState, target: Target) -> Score:
            completion = state.output.completion if state.output else ""
            value = quick_score(header, completion, json.loads(target.text))
            return Score(value=value, answer=completion, explanation=header["native_score"])

        return score

    return quick()


def exported_task(folder: Path, *, structured: bool = True) -> Task:
    """The export in ``folder`` as an Inspect task (module docstring)."""
    header = read_header(folder)
    generate_settings = header["generate"]
    schema = header.get("schema")
    response = (
        ResponseSchema(name="output", json_schema=JSONSchema.model_validate(schema), strict=True)
        if structured and schema
        else None
    )
    config = GenerateConfig(
        temperature=generate_settings["temperature"],
        max_tokens=generate_settings["max_tokens"],
        seed=generate_settings["seed"],
        response_schema=response,
    )
    return Task(
        dataset=MemoryDataset(samples(folder), name=f"admitdx-{header['task']}"),
        solver=generate(),
        scorer=quick_scorer(header),
        config=config,
        metadata={HEADER_KEY: header},
        name=f"admitdx_{header['task'].replace('-', '_')}",
    )
