"""The vLLM executor: the model runs inside the Ray cluster, on its GPUs, with Ray Data's LLM batch
processing (``ray.data.llm``: :class:`vLLMEngineProcessorConfig` and ``build_processor``), for a lab
that has GPUs but no model servers.

The same requests as the HTTP path: the stage's chat messages go through the model's chat template
(as an OpenAI-compatible vLLM server applies it), each request's JSON schema is guided decoding
(vLLM's ``structured_outputs={"json": schema}``, what the server does for ``json_schema``), and the
system's sampling options (temperature, max_tokens, seed, top_p) are vLLM's sampling parameters.
The ``thinking`` option switches a reasoning model's thinking as a vLLM server's ``chat_template_kwargs:
{enable_thinking}`` does (:mod:`admitdx.llm.servers`): here the chat template is applied by Ray Data's
chat-template stage, so it goes to that stage (``ChatTemplateStageConfig.chat_template_kwargs``); the
thinking the model writes inline in ``<think>`` tags is split off by the client like any other.
The answers are parsed by the same tolerant parser and cached under the same key as the HTTP
client's (model, revision, messages, sampling, schema), so the output files, the manifest, resume
and ``cache_only`` are those of the other executors.

Protocol:

1. The driver pulls requests from the stage and looks each up in the cache; a hit is yielded at once.
2. Misses become rows ``{i, request}`` (the request as JSON), put into Ray's object store a chunk at a
   time (``ray.data.from_items``), so the driver's memory holds one chunk, not the run.
3. One Ray Data pipeline over all chunks (chat template → tokenize → vLLM engine × ``replicas`` GPUs →
   detokenize) streams rows back; the driver caches and yields each as it arrives, the only writer.
   Loading the engine once per run is why the chunks are one dataset, not one pipeline each.
4. A row the engine fails (``__inference_error__``, e.g. a prompt over the context length) is not
   cached; the others are kept and the stage ends with an error naming it, so a rerun asks only for
   what failed. A lost engine actor is restarted by Ray Data and its batches retried.

Not run on a GPU in this repository's CI (no GPU, and vLLM pins a CUDA torch): the checks before any
work (GPUs, vLLM, a model) are tested on a real local Ray instance; the GPU test skips with its reason.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict
from functools import partial
from types import ModuleType
from typing import Any

from admitdx.executors.answers import cached_completion, fresh_completion
from admitdx.executors.base import only_base_url
from admitdx.executors.endpoints import Endpoint
from admitdx.executors.ray_cluster import connect, import_ray
from admitdx.executors.vllm_cluster import (
    check_gpus,
    import_ray_data_llm,
    model_source,
    require_vllm,
)
from admitdx.llm.client import ChatRequest, Completion, LLMCallError, LLMClient
from admitdx.llm.servers import PROFILES, Thinking

#: Rows handed to Ray's object store at a time: the most the driver holds of a run's prompts.
CHUNK_ROWS = 1024


def engine_row(row: dict[str, Any], *, sampling: dict[str, Any], guided: bool) -> dict[str, Any]:
    """Ray Data preprocess, on the cluster: a request's messages and sampling parameters, with its
    schema as guided decoding. The schema travels as a JSON string: as a nested column, Arrow would
    fill the keys one row's schema lacks with nulls."""
    request = json.loads(row["request"])
    params = dict(sampling)
    if guided:
        params["structured_outputs"] = {"json": json.dumps(request["schema"])}
    return {
        "i": row["i"],
        "request": row["request"],
        "messages": request["messages"],
        "sampling_params": params,
    }


def answer_row(row: dict[str, Any]) -> dict[str, Any]:
    """Ray Data postprocess, on the cluster: what the driver keeps of an answered row."""
    return {
        "i": int(row["i"]),
        "request": row["request"],
        "text": str(row["generated_text"]),
        "prompt_tokens": int(row["num_input_tokens"]),
        "completion_tokens": int(row["num_generated_tokens"]),
        "latency_s": float(row["time_taken_llm"]),
    }


def template_kwargs(thinking: Thinking) -> dict[str, Any] | None:
    """What the chat template is told about thinking: a vLLM server's ``chat_template_kwargs`` for the
    same option (None when ``thinking`` is unset: the template's own default)."""
    return PROFILES["vllm"].thinking_fields(thinking).get("chat_template_kwargs")


def processor(
    llm: ModuleType,
    *,
    model: str,
    replicas: int,
    batch_size: int,
    sampling: dict[str, Any],
    guided: bool,
    thinking: Thinking = None,
) -> Any:
    """The Ray Data LLM processor (``llm`` is ``ray.data.llm``). Failed rows are kept with
    ``__inference_error__`` rather than failing the run."""
    kwargs = template_kwargs(thinking)
    return llm.build_processor(
        llm.vLLMEngineProcessorConfig(
            model_source=model,
            concurrency=replicas,
            batch_size=batch_size,
            should_continue_on_error=True,
            log_engine_metrics=False,
            # the stage's defaults unless thinking is switched (then the template reads enable_thinking)
            chat_template_stage={"chat_template_kwargs": kwargs} if kwargs else True,
        ),
        preprocess=partial(engine_row, sampling=sampling, guided=guided),
        postprocess=answer_row,
    )


