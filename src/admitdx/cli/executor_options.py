"""The ``--executor`` options shared by the model stages (predict, audit, match), and the endpoints of a
named system for stages that take only its LLM options."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from admitdx.executors import Endpoint, Executor, make_executor, parse_endpoints

if TYPE_CHECKING:  # an annotation only: `admitdx --help` does not load the HTTP client (httpx)
    from admitdx.llm.client import LLMClient

ExecutorOption = Annotated[
    str,
    typer.Option(
        "--executor",
        help="Where the LLM calls run: local (this process), ray (shards on Ray workers, spread over "
        "the system's `endpoints`; needs the ray extra) or vllm (the system's `model` run by vLLM on the "
        "Ray cluster's GPUs, one engine per --ray-workers; needs vllm).",
    ),
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="Ray cluster to join: auto, HOST:PORT or ray://HOST:PORT (default: start a local instance).",
    ),
]
RayWorkersOption = Annotated[
    int, typer.Option("--ray-workers", min=1, help="Ray worker actors (vllm: engine replicas, a GPU each).")
]
RayShardOption = Annotated[
    int,
    typer.Option(
        "--ray-shard-size",
        min=1,
        help="Requests per shard handed to a Ray worker (vllm: Ray Data batch size).",
    ),
]


@contextmanager
def open_executor(kind: str, address: str | None, workers: int, shard_size: int) -> Iterator[Executor]:
    """The executor for the stage; its workers (and a Ray instance it started) end with the block."""
    executor = make_executor(kind, address=address, workers=workers, shard_size=shard_size)
    try:
        yield executor
    finally:
        executor.close()


def named_endpoints(name: str, config_path: Path | None, client: LLMClient) -> list[Endpoint] | None:
    """The ``endpoints`` of system ``name`` in the config file, egress-checked; None when it lists none."""
    from admitdx.systems.config import load_config

    run_config = load_config(config_path)
    entry = run_config.systems.get(name)
    listed = entry.options.get("endpoints") if entry is not None else None
    if listed is None:
        return None
    config = client.config
    return parse_endpoints(
        listed,
        base_url=config.base_url,
        concurrency=config.concurrency,
        allow_hosts=run_config.allow_hosts,
        proxy=config.proxy,
    )
