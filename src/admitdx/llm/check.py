"""One look at a server before a run: what it serves, what it accepts, how fast, and a profile to paste.

``admitdx llm check`` (:mod:`admitdx.cli.llm_check`) runs :func:`check_server`: it lists the
served models (``GET {base_url}/models``), then sends one small request per capability — plain
text, a JSON schema, thinking on, thinking off — each through the ordinary client (egress guard,
retries, the profile's dialect; never the cache, since a check must reach the server). Each probe
records whether the server answered or refused, its latency, whether thinking came back, and the
tokens it reported. The context length is read where the server's ``/models`` answer documents one
(vLLM's and SGLang's ``max_model_len``, llama.cpp server's ``meta.n_ctx_train``).

The suggested profile keeps what worked: the ``server`` (the configured one, else the one the
``owned_by`` field of ``/models`` names, else ``auto``), the ``structured`` form the schema probe
used, and ``thinking: false`` when the model thinks and the switch worked (thinking costs tokens
and latency; turn it back on deliberately). A server that answers neither ``/models`` nor the plain
probe is unusable: :class:`ServerUnusable` (exit 2) names the reason.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields, replace
from typing import Any

import httpx

from admitdx.errors import UsageError
from admitdx.llm.client import LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.llm.egress import AllowedHost
from admitdx.llm.usage import reasoning_tokens

PROBE_MAX_TOKENS = 256  # enough for a short answer after some thinking; a check must stay cheap
PROBE_RETRIES = 1  # a server still loading or rate-limiting gets one more chance, not a run's patience
#: Seconds a probe waits for an answer unless ``timeout_s`` is set to another value than a run's
#: default (120 s): a server that accepts and never answers held the check for 6 minutes.
CHECK_TIMEOUT_S = 10.0
LOADING = "HTTP 503"  # llama.cpp's server and vLLM answer 503 while the model loads
STILL_LOADING = "still loading its model (it answers HTTP 503)"
PROBE_MESSAGES = [
    {"role": "system", "content": "You are a careful emergency physician."},
    {
        "role": "user",
        "content": "Fever, productive cough and right lower lobe consolidation. "
        "Name the most likely diagnosis in at most five words.",
    },
]
PROBE_SCHEMA = {
    "type": "object",
    "properties": {"diagnoses": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
    "required": ["diagnoses"],
}
#: ``owned_by`` of ``/models`` as each server documents it → the profile.
OWNERS = {
    "vllm": "vllm",
    "sglang": "sglang",
    "llamacpp": "llama.cpp",
    "library": "ollama",
    "openai": "openai",
}
CONTEXT_FIELDS = ("max_model_len", "context_length")
RUN_TIMEOUT_S = next(f.default for f in fields(LLMConfig) if f.name == "timeout_s")


class ServerUnusable(UsageError):
    """The server cannot serve a run; the message says why."""


@dataclass
class Probe:
    """One capability request: ``outcome`` is ``answered``, ``unreadable``, ``truncated`` or ``refused``."""

    name: str
    outcome: str
    latency_s: float | None = None
    detail: str = ""
    thought: bool = False
    usage: dict[str, Any] | None = None


@dataclass
class CheckReport:
    base_url: str
    server: str
    models: list[str] = field(default_factory=list)
    context_length: int | None = None
    models_error: str | None = None
    probes: list[Probe] = field(default_factory=list)
    structured: str | None = None

    def probe(self, name: str) -> Probe:
        return next(p for p in self.probes if p.name == name)

    def profile(self, config: LLMConfig) -> dict[str, Any]:
        """The ``systems:`` entry to paste: what this check saw working (no key, only its variable)."""
        entry: dict[str, Any] = {"kind": "llm", "base_url": config.base_url, "model": config.model}
        entry["server"] = self.server
        if self.structured:
            entry["structured"] = self.structured
        if config.api_key_env:
            entry["api_key_env"] = config.api_key_env
        if config.api_version:
            entry["api_version"] = config.api_version
        on, off = self.probe("thinking on"), self.probe("thinking off")
        if on.thought and off.outcome == "answered" and not off.thought:
            entry["thinking"] = False
        return entry


def _models(client: LLMClient) -> tuple[list[str], int | None, str]:
    """(model ids, context length or None, owner) from ``GET /models``; raises httpx errors."""
    resp = client.get("models")
    resp.raise_for_status()
    entries = [m for m in resp.json().get("data") or [] if isinstance(m, dict)]
    served = next((m for m in entries if m.get("id") == client.config.model), entries[0] if entries else {})
    context = next((served[f] for f in CONTEXT_FIELDS if isinstance(served.get(f), int)), None)
    meta = served.get("meta") if isinstance(served.get("meta"), dict) else {}
    context = context or (meta.get("n_ctx_train") if isinstance(meta.get("n_ctx_train"), int) else None)
    return [str(m.get("id")) for m in entries], context, str(served.get("owned_by") or "")


def _probe(name: str, config: LLMConfig, allow_hosts: list[AllowedHost], schema: Any) -> tuple[Probe, str]:
    client = LLMClient(config, allow_hosts=allow_hosts)
    t0 = time.perf_counter()
    try:
        c = client.complete_json(PROBE_MESSAGES, schema)
    except UsageError as e:
        return Probe(name, "refused", time.perf_counter() - t0, _why(str(e), config)), client.dialect
    usage = c.usage if isinstance(c.usage, dict) else None  # a server may send anything there
    outcome = "truncated" if c.truncated else ("unreadable" if c.parse_error and schema else "answered")
    shown = (c.parse_error if schema is not None or c.truncated else None) or c.raw.strip()
    detail = shown.replace("\n", " ")[:80]
    thought = bool(c.reasoning) or reasoning_tokens(usage or {}) > 0  # OpenAI only counts its thinking
    return Probe(name, outcome, c.latency_s, detail, thought, usage), client.dialect


def _why(error: str, config: LLMConfig) -> str:
    """A refused probe's detail: the two common cases in words, else the error's first line."""
    if LOADING in error:
        return STILL_LOADING
    if "Timeout" in error:
        return f"no answer within {config.timeout_s:g} s (timeout_s)"
    return error.splitlines()[0][:160]


def _unusable(config: LLMConfig, report: CheckReport, plain: Probe) -> ServerUnusable:
    """Why the plain probe failed: still loading, or not answering a chat request."""
    if plain.detail == STILL_LOADING:
        return ServerUnusable(
            f"the server at {config.base_url} is {STILL_LOADING}",
            hint="wait until it has loaded, then check again",
        )
    listed = "" if report.models_error else f" (it lists {', '.join(report.models) or 'no models'})"
    return ServerUnusable(
        f"the server at {config.base_url} does not answer a chat request{listed}: {plain.detail}",
        hint="check base_url (…/v1), model, api_key_env and server; `--set server=…` names its dialect; "
        "a slow server may need --set timeout_s=60",
    )


def check_server(config: LLMConfig, allow_hosts: list[AllowedHost] | None = None) -> CheckReport:
    """List models and probe each capability; raise :class:`ServerUnusable` when nothing answers."""
    allow_hosts = allow_hosts or []
    config = replace(config, cache_path=None, cache_only=False, max_tokens=PROBE_MAX_TOKENS, concurrency=1)
    config = replace(config, retries=min(config.retries, PROBE_RETRIES), backoff_max_s=1.0)  # answers fast
    if config.timeout_s == RUN_TIMEOUT_S:
        config = replace(config, timeout_s=CHECK_TIMEOUT_S)
    client = LLMClient(config, allow_hosts=allow_hosts)  # the egress guard, before any request
    report = CheckReport(config.base_url, config.server)
    try:
        report.models, report.context_length, owner = _models(client)
        if config.server == "auto" and owner in OWNERS:
            report.server = OWNERS[owner]
    except (httpx.HTTPError, ValueError, AttributeError, TypeError) as e:  # any odd /models answer
        report.models_error = client.redact(f"{type(e).__name__}: {e}")[:160]
    plain, _ = _probe("plain", config, allow_hosts, None)
    report.probes.append(plain)
    if plain.outcome == "refused":
        raise _unusable(config, report, plain)
    schema_probe, dialect = _probe("JSON schema", config, allow_hosts, PROBE_SCHEMA)
    report.probes.append(schema_probe)
    report.structured = dialect if schema_probe.outcome == "answered" else "none"
    for name, thinking in (("thinking on", True), ("thinking off", False)):
        report.probes.append(_probe(name, replace(config, thinking=thinking), allow_hosts, None)[0])
    return report