def pipeline(llm: ModuleType, dataset: Any, **options: Any) -> Any:
    """The lazy Ray Data pipeline: rows ``{i, request}`` in, answered rows out (see :func:`processor`)."""
    return processor(llm, **options)(dataset)


class VllmExecutor:
    kind = "vllm"

    def __init__(self, *, address: str | None = None, replicas: int = 1, batch_size: int = 64) -> None:
        """Checks, in this order, before any work: Ray importable, the cluster joined, its GPUs (one
        per engine replica), vLLM and Ray Data's LLM API importable."""
        self.ray = import_ray()
        self.replicas = replicas
        self.batch_size = batch_size
        self._owns_ray = connect(address, num_cpus=os.cpu_count() or 1)
        try:
            where = f"the Ray cluster at {address}" if address else "the local Ray instance"
            self.gpus = check_gpus(self.ray.cluster_resources(), replicas=replicas, where=where)
            require_vllm()
            self.llm = import_ray_data_llm()
        except BaseException:
            self.close()
            raise
        self._counts = {"requests": 0, "successes": 0, "failures": 0}
        self.model = ""

    def close(self) -> None:
        """Stop the local Ray instance if this executor started it (the engines end with their dataset)."""
        if self._owns_ray:
            self.ray.shutdown()
            self._owns_ray = False

    def summary(self) -> dict[str, Any]:
        """The engine in the manifest as one endpoint, with the same counts as an HTTP endpoint's."""
        engine = {"url": f"vllm in the cluster: {self.model}", "concurrency": self.replicas, **self._counts}
        return {
            "executor": {
                "kind": self.kind,
                "replicas": self.replicas,
                "batch_size": self.batch_size,
                "gpus": self.gpus,
                "endpoints": [{**engine, "retries": 0}],
            }
        }

    def map(
        self, client: LLMClient, requests: Iterable[ChatRequest], endpoints: Sequence[Endpoint]
    ) -> Iterator[tuple[int, Completion]]:
        only_base_url(
            "the vllm executor runs the model in the cluster and calls no endpoint",
            client,
            endpoints,
            hint="run with --executor ray to spread the requests over the listed servers, "
            "or drop `endpoints`",
        )
        self.model = model_source(client.config.model)
        self._counts = {"requests": 0, "successes": 0, "failures": 0}
        guided = client.config.structured != "none"
        parts = []
        chunk: list[dict[str, Any]] = []
        for i, req in enumerate(requests):
            hit = cached_completion(client, i, req)
            if hit is not None:
                yield i, hit
                continue
            if guided and req.schema is None:
                raise LLMCallError(
                    f"request {i} has no JSON schema, and the vllm executor guides every request of a run",
                    hint="set `structured: none` for this system to send none",
                )
            chunk.append({"i": i, "request": json.dumps(asdict(req))})
            self._counts["requests"] += 1
            if len(chunk) == CHUNK_ROWS:
                parts.append(self.ray.data.from_items(chunk))
                chunk = []
        if chunk:
            parts.append(self.ray.data.from_items(chunk))
        if parts:
            yield from self._generate(client, parts[0].union(*parts[1:]) if len(parts) > 1 else parts[0])

    def _generate(self, client: LLMClient, dataset: Any) -> Iterator[tuple[int, Completion]]:
        """Run the one pipeline and yield each answer as its row comes back."""
        sampling = client.config.sampling()
        rows = pipeline(
            self.llm,
            dataset,
            model=self.model,
            replicas=self.replicas,
            batch_size=self.batch_size,
            sampling=sampling,
            guided=client.config.structured != "none",
            thinking=client.config.thinking,
        )
        failed: list[tuple[int, str]] = []
        for row in rows.iter_rows():
            if row.get("__inference_error__"):
                self._counts["failures"] += 1
                failed.append((int(row["i"]), str(row["__inference_error__"])))
                continue
            self._counts["successes"] += 1
            usage = {
                "prompt_tokens": row["prompt_tokens"],
                "completion_tokens": row["completion_tokens"],
                "total_tokens": row["prompt_tokens"] + row["completion_tokens"],
            }
            # vLLM's offline output has no finish reason here: a full token budget means it was cut
            finish = "length" if row["completion_tokens"] >= sampling["max_tokens"] else "stop"
            req = ChatRequest(**json.loads(row["request"]))
            yield row["i"], fresh_completion(client, req, (row["text"], usage, row["latency_s"], finish))
        if failed:
            i, error = min(failed)
            raise LLMCallError(
                f"the vLLM engine failed {len(failed)} request(s), e.g. request {i}: {error}",
                hint="the answered requests are kept; rerun to ask again for the rest (a prompt over the "
                "model's context needs max_input_chars, or a model with a longer context)",
            )
