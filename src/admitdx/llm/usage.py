"""Token accounting: what a run's answers cost in prompt, completion and reasoning tokens, and dollars.

Each answer's ``usage`` is the server's own count (OpenAI's shape, which vLLM, SGLang, llama.cpp,
Ollama and Azure OpenAI all return: ``prompt_tokens``, ``completion_tokens``, and for reasoning
models ``completion_tokens_details.reasoning_tokens``,
https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage). Reasoning tokens are
a part of the completion tokens, as OpenAI documents and bills them, so the cost line prices
completion tokens once. Some servers report the reasoning count at the top level
(``usage.reasoning_tokens``); both spellings are read.

The tally covers every answer the run used, cached ones too (``cached`` says how many): it is what
these predictions took to produce, which is the figure a paper's cost column needs; a rerun from the
cache spends nothing new, and its ``model_calls`` of 0 says so. Answers without ``usage`` are
counted as ``without_usage`` rather than guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PER_MILLION = 1_000_000


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def reasoning_tokens(usage: dict[str, Any]) -> int:
    """The reasoning part of ``completion_tokens``, from either documented spelling (0 when absent)."""
    details = usage.get("completion_tokens_details")
    nested = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return _count(nested if nested is not None else usage.get("reasoning_tokens"))


@dataclass
class TokenTally:
    """Sums of ``usage`` over a run's answers."""

    answers: int = 0
    cached: int = 0
    without_usage: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0

    def add(self, usage: Any, *, cached: bool) -> None:
        self.answers += 1
        self.cached += int(cached)
        if not isinstance(usage, dict):
            self.without_usage += 1
            return
        self.prompt_tokens += _count(usage.get("prompt_tokens"))
        self.completion_tokens += _count(usage.get("completion_tokens"))
        self.reasoning_tokens += reasoning_tokens(usage)

    def summary(self, price_per_million: dict[str, float] | None = None) -> dict[str, Any]:
        """The manifest's ``tokens`` record; ``cost_usd`` only when a price was given."""
        out: dict[str, Any] = {
            "answers": self.answers,
            "cached": self.cached,
            "without_usage": self.without_usage,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens,
        }
        if price_per_million is not None:
            cost = (
                self.prompt_tokens * price_per_million.get("prompt", 0.0)
                + self.completion_tokens * price_per_million.get("completion", 0.0)
            ) / PER_MILLION
            out["price_per_million"] = dict(price_per_million)
            out["cost_usd"] = round(cost, 6)
        return out
