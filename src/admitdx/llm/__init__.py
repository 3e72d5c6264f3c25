"""The LLM layer: one OpenAI-compatible client (cache, retries, egress guard) for every prompted stage.

Start here: :class:`LLMClient` and :class:`LLMConfig`; :class:`LocalServer` for the embedded model;
:mod:`admitdx.llm.servers` for each server's dialect, :mod:`admitdx.llm.reasoning` for thinking and
truncation, :mod:`admitdx.llm.usage` for token counts and cost.
"""

from admitdx.llm.client import CacheMissError, ChatRequest, Completion, LLMCallError, LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.llm.egress import AllowedHost, check_egress
from admitdx.llm.local_server import LocalServer

__all__ = [
    "AllowedHost",
    "CacheMissError",
    "ChatRequest",
    "Completion",
    "LLMCallError",
    "LLMClient",
    "LLMConfig",
    "LocalServer",
    "check_egress",
]
