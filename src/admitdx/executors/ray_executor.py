"""The Ray executor: shards of HTTP calls on Ray workers, the driver the only writer and cache owner.

Protocol (why it is exactly once):

1. The driver pulls requests from the stage lazily and looks each up in the response cache first
   (the same key as the local client, :meth:`LLMClient.request_identity`): a hit is yielded at
   once, so a rerun makes zero calls and ``cache_only`` reproduces a run without Ray doing anything.
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
5. Bounded memory: the driver holds only the requests not yet answered, at most a window of
   ``2 × (all endpoints' slots) + shard_size`` of them (pending or in flight); the next request is
   pulled from the stage once an answer frees a place. A 243k-label audit holds a few hundred
   prompts, not all of them (``bench/bench_ray.py --memory`` measures it).
6. The runner appends what the system yields, so predictions.jsonl, resume and Ctrl-C behave as
   with the local executor. On exit the shards still in flight are cancelled.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from admitdx.errors import UsageError
from admitdx.executors.answers import cached_completion, fresh_completion
from admitdx.executors.endpoints import Endpoint
from admitdx.executors.ray_cluster import connect, import_ray
from admitdx.executors.ray_worker import EndpointWorker, ShardResult
from admitdx.llm.client import ChatRequest, Completion, LLMCallError, LLMClient
from admitdx.llm.egress import AllowedHost


@dataclass
class _Shard:
    indices: list[int]
    attempts: int = 0


@dataclass
class _EndpointState:
    """One endpoint's load and its counts for the manifest: every request sent to it ends as a
    success or a failure (its shard failed there, or the worker running it died), so after a
    finished run ``requests == successes + failures``."""

    endpoint: Endpoint
    in_flight: int = 0
    requests: int = 0
    successes: int = 0
    failures: int = 0
    retries: int = 0
    failed_shards: int = 0
    drained: str | None = None  # the error that drained it

    def free(self) -> int:
        return 0 if self.drained else self.endpoint.concurrency - self.in_flight

    def counts(self) -> dict[str, Any]:
        return {
            "url": self.endpoint.shown,
            "concurrency": self.endpoint.concurrency,
            "requests": self.requests,
            "successes": self.successes,
            "failures": self.failures,
            "retries": self.retries,
            "failed_shards": self.failed_shards,
            "drained": self.drained,
        }


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
        self.peak_held = 0  # the most requests the driver held at once in the last map (for the bench)

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
        return {
            "executor": {
                "kind": self.kind,
                "workers": self.n_workers,
                "shard_size": self.shard_size,
                "worker_restarts": self._counts.worker_restarts,
                "endpoints": [s.counts() for s in self._counts.endpoints],
            }
        }

    # ------------------------------------------------------------------ mapping
    def map(
        self, client: LLMClient, requests: Iterable[ChatRequest], endpoints: Sequence[Endpoint]
    ) -> Iterator[tuple[int, Completion]]:
        """As lazy as the local client within a window: requests are pulled while fewer than the
        window are unanswered, and each is dropped once its answer is yielded."""
        self._counts = _Counts(endpoints=[_EndpointState(e) for e in endpoints])
        self.peak_held = 0
        size = min(self.shard_size, *(e.concurrency for e in endpoints))
        window = 2 * sum(e.concurrency for e in endpoints) + size
        source = enumerate(requests)
        held: dict[int, ChatRequest] = {}  # unanswered misses: pending, cut into shards, or in flight
        pending: deque[_Shard] = deque()
        loose: list[int] = []  # misses not yet in a shard
        flight: dict[Any, _Flight] = {}
        exhausted = False
        try:
            while True:
                while not exhausted and len(held) < window:
                    item = next(source, None)
                    if item is None:
                        exhausted = True
                        break
                    i, req = item
                    hit = cached_completion(client, i, req)
                    if hit is not None:
                        yield i, hit
                        continue
                    held[i] = req
                    loose.append(i)
                    if len(loose) == size:
                        pending.append(_Shard(loose))
                        loose = []
                if loose and (exhausted or len(held) >= window):
                    pending.append(_Shard(loose))
                    loose = []
                self.peak_held = max(self.peak_held, len(held))
                self._submit(client, held, pending, flight)
                if not flight:
                    if pending:
                        failures = "; ".join(
                            f"{s.endpoint.shown}: {s.drained}" for s in self._counts.endpoints
                        )
                        raise LLMCallError(
                            f"every endpoint failed, {len(pending)} shard(s) unanswered: {failures}"
                        )
                    if exhausted:
                        return
                    continue
                for i, completion in self._collect(client, held, pending, flight):
                    del held[i]
                    yield i, completion
        finally:
            for ref in flight:
                self.ray.cancel(ref)

    def _submit(
        self,
        client: LLMClient,
        held: dict[int, ChatRequest],
        pending: deque[_Shard],
        flight: dict[Any, _Flight],
    ) -> None:
        """Hand pending shards to workers while the freest healthy endpoint has room for the next."""
        states = self._counts.endpoints
        while pending and (state := max(states, key=_EndpointState.free)).free() >= len(pending[0].indices):
            if not self.workers:  # started at the first miss: a run answered from the cache starts none
                self.workers = [self._remote.remote() for _ in range(self.n_workers)]
            shard = pending.popleft()
            busy = [0] * len(self.workers)
            for f in flight.values():
                busy[f.slot] += 1
            slot = busy.index(min(busy))
            batch = [held[i] for i in shard.indices]
            # the worker's connection pools are sized by the endpoint's concurrency
            config = replace(client.config, concurrency=state.endpoint.concurrency)
            allow = _allow_list(states)
            ref = self.workers[slot].run.remote(config, state.endpoint.url, allow, batch)
            flight[ref] = _Flight(shard, state, slot)
            state.in_flight += len(shard.indices)
            state.requests += len(shard.indices)

    def _collect(
        self,
        client: LLMClient,
        held: dict[int, ChatRequest],
        pending: deque[_Shard],
        flight: dict[Any, _Flight],
    ) -> Iterator[tuple[int, Completion]]:
        """The answers of the next shard to finish; what it left unanswered goes back to ``pending``."""
        [ref], _ = self.ray.wait(list(flight), num_returns=1)
        f = flight.pop(ref)
        f.state.in_flight -= len(f.shard.indices)
        result = self._result(ref, f)
        if result is None:
            f.state.failures += len(f.shard.indices)
            pending.appendleft(f.shard)
            return
        f.state.retries += result.retries
        client.stats.retries += result.retries
        if result.error is not None:
            left = [i for j, i in enumerate(f.shard.indices) if j not in result.answers]
            f.state.drained, f.state.failed_shards = result.error, f.state.failed_shards + 1
            f.state.failures += len(left)
            pending.appendleft(_Shard(left, f.shard.attempts))
        for j, answer in sorted(result.answers.items()):
            i = f.shard.indices[j]
            f.state.successes += 1
            yield i, fresh_completion(client, held[i], answer)

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
