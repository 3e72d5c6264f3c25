"""An LLM client for a system named on the command line (``--system NAME``); command-line glue
between the run configuration (systems) and the LLM layer, which knows nothing of systems.

``NAME`` is ``local`` (the embedded llama.cpp server with SmolLM2-135M-Instruct, started here and
stopped on exit) or a system in the ``--config`` YAML file whose options are LLM options. Only
:class:`LLMConfig` options are taken from that entry; a predictor's own options (``prompt``,
``k``, ``graded`` …) are ignored here, so the same entry can drive ``admitdx predict`` and
``admitdx audit``; ``base_url: local`` in it also means the embedded server. The config's
``allow_hosts`` feed the egress guard.

An embedded server logs to ``<log_dir>/llama-server.log`` (the stage's output directory) and is the
client's liveness check, so a server that dies mid-run is reported at once with its exit signal.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from admitdx.errors import UsageError

if TYPE_CHECKING:  # the LLM layer (httpx, NumPy) loads when a verb opens a client, not for `admitdx --help`
    from admitdx.llm.client import LLMClient


@contextmanager
def open_named_client(
    name: str | None,
    config_path: Path | None = None,
    *,
    defaults: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
    log_dir: Path | None = None,
) -> Iterator[LLMClient]:
    """Yield a client for ``name`` (None: no system, the options alone). LLM options come from,
    lowest to highest precedence: ``defaults`` (a stage's own, e.g. the teacher's temperature), the
    config entry, ``settings`` (``--set``). ``log_dir`` is where an embedded server's log goes (else
    the cache's log folder)."""
    from admitdx.llm.open import LLM_OPTIONS, LOCAL, open_llm_client
    from admitdx.systems.config import load_config

    run_config = load_config(config_path)
    options: dict[str, Any]
    if name is None:  # only the defaults and --set options
        options = {}
    elif name == LOCAL:
        options = {"base_url": LOCAL}
    elif name in run_config.systems:
        options = {k: v for k, v in run_config.systems[name].options.items() if k in LLM_OPTIONS}
    else:
        known = ", ".join(sorted(run_config.systems)) or "none in --config"
        raise UsageError(f"no LLM system named {name!r}", hint=f"use `local`, or one of: {known}")
    options = {**(defaults or {}), **options, **(settings or {})}
    with open_llm_client(options, run_config.allow_hosts, log_dir) as client:
        yield client
