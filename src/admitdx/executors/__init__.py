"""Where a model stage's calls run: in this process (``local``), on a Ray cluster against HTTP
endpoints (``ray``), or on a Ray cluster's GPUs with vLLM inside it (``vllm``). See README.md here.

Infrastructure next to :mod:`admitdx.llm` (it imports only the LLM client and the kernel), so the
auditors, the systems and the LLM judge can all take an executor. Ray (and vLLM) are optional and
imported only when ``--executor ray`` (``vllm``) is chosen.
"""

from __future__ import annotations

from typing import Literal

from admitdx.errors import UsageError
from admitdx.executors.base import Executor, LocalExecutor
from admitdx.executors.endpoints import Endpoint, parse_endpoints

ExecutorKind = Literal["local", "ray", "vllm"]

__all__ = [
    "Endpoint",
    "Executor",
    "ExecutorKind",
    "LocalExecutor",
    "make_executor",
    "or_local",
    "parse_endpoints",
]


def or_local(executor: object) -> Executor:
    """The executor a stage was given, or the local one; a config value in its place (``executor: ray``
    in a YAML file, ``--set executor=ray``) is a usage error, since it is chosen with --executor."""
    if executor is None:
        return LocalExecutor()
    if not callable(getattr(executor, "map", None)):
        raise UsageError(
            f"`executor: {executor!r}` is not a configuration option",
            hint="choose where the calls run with --executor local|ray",
        )
    return executor  # type: ignore[return-value]


def make_executor(
    kind: str, *, address: str | None = None, workers: int = 2, shard_size: int = 8
) -> Executor:
    """The executor for ``--executor``; Ray is imported (and joined or started) only for ``ray`` and
    ``vllm``. For ``vllm``, ``workers`` is the number of engine replicas (one GPU each) and
    ``shard_size`` Ray Data's batch size."""
    if kind == "local":
        if address is not None:
            raise UsageError("--ray-address is given but --executor is local", hint="add --executor ray")
        return LocalExecutor()
    if kind == "ray":
        from admitdx.executors.ray_executor import RayExecutor

        return RayExecutor(address=address, workers=workers, shard_size=shard_size)
    if kind == "vllm":
        from admitdx.executors.vllm_executor import VllmExecutor

        return VllmExecutor(address=address, replicas=workers, batch_size=shard_size)
    raise UsageError(f"--executor must be local, ray or vllm (got {kind!r})")
