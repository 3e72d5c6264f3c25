"""``samples.jsonl`` of an LLM prediction run, beside ``predictions.jsonl``: per instance the exact
prompt messages sent (with the template's name and hash), the raw answer, a reasoning model's
thinking (``reasoning``, kept here and never in the answer), the parsed items or answer, the parse
error, where a truncated output was cut (``truncated``: thinking or answer), and timing (latency,
token usage, whether it came from the cache).

``predictions.jsonl`` stays the scored contract; this file is for reading what the model was asked
and said (lm-evaluation-harness's ``--log_samples``). It quotes MIMIC-derived text: it stays with
the user's data. Lines are appended as completions arrive, so a resumed run adds the instances it
predicts and keeps the lines of those it had finished.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from admitdx.contracts import Prediction
from admitdx.jsonl import append_jsonl
from admitdx.llm.client import ChatRequest, Completion

SAMPLES_FILE = "samples.jsonl"


class SampleLog:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def write(self, request: ChatRequest, completion: Completion, prediction: Prediction) -> None:
        record: dict[str, Any] = {
            "instance_id": prediction.instance_id,
            "prompt": (request.key_extra or {}).get("prompt"),
            "messages": request.messages,
            "raw": completion.raw,
            "items": [{k: v for k, v in asdict(item).items() if v is not None} for item in prediction.items],
            "answer": prediction.answer,
            "rationale": prediction.rationale,
            "parse_error": prediction.parse_error,
            "latency_s": completion.latency_s,
            "usage": completion.usage,
            "cached": completion.cached,
            "finish_reason": completion.finish_reason,
        }
        if completion.reasoning is not None:  # lines of non-reasoning models keep their shape
            record["reasoning"] = completion.reasoning
        if completion.truncated is not None:
            record["truncated"] = completion.truncated
        append_jsonl(self.path, record)
