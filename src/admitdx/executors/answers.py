"""What the driver of a cluster executor (Ray over HTTP, vLLM in the cluster) does with one request:
look it up in the response cache, and turn an answer from the cluster into a completion, cached
under the same key as the local client's (:meth:`LLMClient.request_identity`). The driver is the
only writer of the cache, so a rerun makes zero calls whichever executor filled it."""

from __future__ import annotations

from typing import Any

from admitdx.llm.cache import cache_key
from admitdx.llm.client import CacheMissError, ChatRequest, Completion, LLMClient

#: (raw text, usage, latency in seconds, finish reason) of one answered request.
Answer = tuple[str, Any, float | None, str | None]


def cached_completion(client: LLMClient, i: int, req: ChatRequest) -> Completion | None:
    """The cached completion of request ``i``, None on a miss; a miss in cache-only mode is an error."""
    hit = client.cache.get(cache_key(client.request_identity(req))) if client.cache else None
    if hit is not None:
        client.stats.cache_hits += 1
        return client.completion((hit.raw, hit.usage, hit.latency_s, hit.finish_reason), req, cached=True)
    if client.config.cache_only:
        raise CacheMissError(
            f"cache-only mode: no cached answer for request {i} to {client.config.model}",
            hint="run once without cache_only to fill the cache, or use a published cache_path",
        )
    return None


def fresh_completion(client: LLMClient, req: ChatRequest, answer: Answer) -> Completion:
    """A model call's answer, counted and put in the cache (when the client has one)."""
    client.stats.model_calls += 1
    if client.cache is not None:
        identity = client.request_identity(req)
        raw, usage, latency, finish = answer
        client.cache.put(
            cache_key(identity), identity, raw, usage=usage, latency_s=latency, finish_reason=finish
        )
    # read as the local client reads: same parse, same counts
    return client.completion(answer, req, cached=False)
