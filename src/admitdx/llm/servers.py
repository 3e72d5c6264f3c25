"""Server dialects as named profiles: what each kind of server wants in a chat request.

Every server admitdx talks to speaks "OpenAI-compatible" chat completions, and every one differs in
the details that decide whether a request is refused or silently misread. A profile names, for one
kind of server, each such detail, read from the server's own documentation (the ``docs`` pages):

- ``structured``: how a JSON schema is sent (``json_schema`` is OpenAI's ``response_format`` form;
  ``json_object`` is ``{"type": "json_object", "schema": …}``, llama-cpp-python's form);
- ``token_field``: the name of the output-token limit (OpenAI deprecated ``max_tokens`` for
  ``max_completion_tokens``, and its reasoning models refuse the old name with HTTP 400);
- ``thinking_refuses``: sampling fields the server refuses once a reasoning model answers
  (OpenAI's reasoning models accept only the default temperature and top_p);
- ``thinking``: how thinking is switched on or off in the request: the chat template's
  ``enable_thinking`` (Qwen3 and its kin on vLLM, SGLang, llama.cpp) or ``reasoning_effort``
  (OpenAI, Azure OpenAI, Ollama, whose ``"none"`` turns thinking off);
- ``auth`` and ``api_version``: ``Authorization: Bearer`` everywhere except Azure OpenAI, which takes
  an ``api-key`` header, the deployment in the URL path and an ``api-version`` query parameter.

``auto`` is the default and keeps admitdx's behaviour from before profiles: the OpenAI form first,
llama-cpp-python's the moment the server refuses it, ``max_tokens``, and thinking fields read from
every response whatever the server. A named profile sends its own dialect from the first request.
Thinking is *read* the same way for every profile (:mod:`admitdx.llm.reasoning`): only the request
side differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from admitdx.errors import UsageError

ThinkingSwitch = Literal["chat_template", "reasoning_effort"]
Thinking = bool | str | None
#: ``reasoning_effort`` values documented by OpenAI (``none`` since GPT-5.1, ``minimal`` for GPT-5).
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
#: The effort ``thinking: true`` asks for where the switch is an effort (OpenAI's documented default).
DEFAULT_EFFORT = "medium"
#: Azure OpenAI's GA data-plane inference version when none is given (its REST reference lists it);
#: reasoning models need a later one: set ``api_version`` to the version your deployment documents.
AZURE_API_VERSION = "2024-10-21"


@dataclass(frozen=True)
class ServerProfile:
    """One server kind's request dialect; ``docs`` is where each field was read."""

    name: str
    docs: tuple[str, ...]
    structured: Literal["json_schema", "json_object"]
    token_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    thinking: ThinkingSwitch = "chat_template"
    thinking_refuses: tuple[str, ...] = ()
    auth: Literal["bearer", "api-key"] = "bearer"
    api_version: bool = False

    def thinking_fields(self, thinking: Thinking) -> dict[str, Any]:
        """The request fields that switch thinking; none when ``thinking`` is None (server default)."""
        if thinking is None:
            return {}
        effort = thinking if isinstance(thinking, str) else (DEFAULT_EFFORT if thinking else "none")
        if self.thinking == "reasoning_effort":
            return {"reasoning_effort": effort}
        # Qwen3's template reads enable_thinking; a template that reads no such variable ignores it.
        return {"chat_template_kwargs": {"enable_thinking": effort != "none"}}

    def request_url(self, base_url: str, api_version: str | None, path: str = "chat/completions") -> str:
        """``{base_url}/{path}``, with Azure's ``api-version`` query where the profile needs it."""
        url = base_url.rstrip("/") + "/" + path
        if self.api_version:
            url += f"?api-version={api_version or AZURE_API_VERSION}"
        return url

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"api-key": key} if self.auth == "api-key" else {"Authorization": f"Bearer {key}"}


_OPENAI_DOCS = "https://platform.openai.com/docs/api-reference/chat/create"

PROFILES: dict[str, ServerProfile] = {
    p.name: p
    for p in (
        ServerProfile(
            "auto",
            ("the vllm and llama.cpp profiles, chosen from the server's answers",),
            structured="json_schema",
        ),
        ServerProfile(
            "openai-compatible",
            (_OPENAI_DOCS,),
            structured="json_schema",
        ),
        ServerProfile(
            "vllm",
            (
                "https://docs.vllm.ai/en/stable/features/structured_outputs/",
                "https://docs.vllm.ai/en/stable/features/reasoning_outputs/",
                "https://docs.vllm.ai/en/stable/serving/openai_compatible_server/",
            ),
            structured="json_schema",
        ),
        ServerProfile(
            "sglang",
            (
                "https://docs.sglang.ai/advanced_features/structured_outputs.html",
                "https://docs.sglang.ai/advanced_features/separate_reasoning.html",
            ),
            structured="json_schema",
        ),
        ServerProfile(
            "llama.cpp",
            (
                "https://llama-cpp-python.readthedocs.io/en/latest/server/",
                "https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md",
            ),
            structured="json_object",
        ),
        ServerProfile(
            "ollama",
            ("https://github.com/ollama/ollama/blob/main/docs/openai.md",),
            structured="json_schema",
            thinking="reasoning_effort",
        ),
        ServerProfile(
            "openai",
            (_OPENAI_DOCS, "https://platform.openai.com/docs/guides/reasoning"),
            structured="json_schema",
            token_field="max_completion_tokens",
            thinking="reasoning_effort",
            thinking_refuses=("temperature", "top_p"),
        ),
        ServerProfile(
            "azure",
            (
                "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference",
                "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/reasoning",
            ),
            structured="json_schema",
            token_field="max_completion_tokens",
            thinking="reasoning_effort",
            thinking_refuses=("temperature", "top_p"),
            auth="api-key",
            api_version=True,
        ),
    )
}


def profile(name: str) -> ServerProfile:
    """The profile ``name``, or a UsageError listing the known ones."""
    if name not in PROFILES:
        raise UsageError(f"unknown server {name!r}", hint=f"server is one of: {', '.join(PROFILES)}")
    return PROFILES[name]


def check_thinking(value: object) -> None:
    """``thinking`` is true, false, an effort name, or absent (the server's default)."""
    if value is None or isinstance(value, bool) or value in EFFORTS:
        return
    raise UsageError(
        f"thinking must be true, false or one of {', '.join(EFFORTS)} (got {value!r})",
        hint="leave it out to keep the server's default",
    )
