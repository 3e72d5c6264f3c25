"""The Ray worker of the Ray executor: HTTP calls for one shard of requests, nothing else.

It is a plain class (Ray wraps it with ``ray.remote`` in the driver), so importing this module
needs no Ray. A worker writes nothing: it returns each answered request's raw text, usage, latency
and finish reason, and the driver parses, caches and appends them. Its client is built with the
run's allow-list, so the egress guard runs again on the worker's side before any request leaves.
A shard that meets an endpoint failure (retries spent, or a refusal) returns the answers it got
and the error; the driver drains that endpoint and sends the rest of the shard elsewhere.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, replace
from typing import Any

from admitdx.errors import UsageError
from admitdx.executors.answers import Answer
from admitdx.llm.client import ChatRequest, LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.llm.egress import AllowedHost
from admitdx.llm.reasoning import join_thinking


@dataclass(frozen=True)
class ShardResult:
    answers: dict[int, Answer]  # position in the shard → its answer
    error: str | None  # why the endpoint stopped answering this shard, if it did
    retries: int
    pid: int


class EndpointWorker:
    """One worker process; it keeps a client and its connection pools per (configuration, endpoint,
    allow-list), so a server's structured-output dialect, once learnt, holds for the following shards,
    and no shard pays for new connections and TLS contexts (~0.1 s of CPU each on a loaded machine,
    more than a shard's own work). The driver keeps each endpoint's requests in flight within its
    concurrency, so a shard runs all its requests at once."""

    def __init__(self) -> None:
        self.clients: dict[tuple[LLMConfig, str, tuple[AllowedHost, ...]], tuple[LLMClient, list[Any]]] = {}

    def pid(self) -> int:
        return os.getpid()

    def _client(
        self, config: LLMConfig, url: str, allow_hosts: tuple[AllowedHost, ...]
    ) -> tuple[LLMClient, list[Any]]:
        key = (config, url, allow_hosts)
        if key not in self.clients:
            direct = replace(config, base_url=url, cache_path=None, cache_only=False)
            client = LLMClient(direct, allow_hosts=list(allow_hosts))  # the egress guard, on this side
            self.clients[key] = (client, client.connection_pools())
        return self.clients[key]

    async def run(
        self, config: LLMConfig, url: str, allow_hosts: tuple[AllowedHost, ...], requests: list[ChatRequest]
    ) -> ShardResult:
        client, pools = self._client(config, url, allow_hosts)
        retries_before = client.stats.retries
        answers: dict[int, Answer] = {}

        async def one(j: int, req: ChatRequest) -> None:
            c = await client.acomplete(pools[j % len(pools)], req)
            answers[j] = (join_thinking(c.reasoning, c.raw), c.usage, c.latency_s, c.finish_reason)

        tasks = [asyncio.create_task(one(j, req)) for j, req in enumerate(requests)]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        failures = [t.exception() for t in tasks if not t.cancelled() and t.exception() is not None]
        unexpected = [e for e in failures if not isinstance(e, UsageError)]
        if unexpected:
            raise unexpected[0]  # a bug, not an endpoint failure: the driver reports it as it is
        # LLMCallError: retries spent or refused; the driver drains the endpoint and redoes the rest
        error = str(failures[0]) if failures else None
        return ShardResult(answers, error, client.stats.retries - retries_before, os.getpid())
