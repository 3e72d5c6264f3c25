"""The Ray worker of the Ray executor: HTTP calls for one shard of requests, nothing else.

It is a plain class (Ray wraps it with ``ray.remote`` in the driver), so importing this module
needs no Ray. A worker writes nothing: it returns each answered request's raw text, usage, latency
and finish reason, and the driver parses, caches and appends them. Its client is built with the
run's allow-list, so the egress guard runs again on the worker's side before any request leaves.
A shard that meets an endpoint failure (retries spent, or a refusal) returns the answers it got
and the error; the driver drains that endpoint and sends the rest of the shard elsewhere.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

from admitdx.errors import UsageError
from admitdx.llm.client import ChatRequest, LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.llm.egress import AllowedHost

#: (raw text, usage, latency in seconds, finish reason) of one answered request.
Answer = tuple[str, Any, float | None, str | None]


@dataclass(frozen=True)
class ShardResult:
    answers: dict[int, Answer]  # position in the shard → its answer
    error: str | None  # why the endpoint stopped answering this shard, if it did
    retries: int
    pid: int


class EndpointWorker:
    """One worker process; it keeps a client per (configuration, endpoint) so a server's
    structured-output dialect, once learnt, holds for the following shards."""

    def __init__(self) -> None:
        self.clients: dict[tuple[LLMConfig, str, tuple[AllowedHost, ...]], LLMClient] = {}

    def pid(self) -> int:
        return os.getpid()

    async def run(
        self, config: LLMConfig, url: str, allow_hosts: tuple[AllowedHost, ...], requests: list[ChatRequest]
    ) -> ShardResult:
        client = self.clients.get((config, url, allow_hosts))
        if client is None:
            direct = replace(config, base_url=url, cache_path=None, cache_only=False)
            client = LLMClient(direct, allow_hosts=list(allow_hosts))
            self.clients[(config, url, allow_hosts)] = client
        retries_before = client.stats.retries
        answers: dict[int, Answer] = {}
        error = None
        try:
            async for j, c in client.amap(requests):
                answers[j] = (c.raw, c.usage, c.latency_s, c.finish_reason)
        except UsageError as e:  # LLMCallError: retries spent or refused; the driver drains the endpoint
            error = str(e)
        return ShardResult(answers, error, client.stats.retries - retries_before, os.getpid())
