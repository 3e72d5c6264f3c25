"""The prompted LLM predictor (system kind ``llm``): zero-shot, few-shot and chain-of-thought.

Configured in the ``admitdx predict --config`` file::

    systems:
      smollm-zero:
        kind: llm
        base_url: local            # start the embedded llama.cpp server (SmolLM2-135M by default)
        prompt: zero-shot          # zero-shot | few-shot | cot
      qwen-fewshot:
        kind: llm
        base_url: http://127.0.0.1:8000/v1
        model: Qwen/Qwen2.5-7B-Instruct
        prompt: few-shot
        k: 5                       # EarlyDx 4.2: five exemplars; CliniBench 4.3: 1, 3 or 5
        retriever: bm25            # bm25 | dense | latent | random (CliniBench 4.3; gold: llm-codes)
        graded: true               # each diagnosis confirmed/suspected + confidence

``endpoints: [url, {url: …, concurrency: n}, …]`` spreads the calls over several servers with
``admitdx predict --executor ray`` (:mod:`admitdx.executors`); each passes the egress guard first.
Every other key is an :class:`~admitdx.llm.config.LLMConfig` option (model, temperature, seed,
concurrency, timeout_s, retries, structured, cache_path, cache_only, …).

The task decides what is asked and how the answer is read: its spec names the prompt template
(shipped with the task) and its answer kind — a ranked diagnosis list, one of a fixed set of
categories (an enum in the schema, read exactly), or a text. This module only assembles requests.

A reasoning model's thinking (``<think>`` blocks, or a server's ``reasoning_content``/``reasoning``
field) is kept apart and never parsed (:mod:`admitdx.llm.reasoning`); it is written to
``samples.jsonl``, not to the prediction. An output cut by the token budget that cannot be read
gets a ``parse_error`` that starts with ``truncated in thinking`` or ``truncated in answer``, which
scoring counts apart from parse errors. The run's prompt, completion and reasoning tokens (and a
cost, given ``price_per_million``) go to the manifest's ``fit.tokens``.

Protocol choices: greedy decoding (EarlyDx appendix K, CliniBench 4.2); the answer is constrained
to a JSON schema by the server (CliniBench 4.2) and parsed tolerantly when a server ignores it;
chain-of-thought puts a ``reasoning`` field before the list (CliniBench 4.2), kept as the
prediction's ``rationale``; few-shot exemplars are the nearest training encounters by the chosen
retriever, shown with their evidence-supported labels (supported + partial when the dataset is
audited — EarlyDx's "evidence-supported" set — else all labels), most similar last, so it sits
next to the question. An exemplar with no such label is skipped in favour of the next neighbour.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from admitdx.contracts import Instance, Prediction
from admitdx.errors import UsageError
from admitdx.executors import Executor, or_local, parse_endpoints
from admitdx.llm.client import ChatRequest, Completion, LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.llm.egress import AllowedHost
from admitdx.llm.local_server import LOG_NAME, LocalServer
from admitdx.llm.prompts import load_prompt
from admitdx.llm.reasoning import truncation_error
from admitdx.llm.usage import tally_lines
from admitdx.retrieval import Hit, make_retriever
from admitdx.systems import register
from admitdx.systems.part_calls import PART_CALLS, predict_parts
from admitdx.systems.sample_log import SAMPLES_FILE, SampleLog
from admitdx.tasks.answers import (
    ListShape,
    category_schema,
    diagnosis_schema,
    read_category,
    read_diagnoses,
    read_text,
    text_answer,
    text_parts,
    text_schema,
)
from admitdx.tasks.spec import ANSWER_KINDS, TaskSpec

PromptStyle = Literal["zero-shot", "few-shot", "cot"]
LOCAL = "local"

DESCRIPTION = (
    "prompted LLM on any OpenAI-compatible server (zero-shot, few-shot with retrieved exemplars, "
    "chain-of-thought; optional confirmed/suspected grading). With `base_url: local` it runs the "
    "embedded SmolLM2-135M-Instruct, which proves the path works end to end, not clinical skill."
)


def clip(text: str, max_chars: int | None) -> str:
    """Cut a record to ``max_chars`` (for small local context windows); None keeps it whole."""
    return text if max_chars is None or len(text) <= max_chars else text[:max_chars] + "\n[…truncated]"


TOY_MODEL_CAVEAT = (
    "This system shows that the pipeline runs end to end; its scores say nothing about clinical skill."
)


def _caveat(manifest_inputs: dict[str, Any]) -> str | None:
    """Runs of the embedded SmolLM2-135M prove the path, not clinical skill; a hosted model of the
    same kind gets no caveat."""
    return TOY_MODEL_CAVEAT if (manifest_inputs.get("system_inputs") or {}).get("local_server") else None


@register("llm", DESCRIPTION, caveat=_caveat, answers=ANSWER_KINDS)
class LLMPredictor:
    """Options beyond :class:`LLMConfig`'s:

    ``prompt`` style; ``k`` exemplars and ``retriever`` (+ ``retriever_options``) for few-shot;
    ``exemplar_classes`` — which audited labels an exemplar shows; ``graded`` output;
    ``min_items``/``max_items``/``min_chars``/``max_chars`` of the list and
    ``reasoning_max_chars`` of the chain of thought; ``part_calls`` — ``per-part`` (default: each
    part of a multi-part target whose task gives per-part inputs in its own call,
    :mod:`admitdx.systems.part_calls`) or ``one`` (all parts in one call); ``max_input_chars`` cuts
    each record (default: whole — the papers use the full input); ``prompt_file`` replaces the
    shipped template; ``local_model``/``local_n_ctx`` configure the embedded server.
    """

    def __init__(
        self,
        *,
        prompt: PromptStyle = "zero-shot",
        k: int = 5,
        retriever: str = "bm25",
        retriever_options: dict[str, Any] | None = None,
        exemplar_classes: tuple[str, ...] | list[str] = ("supported", "partial"),
        graded: bool = False,
        min_items: int = 1,
        max_items: int = 20,
        min_chars: int = 3,
        max_chars: int = 70,
        reasoning_max_chars: int | None = None,
        max_input_chars: int | None = None,
        prompt_file: str | None = None,
        local_model: str | None = None,
        local_n_ctx: int = 2048,
        part_calls: str = "per-part",
        allow_hosts: list[AllowedHost] | None = None,
        endpoints: list[Any] | None = None,
        executor: Executor | None = None,
        task: TaskSpec,
        **llm_options: Any,
    ) -> None:
        if prompt not in ("zero-shot", "few-shot", "cot"):
            raise UsageError(f"prompt must be zero-shot, few-shot or cot (got {prompt!r})")
        if task.prompt_dir is None or task.prompt is None:
            raise UsageError(f"task {task.name} ships no prompt for LLM systems")
        self.task = task
        self.name = f"llm-{prompt}"
        self.style = prompt
        self.k = k
        self.exemplar_classes = tuple(exemplar_classes)
        self.graded = graded
        self.shape = ListShape(min_items, max_items, min_chars, max_chars, reasoning_max_chars)
        self.max_input_chars = max_input_chars
        self.template = load_prompt(prompt_file or task.prompt, task.prompt_dir)
        self.parts = text_parts(task.schema) if task.answer == "text" else ()
        if part_calls not in PART_CALLS:
            raise UsageError(f"part_calls must be one of {', '.join(PART_CALLS)} (got {part_calls!r})")
        # the task's parts in a call each (ER-Reason planning, tables 11-13), unless asked at once
        self.part_calls = part_calls if self.parts and task.part_records is not None else None
        self.schema = self._schema(reasoning=prompt == "cot")
        self.retriever = (
            make_retriever(retriever, **(retriever_options or {})) if prompt == "few-shot" else None
        )
        self._train: list[Instance] = []
        self.fit_summary: dict[str, Any] = {}
        self.samples: SampleLog | None = None
        self.local: LocalServer | None = None
        if llm_options.get("base_url") == LOCAL:
            # The embedded server starts only when there is something to predict (see predict()).
            self.local = LocalServer(model_path=local_model, n_ctx=local_n_ctx)
            defaults = dataclasses.asdict(self.local.config())
            llm_options = {**defaults, **{k: v for k, v in llm_options.items() if k != "base_url"}}
        liveness = self.local.check_alive if self.local is not None else None
        self.client = LLMClient(
            LLMConfig.from_options(llm_options), allow_hosts=allow_hosts, liveness=liveness
        )
        # where the calls run (admitdx.executors); every endpoint passes the egress guard here, first
        self.executor = or_local(executor)
        config = self.client.config
        self.endpoints = parse_endpoints(
            endpoints,
            base_url=config.base_url,
            concurrency=config.concurrency,
            allow_hosts=allow_hosts or [],
            proxy=config.proxy,
        )
        self.listed_endpoints = endpoints is not None

    def use_run_dir(self, out_dir: Path) -> None:
        """The embedded server, if any, logs to ``<out_dir>/llama-server.log``, and every request is
        logged to ``<out_dir>/samples.jsonl`` (:mod:`admitdx.systems.sample_log`); called by the runner."""
        self.samples = SampleLog(Path(out_dir) / SAMPLES_FILE)
        if self.local is not None:
            self.local.log_path = Path(out_dir) / LOG_NAME

    def _schema(self, *, reasoning: bool) -> dict[str, Any]:
        if self.task.answer == "category":
            return category_schema(self.task.categories, reasoning=reasoning)
        if self.task.answer == "text":
            return text_schema(reasoning=reasoning, parts=self.parts)
        return diagnosis_schema(self.shape, reasoning=reasoning, graded=self.graded)

    #: Options that change how a run executes, not what the model answers: the model's identity
    #: (:meth:`manifest_inputs`) records the ones that do, so a run resumes with another concurrency.
    execution_options = frozenset(f.name for f in dataclasses.fields(LLMConfig)) | {"endpoints", "executor"}

    def manifest_inputs(self) -> dict[str, Any]:
        """Prompt hash, model identity and egress decision: a change refuses to resume."""
        identity = self.client.config.identity()
        inputs = {"prompt": self.template.identity(), "llm": identity, "egress": self.client.egress}
        if self.local is not None:
            inputs["local_server"] = True
        if self.part_calls is not None:
            inputs["part_calls"] = self.part_calls
        if self.listed_endpoints:
            inputs["endpoints_egress"] = [e.egress for e in self.endpoints]
        return inputs

    # ------------------------------------------------------------------ fit
    def fit(self, train: list[Instance]) -> None:
        if self.retriever is None:
            return
        self._train = [t for t in train if self._exemplar_labels(t)]
        if not self._train:
            raise UsageError(
                "few-shot needs training instances with labels of the classes "
                f"{', '.join(self.exemplar_classes)}; none were found",
                hint="audit the dataset first (`admitdx audit`) or set exemplar_classes",
            )
        self._index_exemplars()
        self.fit_summary = {"exemplar_pool": len(self._train)}

    def _index_exemplars(self) -> None:
        """Index the exemplar pool by text (a subclass may retrieve by something else)."""
        self.retriever.fit([t.text for t in self._train])

    def _neighbours(self, inst: Instance) -> list[Hit]:
        """The pool positions of ``inst``'s ``k`` nearest exemplars, most similar first."""
        return self.retriever.query(inst.text, self.k)

    def _exemplar_labels(self, inst: Instance) -> list[Any]:
        if self.task.answer != "diagnoses":
            return [inst.target] if inst.target else []  # a text, category or {part: text}
        audited = any(r.evidence_class for r in inst.references)
        return [r.text for r in inst.references if not audited or r.evidence_class in self.exemplar_classes]

    def _exemplars(self, inst: Instance) -> list[dict[str, str]]:
        if self.retriever is None:
            return []
        hits = self._neighbours(inst)
        shown = []
        for hit in reversed(hits):  # most similar last, next to the question
            ex = self._train[hit.index]
            shown.append({"record": clip(ex.text, self.max_input_chars), "answer": self._exemplar_answer(ex)})
        return shown

    def _exemplar_answer(self, ex: Instance) -> str:
        """An exemplar's gold answer in the schema the model must answer in."""
        labels = self._exemplar_labels(ex)
        if self.task.answer != "diagnoses":
            return json.dumps(text_answer(labels[0]))
        labels = labels[: self.shape.max_items]
        answer = (
            [{"diagnosis": t, "status": "confirmed", "confidence": 1.0} for t in labels]
            if self.graded
            else labels
        )
        return json.dumps({"diagnoses": answer})

    # ------------------------------------------------------------------ predict
    def request(self, inst: Instance) -> ChatRequest:
        messages = self.template.render(
            record=clip(inst.text, self.max_input_chars),
            max_items=self.shape.max_items,
            reasoning=self.style == "cot",
            graded=self.graded,
            exemplars=self._exemplars(inst),
            categories=self.task.categories,
        )
        return ChatRequest(messages, self.schema, {"prompt": self.template.identity()})

    def part_request(self, inst: Instance, part: str) -> ChatRequest:
        """One part of a task asked by parts (:mod:`admitdx.systems.part_calls`): the part's own
        record, the part's exemplar answers, and a one-text schema."""
        records = self.task.part_records(inst.sections)  # type: ignore[misc]
        exemplars = []
        if self.retriever is not None:
            for hit in reversed(self._neighbours(inst)):
                ex = self._train[hit.index]
                answer = text_answer(ex.target[part])  # type: ignore[index]
                exemplars.append(
                    {
                        "record": clip(self.task.part_records(ex.sections)[part], self.max_input_chars),  # type: ignore[misc]
                        "answer": json.dumps(answer),
                    }
                )
        messages = self.template.render(
            record=clip(records[part], self.max_input_chars),
            part=part,
            reasoning=self.style == "cot",
            exemplars=exemplars,
            max_items=self.shape.max_items,
            graded=self.graded,
            categories=self.task.categories,
        )
        schema = text_schema(reasoning=self.style == "cot")
        return ChatRequest(messages, schema, {"prompt": self.template.identity(), "part": part})

    def to_prediction(self, inst: Instance, c: Completion) -> Prediction:
        error = c.parse_error
        items, answer, reasoning = [], None, None
        if error is None and self.task.answer == "diagnoses":
            read = read_diagnoses(c.parsed, self.shape.max_items)
            items, reasoning, error = read.items, read.reasoning, read.error
        elif error is None:
            one = (
                read_category(c.parsed, self.task.categories)
                if self.task.answer == "category"
                else read_text(c.parsed, self.parts)
            )
            answer, reasoning, error = one.answer, one.reasoning, one.error
        if error is not None and c.truncated is not None:
            # the answer read as JSON but not as the task's answer: the cut, not the model, is why
            error = truncation_error(c.truncated, self.client.config.max_tokens)
        return Prediction(
            instance_id=inst.id,
            system=self.name,
            items=items,
            rationale=reasoning,
            raw=c.raw,
            parse_error=error,
            usage=c.usage,
            latency_s=c.latency_s,
            answer=answer,
        )

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        todo = list(instances)
        if self.local is not None and todo:
            self.local.start()
        if self.part_calls == "per-part":
            try:
                yield from predict_parts(self, todo)
            finally:
                self._summarize()
            return
        # Requests are rendered as the executor pulls them and dropped once answered: a few-shot
        # prompt is several records long, so a whole test set of them would not fit in memory.
        pending: dict[int, ChatRequest] = {}

        def requests() -> Iterator[ChatRequest]:
            for i, inst in enumerate(todo):
                pending[i] = self.request(inst)
                yield pending[i]

        try:
            for i, completion in self.executor.map(self.client, requests(), self.endpoints):
                request = pending.pop(i)
                prediction = self.to_prediction(todo[i], completion)
                if self.samples is not None:
                    self.samples.write(request, completion, prediction)
                yield prediction
        finally:
            self._summarize()

    def tokens_over(self, records: list[dict[str, Any]]) -> dict[str, Any]:
        """The manifest's ``tokens`` over every line of the predictions file (the runner calls this
        when a run completes, resumed or not), priced as this run is."""
        return tally_lines(
            [r.get("usage") for r in records],
            per_line=len(self.parts) if self.part_calls == "per-part" else 1,
            cached=self.client.stats.tokens.cached,
            price_per_million=self.client.config.price_per_million,
        )

    def _summarize(self) -> None:
        """Record the client's and executor's counters in ``fit_summary``; stop the local server."""
        stats = self.client.stats
        self.fit_summary = {
            **self.fit_summary,
            "model_calls": stats.model_calls,
            "cache_hits": stats.cache_hits,
            "retries": stats.retries,
            "parse_failures": stats.parse_failures,
            **({"truncated": dict(stats.truncated)} if stats.truncated else {}),
            "tokens": stats.tokens.summary(self.client.config.price_per_million),
            **self.executor.summary(),
        }
        if self.local is not None:
            self.local.stop()
