"""The Ray executor: shards of HTTP calls on Ray workers, the driver the only writer and cache owner.

Protocol (why it is exactly once):

1. The driver looks every request up in the response cache first (the same key as the local
   client, :meth:`LLMClient.request_identity`), so a rerun makes zero calls and ``cache_only``
   reproduces a run without Ray doing anything.
2. The misses are cut into shards of at most ``shard_size`` requests and handed to ``workers``
   Ray actors (:class:`~admitdx.executors.ray_worker.EndpointWorker`), each shard to the healthy
   endpoint with the most free slots: an endpoint never has more than its ``concurrency``
   requests in flight, summed over all workers.
3. A worker returns answers, never writes. The driver parses each, puts it in the cache and
   yields it once: a shard's answers are accepted only from the one result of that shard, so a
   retried shard cannot be counted twice.
4. A worker that dies mid-shard (``ray.kill``, kill -9, a lost node) loses only its shard's
   unreturned answers: the driver replaces the worker and sends the whole shard again (at most
   ``max_attempts`` times). An endpoint that fails a shard (its retries spent, or a refusal) is
   drained: it gets no new work, and the shard's unanswered requests go to another endpoint.
5. The runner appends what the system yields, so predictions.jsonl, resume and Ctrl-C behave as
   with the local executor. On exit the shards still in flight are cancelled.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from admitdx.errors import UsageError
from admitdx.executors.endpoints import Endpoint
from admitdx.executors.ray_cluster import connect, import_ray
from admitdx.executors.ray_worker import Answer, EndpointWorker, ShardResult
from admitdx.llm.cache import cache_key
from admitdx.llm.client import CacheMissError, ChatRequest, Completion, LLMCallError, LLMClient
from admitdx.llm.egress import AllowedHost
from admitdx.llm.parse import parse_output


@dataclass
class _Shard:
    indices: list[int]
    attempts: int = 0


@dataclass
class _EndpointState:
    endpoint: Endpoint
    in_flight: int = 0
    completions: int = 0
    failed_shards: int = 0
    drained: str | None = None  # the error that drained it

    def free(self) -> int:
        return 0 if self.drained else self.endpoint.concurrency - self.in_flight


@dataclass
class _Flight:
    shard: _Shard
    state: _EndpointState
    slot: int


@dataclass
class _Counts:
    worker_restarts: int = 0
    endpoints: list[_EndpointState] = field(default_factory=list)


class RayExecutor:
    kind = "ray"

    def __init__(
        self, *, address: str | None = None, workers: int = 2, shard_size: int = 8, max_attempts: int = 4
    ) -> None:
        if workers < 1 or shard_size < 1 or max_attempts < 1:
            raise UsageError(
                f"Ray workers, shard size and attempts must be positive ({workers}, {shard_size})"
            )
        self.ray = import_ray()
        self.n_workers = workers
        self.shard_size = shard_size
        self.max_attempts = max_attempts
        self._owns_ray = connect(address, num_cpus=workers)
        self.workers: list[Any] = []  # Ray actor handles, public for operators and fault tests
        self._remote = self.ray.remote(num_cpus=1, max_restarts=0)(EndpointWorker)
        self._counts = _Counts()

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Stop the workers, and the local Ray instance if this executor started it."""
        for worker in self.workers:
            self.ray.kill(worker)
        self.workers = []
        if self._owns_ray:
            self.ray.shutdown()
            self._owns_ray = False

    def summary(self) -> dict[str, Any]:
        endpoints = [
            {
                "url": s.endpoint.shown,
                "concurrency": s.endpoint.concurrency,
                "completions": s.completions,
                "failed_shards": s.failed_shards,
                "drained": s.drained,
            }
            for s in self._counts.endpoints
        ]
        return {
            "executor": {
                "kind": self.kind,
                "workers": self.n_workers,
                "shard_size": self.shard_size,
                "worker_restarts": self._counts.worker_restarts,
                "endpoints": endpoints,
            }
        }

    # ------------------------------------------------------------------ mapping
    def map(
        self, client: LLMClient, requests: Iterable[ChatRequest], endpoints: Sequence[Endpoint]
    ) -> Iterator[tuple[int, Completion]]:
        """Unlike the local client, the driver holds every request (a shard is resent whole after a
        worker dies, and a drained endpoint's remainder goes elsewhere)."""
        requests = list(requests)
        self._counts = _Counts(endpoints=[_EndpointState(e) for e in endpoints])
        misses: list[int] = []
        for i, req in enumerate(requests):
            hit = client.cache.get(cache_key(client.request_identity(req))) if client.cache else None
            if hit is not None:
                client.stats.cache_hits += 1
                yield (
                    i,
                    _completion(client, (hit.raw, hit.usage, hit.latency_s, hit.finish_reason), cached=True),
                )
            elif client.config.cache_only:
                raise CacheMissError(
                    f"cache-only mode: no cached answer for request {i} to {client.config.model}",
                    hint="run once without cache_only to fill the cache, or use a published cache_path",
                )
            else:
                misses.append(i)
        if misses:
            yield from self._dispatch(client, requests, misses)

    def _dispatch(
        self, client: LLMClient, requests: Sequence[ChatRequest], misses: list[int]
    ) -> Iterator[tuple[int, Completion]]:
        states = self._counts.endpoints
        size = min(self.shard_size, *(s.endpoint.concurrency for s in states))
        pending = deque(_Shard(misses[s : s + size]) for s in range(0, len(misses), size))
        allow = _allow_list(states)
        while len(self.workers) < self.n_workers:
            self.workers.append(self._remote.remote())
        load = [0] * len(self.workers)
        flight: dict[Any, _Flight] = {}
        try:
            while pending or flight:
                while pending and (state := max(states, key=_EndpointState.free)).free() >= len(
                    pending[0].indices
                ):
                    shard = pending.popleft()
                    slot = load.index(min(load))
                    batch = [requests[i] for i in shard.indices]
                    # the worker's connection pools are sized by the endpoint's concurrency
                    config = replace(client.config, concurrency=state.endpoint.concurrency)
                    ref = self.workers[slot].run.remote(config, state.endpoint.url, allow, batch)
                    flight[ref] = _Flight(shard, state, slot)
                    state.in_flight += len(shard.indices)
                    load[slot] += 1
                if not flight:
                    failures = "; ".join(f"{s.endpoint.shown}: {s.drained}" for s in states)
                    raise LLMCallError(
                        f"every endpoint failed, {len(pending)} shard(s) unanswered: {failures}"
                    )
                [ref], _ = self.ray.wait(list(flight), num_returns=1)
                f = flight.pop(ref)
                f.state.in_flight -= len(f.shard.indices)
                load[f.slot] -= 1
                result = self._result(ref, f)
                if result is None:
                    pending.appendleft(f.shard)
                    continue
                for j, answer in sorted(result.answers.items()):
                    client.stats.model_calls += 1
                    f.state.completions += 1
                    i = f.shard.indices[j]
                    key = cache_key(client.request_identity(requests[i]))
                    if client.cache is not None:
                        raw, usage, latency, finish = answer
                        client.cache.put(key, client.request_identity(requests[i]), raw, usage=usage,
                                         latency_s=latency, finish_reason=finish)  # fmt: skip
                    yield i, _completion(client, answer, cached=False)
                client.stats.retries += result.retries
                if result.error is not None:
                    f.state.drained, f.state.failed_shards = result.error, f.state.failed_shards + 1
                    left = [i for j, i in enumerate(f.shard.indices) if j not in result.answers]
                    pending.appendleft(_Shard(left, f.shard.attempts))
        finally:
            for ref in flight:
                self.ray.cancel(ref)

    def _result(self, ref: Any, f: _Flight) -> ShardResult | None:
        """The shard's result, or None after replacing a worker that died running it."""
        try:
            return self.ray.get(ref)
        except self.ray.exceptions.RayActorError as e:
            f.shard.attempts += 1
            self._counts.worker_restarts += 1
            if f.shard.attempts >= self.max_attempts:
                raise LLMCallError(
                    f"a Ray worker died {f.shard.attempts} times running the same shard of "
                    f"{len(f.shard.indices)} requests: {e}",
                    hint="check the workers' memory and logs (`ray logs`); finished answers are kept",
                ) from e
            self.workers[f.slot] = self._remote.remote()
            return None


def _allow_list(states: list[_EndpointState]) -> tuple[AllowedHost, ...]:
    """The attestations that let the driver's egress guard pass these endpoints (and their proxy):
    the workers' clients are built with exactly these, so the guard runs again on the worker."""
    allowed = {}
    for s in states:
        for hop in (s.endpoint.egress, s.endpoint.egress.get("proxy") or {}):
            if "attestation" in hop:
                allowed[hop["host"]] = AllowedHost(hop["host"], hop["attestation"])
    return tuple(allowed.values())


def _completion(client: LLMClient, answer: Answer, *, cached: bool) -> Completion:
    """Parse an answer as the local client does (same tolerant parser, same failure count)."""
    raw, usage, latency, finish = answer
    parsed = parse_output(raw)
    if not parsed.ok:
        client.stats.parse_failures += 1
    return Completion(raw, parsed.value, parsed.error, usage, latency, cached, finish)
