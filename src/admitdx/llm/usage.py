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
cache spends nothing new, and its ``model_calls`` of 0 says so. A run that resumes an interrupted one
sums the ``usage`` every line of its file keeps (:func:`tally_lines`), so the lines written before
the interruption are counted too.

A server that reports no ``usage`` (some proxies, older Ollama builds) leaves the answer
``without_usage``, unless the ``tokenizer`` option names the model's ``tokenizer.json`` (or its
folder): then :class:`TokenCounter` counts the prompt's message texts and the output (thinking
included) with it, and the answer's usage says ``"counted": "tokenizer"``. The count leaves out the
chat template's own tokens (a few per message), so it is a slight undercount of the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from admitdx.errors import UsageError

PER_MILLION = 1_000_000
TOKENIZER_FILE = "tokenizer.json"


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
    counted: int = 0  # usage counted with the tokenizer option
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0

    def add(self, usage: Any, *, cached: bool) -> None:
        self.answers += 1
        self.cached += int(cached)
        if not isinstance(usage, dict):
            self.without_usage += 1
            return
        self.counted += int(usage.get("counted") == "tokenizer")
        self.prompt_tokens += _count(usage.get("prompt_tokens"))
        self.completion_tokens += _count(usage.get("completion_tokens"))
        self.reasoning_tokens += reasoning_tokens(usage)

    def summary(self, price_per_million: dict[str, float] | None = None) -> dict[str, Any]:
        """The manifest's ``tokens`` record; ``cost_usd`` only when a price was given."""
        out: dict[str, Any] = {
            "answers": self.answers,
            "cached": self.cached,
            "without_usage": self.without_usage,
            **({"counted_with_tokenizer": self.counted} if self.counted else {}),
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


def tally_lines(
    usages: list[Any], *, per_line: int, cached: int, price_per_million: dict[str, float] | None
) -> dict[str, Any]:
    """The ``tokens`` record of a whole predictions file: each line's ``usage`` summed, the lines an
    earlier (killed or limited) run wrote as much as this run's, since a resumed run's own tally
    covers only what it asked. ``per_line`` answers stand behind each line (one per part when a
    task is asked by parts); ``cached`` is this run's count, the only one known."""
    tally = TokenTally()
    for usage in usages:
        tally.add(usage, cached=False)
    tally.answers *= per_line
    tally.without_usage *= per_line
    tally.cached = cached
    return tally.summary(price_per_million)


@lru_cache(maxsize=4)
def _load_tokenizer(path: str) -> Any:
    try:
        from tokenizers import Tokenizer
    except ImportError as e:
        raise UsageError(
            "the tokenizer option needs the tokenizers package",
            hint="pip install 'admitdx[embed]' (or [encoder], [hf]), which brings it",
        ) from e
    file = Path(path) / TOKENIZER_FILE if Path(path).is_dir() else Path(path)
    if not file.is_file():
        raise UsageError(
            f"tokenizer {path}: no {TOKENIZER_FILE} there",
            hint="point tokenizer: at the model's tokenizer.json or the folder that holds it",
        )
    try:
        tokenizer = Tokenizer.from_file(str(file))
    except Exception as e:  # the tokenizers library raises its own Exception subclass for a bad file
        raise UsageError(f"tokenizer {file} cannot be read: {e}") from e
    tokenizer.no_padding()  # a file saved for an encoder may pad or cut to a fixed length: count all
    tokenizer.no_truncation()
    return tokenizer


class TokenCounter:
    """The model's tokenizer, for answers whose server reported no usage."""

    def __init__(self, path: str) -> None:
        self.tokenizer = _load_tokenizer(str(path))

    def _count(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def usage(self, messages: list[dict[str, str]], output: str) -> dict[str, Any]:
        prompt = sum(self._count(str(m.get("content") or "")) for m in messages)
        return {"prompt_tokens": prompt, "completion_tokens": self._count(output), "counted": "tokenizer"}
