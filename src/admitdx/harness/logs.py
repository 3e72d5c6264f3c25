"""A harness's log of an exported admitdx task, read into one shape: the export header it carried,
the model and generation settings, and per sample what was sent and what came back.

Each reader reads only what it recognises: a sample whose id is not one of the export's, a second
answer to one sample (several epochs, repeats) or a log without the export header is refused with
the file named; the import then checks the header against the dataset (:mod:`admitdx.harness.replay`).

* Inspect AI: the ``.eval``/``.json`` log, read with Inspect's own reader
  (:func:`inspect_ai.log.read_eval_log`). The header is the task's metadata
  (``admitdx_export``); per sample the input messages, the output text and its reasoning blocks,
  the stop reason, the token usage (``input_tokens``/``output_tokens``/``reasoning_tokens``) and
  the time.
* lm-evaluation-harness: the ``samples_<task>_<date>.jsonl`` of ``--log_samples``. The header is
  each document's ``admitdx_export``; per sample the context sent (a chat API model logs the
  messages as JSON), the generation arguments and the first response. lm-eval records no token
  usage and no stop reason. The run's ``results_<date>.json`` beside it, when present, names the
  model and its arguments.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from admitdx.errors import InputError, UsageError
from admitdx.jsonl import read_jsonl_numbered
from admitdx.llm.reasoning import join_thinking

#: The metadata key (Inspect task) / document field (lm-eval) that carries the export header.
HEADER_KEY = "admitdx_export"
#: Stop reasons that mean the token budget ran out (Inspect's names; lm-eval records none).
_CUT = {"max_tokens", "model_length", "length"}
INSTALL_HINT = "install the harness extra: pip install 'admitdx[harness]'"


@dataclass(frozen=True)
class Answer:
    """One sample's exchange: ``text`` is the output with any separate reasoning joined back in
    ``<think>`` tags, so that ``predict``'s reader splits it exactly as it splits a server's."""

    sample_id: str
    text: str
    sent: list[dict[str, str]] | str | None  # the messages, or a rendered prompt string
    usage: dict[str, Any] | None
    finish_reason: str | None
    latency_s: float | None


@dataclass(frozen=True)
class HarnessLog:
    path: Path
    harness: str
    header: dict[str, Any]
    model: str | None
    generate: dict[str, Any]
    answers: dict[str, Answer] = field(default_factory=dict)


def _add(answers: dict[str, Answer], answer: Answer, path: Path, row: int | None = None) -> None:
    if answer.sample_id in answers:
        raise InputError(
            f"sample {answer.sample_id!r} is answered twice (several epochs or repeats)",
            table=str(path),
            row=row,
            hint="run the harness once per sample (Inspect: --epochs 1; lm-eval: repeats 1) and import "
            "that log",
        )
    answers[answer.sample_id] = answer


def read_log(harness: str, path: Path) -> HarnessLog:
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"{path} is not a file", hint="name the harness's log file")
    return read_inspect(path) if harness == "inspect" else read_lmeval(path)


# ---------------------------------------------------------------------------- Inspect AI
def read_inspect(path: Path) -> HarnessLog:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError as e:
        raise UsageError("reading an Inspect log needs inspect-ai", hint=INSTALL_HINT) from e
    try:
        log = read_eval_log(str(path))
    except Exception as e:  # Inspect raises its own and pydantic's errors for a file that is no log
        raise UsageError(f"{path} is not an Inspect log Inspect can read: {e}") from e
    header = (log.eval.metadata or {}).get(HEADER_KEY)
    if not isinstance(header, dict):
        raise UsageError(
            f"{path} is not a log of an admitdx export (its task metadata has no {HEADER_KEY})",
            hint="run the task that `admitdx export inspect` wrote, then import its log",
        )
    answers: dict[str, Answer] = {}
    for sample in log.samples or []:
        _add(answers, _inspect_answer(sample), path)
    generate = log.plan.config.model_dump(exclude_none=True) if log.plan else {}
    return HarnessLog(path, "inspect", header, log.eval.model, generate, answers)


def _inspect_answer(sample: Any) -> Answer:
    output = sample.output
    message = output.choices[0].message if output and output.choices else None
    thinking = None
    if message is not None and isinstance(message.content, list):
        blocks = [c.reasoning for c in message.content if getattr(c, "type", None) == "reasoning"]
        thinking = "\n\n".join(b for b in blocks if b) or None
    text = join_thinking(thinking, output.completion if output else "")
    sent: list[dict[str, str]] | str = (
        [{"role": m.role, "content": m.text} for m in sample.input]
        if isinstance(sample.input, list)
        else sample.input
    )
    usage = None
    if output and output.usage is not None:
        u = output.usage
        usage = {"prompt_tokens": u.input_tokens, "completion_tokens": u.output_tokens}
        if u.reasoning_tokens:
            usage["completion_tokens_details"] = {"reasoning_tokens": u.reasoning_tokens}
    stop = output.stop_reason if output else None
    finish = "length" if stop in _CUT else stop
    return Answer(str(sample.id), text, sent, usage, finish, output.time if output else None)


# ---------------------------------------------------------------------------- lm-evaluation-harness
def read_lmeval(path: Path) -> HarnessLog:
    answers: dict[str, Answer] = {}
    header: dict[str, Any] | None = None
    gen_kwargs: dict[str, Any] = {}
    for row, record in read_jsonl_numbered(path):
        doc = record.get("doc")
        if not isinstance(doc, dict) or not isinstance(doc.get(HEADER_KEY), str) or "id" not in doc:
            raise InputError(
                f"not a sample of an admitdx export (its doc has no {HEADER_KEY} and id)",
                table=str(path),
                row=row,
                hint="import the samples_<task>_<date>.jsonl that `lm_eval --log_samples` wrote for "
                "the task `admitdx export lm-eval` made",
            )
        this = json.loads(doc[HEADER_KEY])
        if header is not None and this != header:
            raise InputError("the samples come from two different exports", table=str(path), row=row)
        header = this
        context, kwargs = _lmeval_arguments(record)
        gen_kwargs = kwargs or gen_kwargs
        resps = record.get("resps")
        text = resps[0][0] if isinstance(resps, list) and resps and resps[0] else None
        if not isinstance(text, str):
            raise InputError("the sample has no generated text (resps)", table=str(path), row=row)
        _add(answers, Answer(str(doc["id"]), text, _lmeval_sent(context), None, None, None), path, row)
    if header is None:
        raise UsageError(
            f"{path} holds no sample", hint="run lm_eval with --log_samples and import its samples file"
        )
    model, model_args = _lmeval_model(path)
    generate = {**gen_kwargs, **({"model_args": model_args} if model_args else {})}
    return HarnessLog(path, "lm-eval", header, model, generate, answers)


def _lmeval_arguments(record: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(the context sent, the generation kwargs) of a generate_until sample's first request. lm-eval's
    tracker logs ``{"gen_args_0": {"arg_0": context, "arg_1": kwargs}}``; its evaluator's own list
    form ``[[context, kwargs]]`` is read too."""
    arguments = record.get("arguments")
    first: Any = None
    if isinstance(arguments, dict) and arguments:
        first = next(iter(arguments.values()))
        first = list(first.values()) if isinstance(first, dict) else None
    elif isinstance(arguments, list) and arguments:
        first = arguments[0]
    if not isinstance(first, list) or not first:
        return None, {}
    kwargs = first[1] if len(first) > 1 and isinstance(first[1], dict) else {}
    return first[0], kwargs


