"""The executor protocol: how a model stage turns chat requests into completions.

A system builds its :class:`~admitdx.llm.client.ChatRequest` objects and turns completions into
predictions; *where* the HTTP calls run is the executor's business. The local executor is the
client's own concurrent ``map`` (unchanged behaviour); the Ray executor (:mod:`.ray_executor`) shards
the calls across Ray workers and several endpoints while the driver stays the only writer and the
owner of the response cache.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from admitdx.errors import UsageError
from admitdx.executors.endpoints import Endpoint

if TYPE_CHECKING:  # annotations only: the HTTP client (httpx) is not loaded to list the CLI's options
    from admitdx.llm.client import ChatRequest, Completion, LLMClient


class Executor(Protocol):
    """Maps requests to ``(index, completion)`` pairs as each completes, every index exactly once."""

    kind: str

    def map(
        self, client: LLMClient, requests: Iterable[ChatRequest], endpoints: Sequence[Endpoint]
    ) -> Iterator[tuple[int, Completion]]: ...

    def summary(self) -> dict[str, Any]:
        """What the manifest's ``outputs.fit`` records about the execution ({} when nothing to say)."""
        ...

    def close(self) -> None:
        """Release workers and connections (called once the stage is over)."""
        ...


class LocalExecutor:
    """Today's path: one process, the client's bounded-concurrency ``map`` against its base URL."""

    kind = "local"

    def map(
        self, client: LLMClient, requests: Iterable[ChatRequest], endpoints: Sequence[Endpoint]
    ) -> Iterator[tuple[int, Completion]]:
        """Lazy, as before: the client pulls requests only as slots free up."""
        only_base_url(
            "the local executor calls only base_url",
            client,
            endpoints,
            hint="run with --executor ray to spread the requests over every endpoint, or drop `endpoints`",
        )
        return client.map(iter(requests))

    def summary(self) -> dict[str, Any]:
        """The local executor adds nothing, so local manifests stay as they were."""
        return {}

    def close(self) -> None:
        """Nothing to release: the client's pools close with each ``map``."""


def only_base_url(why: str, client: LLMClient, endpoints: Sequence[Endpoint], *, hint: str) -> None:
    """Refuse listed endpoints an executor would not call (silently ignoring them would mislead)."""
    if [e.url for e in endpoints] != [client.config.base_url]:
        raise UsageError(f"{len(endpoints)} endpoint(s) are listed, but {why}", hint=hint)
