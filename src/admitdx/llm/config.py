"""Per-system LLM settings: where the model is, how to sample, how hard to push the server.

One :class:`LLMConfig` describes one endpoint + model. It comes from a system's block in the
``admitdx predict --config`` YAML file (``systems: {NAME: {kind: llm, base_url: ..., model: ...}}``)
or from command-line options, through :meth:`LLMConfig.from_options`, which rejects unknown keys so
that a typo (``temprature``) is an error rather than a silent default.

Defaults follow EarlyDx appendix K: greedy decoding (temperature 0) for inference, the verifier and
the judge; the rationale teacher overrides it with 0.3. ``max_tokens`` defaults to 1500, CliniBench's
cap for guided JSON output (EarlyDx allows 2048 new tokens; set it per system when reasoning is long).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from admitdx.embeddings import cache_root
from admitdx.errors import UsageError
from admitdx.llm.servers import PROFILES, ServerProfile, Thinking, check_thinking, profile
from admitdx.llm.urls import check_url, is_loopback

StructuredDialect = Literal["auto", "json_schema", "json_object", "none"]


def default_cache_path() -> Path:
    """``$ADMITDX_CACHE_DIR/llm.sqlite`` (default ``~/.cache/admitdx``), beside the embedding and
    lexicon caches: a ``.admitdx-cache/`` in the working directory appeared wherever a command
    ran, and a rerun from another folder paid every call again (issue 23). Read when a config is
    made, so the variable set after import counts."""
    return cache_root() / "llm.sqlite"


@dataclass(frozen=True)
class LLMConfig:
    """Connection, sampling and resilience settings of one OpenAI-compatible endpoint.

    ``structured`` chooses how a JSON schema is sent: ``json_schema`` is the OpenAI/vLLM/SGLang
    form, ``json_object`` is llama-cpp-python's (``{"type": "json_object", "schema": ...}``),
    ``none`` sends no constraint (the output is still parsed tolerantly), and ``auto`` starts with
    ``json_schema`` and switches to ``json_object`` for the rest of the run the first time the
    server rejects it with a 400/422.

    Retries back off exponentially with full jitter from ``backoff_initial_s`` up to
    ``backoff_max_s``; a server's ``Retry-After`` overrides that, up to ``retry_after_max_s``.

    ``proxy`` routes the requests through an HTTP proxy; its host needs an ``allow_hosts`` entry
    with an attestation (see :mod:`admitdx.llm.egress`). The environment's proxy variables are
    never used.

    ``server`` names the server's dialect (:mod:`admitdx.llm.servers`: vllm, sglang, llama.cpp,
    ollama, openai, azure, openai-compatible); ``auto`` learns it from the server's refusals.
    ``thinking`` switches a reasoning model's thinking on or off (true, false, or an effort name);
    None leaves the server's default and sends nothing. ``api_version`` is Azure OpenAI's
    ``api-version``. ``price_per_million`` (``{prompt: USD, completion: USD}``) turns the run's token
    counts into a cost line; it changes no answer, so it is in neither the cache key nor the identity.
    ``tokenizer`` (the model's ``tokenizer.json`` or its folder) counts tokens where the server
    reports no ``usage`` (:mod:`admitdx.llm.usage`).

    ``model_revision`` names the exact weights (a GGUF file hash, a Hugging Face revision, an API
    snapshot date): it enters the cache key next to ``model``, because a server alias such as
    ``gpt-4o`` or ``local`` says nothing about which weights answered.
    """

    base_url: str = "http://127.0.0.1:8080/v1"
    model: str = "local"
    model_revision: str | None = None
    api_key_env: str | None = None
    temperature: float = 0.0
    max_tokens: int = 1500
    seed: int | None = 0
    top_p: float | None = None
    concurrency: int = 8
    timeout_s: float = 120.0
    retries: int = 8
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 60.0
    retry_after_max_s: float = 300.0
    structured: StructuredDialect = "auto"
    cache_path: Path | None = field(default_factory=default_cache_path)
    cache_only: bool = False
    proxy: str | None = None
    server: str = "auto"
    thinking: Thinking = None
    api_version: str | None = None
    price_per_million: dict[str, float] | None = field(default=None, compare=False)  # no answer changes
    tokenizer: str | None = None

    def __post_init__(self) -> None:
        check_url(self.base_url, "base_url")
        if self.proxy is not None:
            check_url(self.proxy, "proxy")
        if self.concurrency < 1:
            raise UsageError(f"concurrency must be at least 1 (got {self.concurrency})")
        if self.retries < 0:
            raise UsageError(f"retries must be 0 or more (got {self.retries})")
        if self.structured not in ("auto", "json_schema", "json_object", "none"):
            raise UsageError(
                f"structured must be auto, json_schema, json_object or none (got {self.structured!r})"
            )
        if self.cache_only and self.cache_path is None:
            raise UsageError("cache_only needs a cache_path to read from")
        profile(self.server)
        check_thinking(self.thinking)
        _check_price(self.price_per_million)

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> LLMConfig:
        """Build from a YAML/CLI mapping; unknown keys are an error that lists the known ones."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise UsageError(
                f"unknown LLM option(s): {', '.join(unknown)}",
                hint=f"known options: {', '.join(sorted(known))}",
            )
        kw = dict(options)
        if kw.get("cache_path") is not None:
            kw["cache_path"] = Path(kw["cache_path"])
        return cls(**kw)

    def with_overrides(self, **changes: Any) -> LLMConfig:
        return replace(self, **changes)

    def api_key(self) -> str:
        """The key from ``api_key_env``; local servers accept any string, so "none" is sent then."""
        if not self.api_key_env:
            return "none"
        value = os.environ.get(self.api_key_env)
        if not value:
            raise UsageError(
                f"environment variable {self.api_key_env} (api_key_env) is not set",
                hint=f"export {self.api_key_env}=... before running, or drop api_key_env for a local server",
            )
        return value

    def sampling(self) -> dict[str, Any]:
        """The request parameters that change the output, and therefore enter the cache key."""
        params: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.seed is not None:
            params["seed"] = self.seed
        if self.top_p is not None:
            params["top_p"] = self.top_p
        return params

    @property
    def server_profile(self) -> ServerProfile:
        """The server profile; ``auto`` becomes azure or openai by their documented host names."""
        if self.server == "auto":
            host = (urlsplit(self.base_url).hostname or "").lower()
            if host.endswith(AZURE_HOST_SUFFIXES):
                return PROFILES["azure"]
            if host == OPENAI_HOST:
                return PROFILES["openai"]
        return profile(self.server)

    def request_params(self) -> dict[str, Any]:
        """What the request asks of the model, by canonical names: the cache key hashes this.

        Without ``thinking`` it is :meth:`sampling` itself, so caches filled before profiles still
        answer. With it, the thinking setting joins, and fields the profile's reasoning models
        refuse (OpenAI's temperature and top_p) leave: the key says what was really sent.
        """
        params = self.sampling()
        if self.thinking is None:
            return params
        params = {k: v for k, v in params.items() if k not in self.server_profile.thinking_refuses}
        return {**params, "thinking": self.thinking}

    def identity(self) -> dict[str, Any]:
        """What the manifest records about the model (never the API key).

        A loopback endpoint is recorded without its port: the embedded server takes a free port at
        every start, and a resumed audit or prediction run must not look stale because of it. Any
        endpoint is recorded without credentials in its URL. The model and its revision say which
        weights answered.
        """
        url = urlsplit(self.base_url)
        host = url.hostname or ""
        hostport = url.netloc.rpartition("@")[2]
        literal = f"[{host}]" if ":" in host else host
        url = url._replace(netloc=literal if is_loopback(host) else hostport)
        named = {"server": self.server} if self.server != "auto" else {}  # runs from before profiles: same
        return {
            "base_url": url.geturl(),
            "model": self.model,
            "model_revision": self.model_revision,
            "structured": self.structured,
            **named,
            **self.request_params(),
        }


#: Hosts whose profile ``auto`` knows without asking: Azure OpenAI's resource domains, OpenAI's API.
AZURE_HOST_SUFFIXES = (".openai.azure.com", ".cognitiveservices.azure.com")
OPENAI_HOST = "api.openai.com"
PRICE_KEYS = ("prompt", "completion")


def _check_price(price: object) -> None:
    if price is None:
        return
    if (
        not isinstance(price, dict)
        or set(price) - set(PRICE_KEYS)
        or not all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in price.values())
    ):
        raise UsageError(
            "price_per_million must map prompt and completion to US dollars per million tokens "
            f"(got {price!r})",
            hint="e.g. price_per_million: {prompt: 1.25, completion: 10.0}",
        )
