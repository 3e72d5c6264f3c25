"""Thinking apart from the answer: what a reasoning model wrote before it answered never gets parsed.

Reasoning models reach admitdx in two spellings, and the parser (:mod:`admitdx.llm.parse`) takes the
first JSON span or the first numbered list it sees, so a thinking text that says ``1. Consider
pneumonia …`` would otherwise become the diagnosis list.

- **Inline tags** in ``content``: ``<think> … </think> answer`` (DeepSeek-R1, QwQ, Qwen3 and
  HuatuoGPT-o1 served without a reasoning parser; llama.cpp and Ollama's templates leave them in).
  Chat templates that open the block themselves (DeepSeek-R1's and Qwen3's end the prompt with
  ``<think>\\n``) make the output start *inside* it, so a ``</think>`` with no opening tag closes
  thinking that began at the first character. An opening tag that is never closed (the token
  budget ran out while thinking) makes everything after it thinking, with no answer.
- **A separate field** of the response message: ``reasoning_content`` (vLLM's and SGLang's
  ``--reasoning-parser``, https://docs.vllm.ai/en/v0.10.0/features/reasoning_outputs.html,
  https://docs.sglang.ai/advanced_features/separate_reasoning.html) or ``reasoning`` (vLLM 0.11 and
  later, https://docs.vllm.ai/en/stable/features/reasoning_outputs/, and Ollama's OpenAI
  compatibility layer). With the budget spent in thinking, ``content`` is empty or null.

The client stores one text per answer in the cache (:func:`join_thinking`): a field's thinking is
written there in ``<think>`` tags, so a cached answer and one read over Ray or from vLLM in the
cluster are split by the same rule, whichever way the server spelled it.

**Truncation** (``finish_reason: length``) is its own outcome, not a parse error: where the budget
ran out is ``thinking`` when no answer text came after the thinking, else ``answer``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
#: Message fields that carry thinking, in the order they are read (first non-empty wins).
REASONING_FIELDS = ("reasoning_content", "reasoning")
#: The ``finish_reason`` every OpenAI-compatible server documents for a spent token budget.
LENGTH = "length"
#: The opening of a truncated prediction's ``parse_error`` (scoring counts these apart).
TRUNCATED_PREFIX = "truncated in "

Where = Literal["thinking", "answer"]

_OPEN = re.compile(r"<think>", re.IGNORECASE)
_CLOSE = re.compile(r"</think>", re.IGNORECASE)


@dataclass(frozen=True)
class Split:
    """``answer`` is what the parser sees; ``thinking`` is kept for reading, never parsed."""

    answer: str
    thinking: str | None


def split_thinking(text: str) -> Split:
    """Separate ``<think>`` blocks (closed, unclosed, or opened by the chat template) from the answer.

    Text without any think tag comes back unchanged, so output of a non-reasoning model is parsed
    exactly as before.
    """
    if not text or "think>" not in text.lower():
        return Split(text, None)
    thoughts: list[str] = []
    rest = text
    first_close, first_open = _CLOSE.search(rest), _OPEN.search(rest)
    if first_close and (first_open is None or first_close.start() < first_open.start()):
        thoughts.append(rest[: first_close.start()])  # opened by the chat template, before the output
        rest = rest[first_close.end() :]
    answer_parts: list[str] = []
    while (opening := _OPEN.search(rest)) is not None:
        answer_parts.append(rest[: opening.start()])
        after = rest[opening.end() :]
        closing = _CLOSE.search(after)
        if closing is None:  # never closed: the budget ran out while thinking
            thoughts.append(after)
            rest = ""
            break
        thoughts.append(after[: closing.start()])
        rest = after[closing.end() :]
    answer_parts.append(rest)
    thinking = "\n\n".join(t.strip() for t in thoughts if t.strip()) or None
    return Split("".join(answer_parts).strip(), thinking)


def message_text(message: dict[str, Any]) -> str:
    """One text for a response message: its thinking field (if any) in ``<think>`` tags, then content.

    ``content`` is a string, or a list of text parts (``[{"type": "text", "text": …}]``, which some
    OpenAI-compatible servers send), joined; anything else (a number, an object, a part that is
    not text) is a TypeError, which the client treats as an unreadable body: retried, never cached
    as the model's answer."""
    content = content_text(message.get("content"))
    fields = (message.get(f) for f in REASONING_FIELDS)
    thinking = next((f for f in fields if isinstance(f, str) and f), None)
    return join_thinking(thinking, content)


def content_text(content: Any) -> str:
    """A message's ``content`` as one text (see :func:`message_text`); TypeError naming what it is."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        texts = [p if isinstance(p, str) else p.get("text") if isinstance(p, dict) else None for p in content]
        if all(isinstance(t, str) for t in texts):
            return "".join(texts)
    raise TypeError(f"message content is {type(content).__name__}, not a text or a list of text parts")


def join_thinking(thinking: str | None, answer: str) -> str:
    """The inverse of :func:`split_thinking` for a separate thinking field; no thinking, no change."""
    return f"{THINK_OPEN}{thinking}{THINK_CLOSE}{answer}" if thinking else answer


def truncated_where(finish_reason: str | None, split: Split) -> Where | None:
    """Where the token budget ran out, or None when it did not."""
    if finish_reason != LENGTH:
        return None
    return "answer" if split.answer.strip() else "thinking"


def truncation_error(where: Where, max_tokens: int | None = None) -> str:
    """The ``parse_error`` of a truncated output that could not be read (starts with TRUNCATED_PREFIX)."""
    budget = f" ({max_tokens} tokens)" if max_tokens else ""
    fix = "raise max_tokens" + (" or turn thinking off (thinking: false)" if where == "thinking" else "")
    return f"{TRUNCATED_PREFIX}{where}: the token budget{budget} ran out; {fix}"


def truncated_counts(parse_errors: list[str]) -> dict[str, int]:
    """``truncated_in_thinking`` / ``truncated_in_answer`` counts of a run's parse errors, for the
    "What was scored" card; only the kinds that occur, so runs without truncation keep their counts."""
    counts: dict[str, int] = {}
    for error in parse_errors:
        if error.startswith(TRUNCATED_PREFIX):
            where = error[len(TRUNCATED_PREFIX) :].split(":", 1)[0]
            counts[f"truncated_in_{where}"] = counts.get(f"truncated_in_{where}", 0) + 1
    return counts
