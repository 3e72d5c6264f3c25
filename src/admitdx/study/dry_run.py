"""``admitdx study --dry-run``: what a study would still cost, before any model call.

Per task × system: the instances to predict, how many are already predicted (resumed), the model
calls still to make — the remaining instances of an LLM system whose request is not already in
its response cache (the same content key the client looks up) — and the prompt tokens of those
calls, counted with the model's own tokenizer where it is at hand (a local model's GGUF
vocabulary, or a Hugging Face tokenizer of the model name found offline: :func:`token_counter`),
else estimated at ``CHARS_PER_TOKEN`` characters a token.

The datasets are built (and audited, cut to their subset) first, because the instances are only
known then; building makes no model call. Matcher calls (an LLM judge) are not estimated: they
depend on the predictions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from admitdx.contracts import PREDICTIONS_FILE
from admitdx.jsonl import read_jsonl
from admitdx.llm.cache import cache_key
from admitdx.llm.local_server import llama_cpp_available
from admitdx.study.identity import claim
from admitdx.study.lanes import Datasets
from admitdx.study.names import under
from admitdx.study.run import prepare_dataset
from admitdx.study.spec import Study, TaskRun
from admitdx.study.steps import Steps
from admitdx.systems import registered
from admitdx.systems.config import SystemChoice
from admitdx.systems.labels import training_view
from admitdx.systems.llm import LLMPredictor
from admitdx.systems.runner import TRAIN_LABELS_OPTION, build_system, split_dataset, system_view

#: The stated rule where no tokenizer is at hand: about four characters a token, OpenAI's rule of
#: thumb for English; clinical text with its abbreviations and numbers runs nearer three, so the
#: estimate is low rather than high by up to a third.
CHARS_PER_TOKEN = 4.0


@dataclass(frozen=True)
class Estimate:
    task: str
    system: str
    instances: int
    done: int
    calls: int  # model calls still to make (cache hits subtracted); 0 for systems without a model
    cache_hits: int
    prompt_tokens: int
    tokens_by: str  # "tokenizer <name>", "chars/4" or "" (no model)


def dry_run(study: Study, steps: Steps, take_over: bool = False) -> list[Estimate]:
    """An estimate per task × system, in the study's order. It builds under ``out:``, so it claims
    the folder first, as a run does (:func:`admitdx.study.identity.claim`)."""
    claim(study, take_over)
    rows = []
    datasets = Datasets()
    for run in study.tasks:
        dataset = prepare_dataset(run, under(study.out, run.name), steps, datasets)
        for choice in run.systems:
            out = under(study.out, run.name, "predictions", choice.name)
            rows.append(_estimate(run, choice, dataset, out, study.config.allow_hosts))
    return rows


def _estimate(
    run: TaskRun, choice: SystemChoice, dataset: Path, out: Path, allow_hosts: list[Any]
) -> Estimate:
    task, train, test, *_ = split_dataset(dataset, run.score.split, "train", None)
    done = _done_ids(out / PREDICTIONS_FILE)
    todo = [i for i in test if i.id not in done]
    base = Estimate(run.name, choice.name, len(test), len(test) - len(todo), 0, 0, 0, "")
    if not _prompted(choice.kind) or not todo:
        return base
    system = build_system(choice, allow_hosts, task)  # starts no server: that happens in predict()
    system.fit(training_view(train, str(choice.options.get(TRAIN_LABELS_OPTION, "retained"))))
    count, by = token_counter(system)
    calls = hits = tokens = 0
    for inst in todo:
        request = system.request(system_view(task, inst, oracle=False))
        cache = system.client.cache
        if cache is not None and cache.get(cache_key(system.client.request_identity(request))) is not None:
            hits += 1
            continue
        calls += 1
        tokens += count("\n".join(str(m.get("content", "")) for m in request.messages))
    return Estimate(run.name, choice.name, len(test), base.done, calls, hits, tokens, by)


def _prompted(kind: str) -> bool:
    """Whether a system kind calls a model: it is (a subclass of) the prompted LLM predictor."""
    factory = registered()[kind].factory
    return isinstance(factory, type) and issubclass(factory, LLMPredictor)


def _done_ids(path: Path) -> set[str]:
    return {r["instance_id"] for r in read_jsonl(path)} if path.exists() else set()


def token_counter(system: LLMPredictor) -> tuple[Callable[[str], int], str]:
    """The model's own tokenizer where it is at hand — the GGUF vocabulary of a local model
    (llama.cpp loads the vocabulary only), or a Hugging Face tokenizer of the model name found
    without the network — else the stated character rule. Counts the messages' text, not the chat
    template's few tokens around each message."""
    local = system.local
    if local is not None and local.model_path is not None and llama_cpp_available():
        from llama_cpp import Llama

        vocab = Llama(model_path=str(local.model_path), vocab_only=True, verbose=False)
        return (lambda text: len(vocab.tokenize(text.encode(), add_bos=False))), f"tokenizer {local.alias}"
    model = system.client.config.model
    try:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=True)
    except Exception:  # no transformers, no local copy, or not a Hugging Face name: the stated rule
        return (lambda text: round(len(text) / CHARS_PER_TOKEN)), f"chars/{CHARS_PER_TOKEN:g}"
    return (lambda text: len(tokenizer.encode(text, add_special_tokens=False))), f"tokenizer {model}"