def _lmeval_sent(context: Any) -> list[dict[str, str]] | str | None:
    """The messages a chat API model was sent (lm-eval logs its ``JsonChatStr`` as ``[json]``), else
    the rendered prompt string (a local model's chat template), else None."""
    if isinstance(context, list) and len(context) == 1:
        context = context[0]
    if not isinstance(context, str):
        return None
    try:
        value = json.loads(context)
    except ValueError:
        return context
    if isinstance(value, list) and all(
        isinstance(m, dict) and {"role", "content"} <= m.keys() for m in value
    ):
        return [{"role": str(m["role"]), "content": str(m["content"])} for m in value]
    return context


def _lmeval_model(samples: Path) -> tuple[str | None, str | None]:
    """The model and its arguments from the newest ``results_*.json`` beside the samples, if any."""
    found = sorted(samples.parent.glob("results_*.json"))
    if not found:
        return None, None
    try:
        config = json.loads(found[-1].read_text(encoding="utf-8")).get("config") or {}
    except (OSError, ValueError):
        return None, None
    args = config.get("model_args")
    args = ",".join(f"{k}={v}" for k, v in args.items()) if isinstance(args, dict) else args
    name = config.get("model_name") or config.get("model")
    return (str(name) if name else None), (str(args) if args else None)
