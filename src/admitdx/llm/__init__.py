"""The LLM layer: one OpenAI-compatible client (cache, retries, egress guard) for every prompted stage.

Start here: :class:`LLMClient` and :class:`LLMConfig`; :class:`LocalServer` for the embedded model;
:mod:`admitdx.llm.servers` for each server's dialect, :mod:`admitdx.llm.reasoning` for thinking and
truncation, :mod:`admitdx.llm.usage` for token counts and cost.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Where each name lives. They load on first use (PEP 562), so a module that needs only
#: ``admitdx.llm.prompts`` or ``.egress`` does not pull the HTTP client (httpx) into `admitdx --help`.
_HOME = {
    "AllowedHost": "egress",
    "CacheMissError": "client",
    "ChatRequest": "client",
    "Completion": "client",
    "LLMCallError": "client",
    "LLMClient": "client",
    "LLMConfig": "config",
    "LocalServer": "local_server",
    "check_egress": "egress",
}
__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'admitdx.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(f"admitdx.llm.{_HOME[name]}"), name)
