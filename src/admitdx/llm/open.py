"""A client for a set of LLM options, starting the embedded llama.cpp server when they say
``base_url: local``: what ``--system NAME`` on the command line (:mod:`admitdx.cli.named_llm`) and a
study's ``llm_audit`` both need, so it lives below both.

An embedded server logs to ``<log_dir>/llama-server.log`` (the stage's output directory) and is the
client's liveness check, so a server that dies mid-run is reported at once with its exit signal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from admitdx.llm.client import LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.llm.local_server import LOG_NAME, LocalServer

LOCAL = "local"  # base_url of the embedded server

#: The options of a system entry that configure its client (a predictor's own, such as ``prompt``,
#: are not among them), so one entry can drive ``predict`` and ``audit``.
LLM_OPTIONS = frozenset(f.name for f in dataclasses.fields(LLMConfig))


@contextmanager
def open_llm_client(
    options: dict[str, Any], allow_hosts: list[Any], log_dir: Path | None
) -> Iterator[LLMClient]:
    """A client for these LLM ``options``; ``base_url: local`` starts the embedded server (stopped on
    exit, logging to ``log_dir``), which is then the client's liveness check."""
    server = None
    if options.get("base_url") == LOCAL:
        server = LocalServer(log_path=log_dir / LOG_NAME if log_dir else None)
        options = {
            **dataclasses.asdict(server.config()),
            **{k: v for k, v in options.items() if k != "base_url"},
        }
    liveness = server.check_alive if server is not None else None
    client = LLMClient(LLMConfig.from_options(options), allow_hosts=allow_hosts, liveness=liveness)
    try:
        if server is not None:
            server.start()
        yield client
    finally:
        if server is not None:
            server.stop()
