"""Asking each part of a multi-part text target in its own call (ER-Reason planning, tables
11–13: the differential, the decision factors and the treatment plan are three calls, each with
its own input — the treatment plan alone sees the ED presentation).

A task that asks this way gives its spec a ``part_records`` function (an instance's sections →
``{part: record}``); :class:`~admitdx.systems.llm.LLMPredictor` with ``part_calls: per-part`` (the
default for such a task) renders the task's prompt once per part with ``part`` set and a
one-text answer schema, and joins the three answers into the ``{part: text}`` answer the text
suite scores. A part whose answer cannot be read leaves the prediction without an answer and with
a parse error naming the part, as the one-call form does for a missing part. The three requests
run through the predictor's executor like any others; ``samples.jsonl`` logs each.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from admitdx.contracts import Instance, Prediction
from admitdx.llm.client import ChatRequest, Completion
from admitdx.tasks.answers import read_text, text_answer, text_schema

if TYPE_CHECKING:
    from admitdx.systems.llm import LLMPredictor

PART_CALLS = ("per-part", "one")


def part_request(llm: LLMPredictor, inst: Instance, part: str) -> ChatRequest:
    from admitdx.systems.llm import clip

    records = llm.task.part_records(inst.sections)  # type: ignore[misc]
    exemplars = []
    if llm.retriever is not None:
        for hit in reversed(llm._neighbours(inst)):
            ex = llm._train[hit.index]
            answer = text_answer(ex.target[part])  # type: ignore[index]
            exemplars.append(
                {
                    "record": clip(llm.task.part_records(ex.sections)[part], llm.max_input_chars),  # type: ignore[misc]
                    "answer": json.dumps(answer),
                }
            )
    messages = llm.template.render(
        record=clip(records[part], llm.max_input_chars),
        part=part,
        reasoning=llm.style == "cot",
        exemplars=exemplars,
        max_items=llm.shape.max_items,
        graded=llm.graded,
        categories=llm.task.categories,
    )
    schema = text_schema(reasoning=llm.style == "cot")
    return ChatRequest(messages, schema, {"prompt": llm.template.identity(), "part": part})


def _joined(inst: Instance, system: str, parts: tuple[str, ...], done: dict[str, Completion]) -> Prediction:
    answers, errors, reasoning = {}, [], []
    for part in parts:
        c = done[part]
        read = read_text(c.parsed) if c.parse_error is None else None
        if read is None or read.error or not isinstance(read.answer, str):
            errors.append(f"{part}: {c.parse_error or (read.error if read else 'unreadable')}")
            continue
        answers[part] = read.answer
        if read.reasoning:
            reasoning.append(f"{part}: {read.reasoning}")
    usage: dict[str, Any] = {}
    for c in done.values():
        for k, v in (c.usage or {}).items():
            if isinstance(v, int | float):
                usage[k] = usage.get(k, 0) + v
    latency = [c.latency_s for c in done.values() if c.latency_s is not None]
    return Prediction(
        instance_id=inst.id,
        system=system,
        items=[],
        rationale="\n".join(reasoning) or None,
        raw=json.dumps({p: done[p].raw for p in parts}),
        parse_error="; ".join(errors) or None,
        usage=usage or None,
        latency_s=sum(latency) if latency else None,
        answer=None if errors else answers,
    )


def predict_parts(llm: LLMPredictor, todo: list[Instance]) -> Iterator[Prediction]:
    """One prediction per instance, from one call per part, in the order the answers complete."""
    parts = llm.parts
    pending: dict[int, ChatRequest] = {}
    done: dict[int, dict[str, Completion]] = {}

    def requests() -> Iterator[ChatRequest]:
        for i, inst in enumerate(todo):
            for j, part in enumerate(parts):
                pending[i * len(parts) + j] = part_request(llm, inst, part)
                yield pending[i * len(parts) + j]

    for n, completion in llm.executor.map(llm.client, requests(), llm.endpoints):
        i, j = divmod(n, len(parts))
        request = pending.pop(n)
        answered = done.setdefault(i, {})
        answered[parts[j]] = completion
        if llm.samples is not None:
            llm.samples.write(request, completion, _joined(todo[i], llm.name, (parts[j],), answered))
        if len(answered) == len(parts):
            yield _joined(todo[i], llm.name, parts, done.pop(i))
