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
from dataclasses import dataclass, field, replace
from typing import Any

import httpx

from admitdx.errors import UsageError
from admitdx.llm.client import LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.llm.egress import AllowedHost
from admitdx.llm.usage import reasoning_tokens

PROBE_MAX_TOKENS = 256  # enough for a short answer after some thinking; a check must stay cheap
PROBE_RETRIES = 1  # a server still loading or rate-limiting gets one more chance, not a run's patience
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
        first_line = str(e).splitlines()[0]
        return Probe(name, "refused", time.perf_counter() - t0, first_line[:160]), client.dialect
    outcome = "truncated" if c.truncated else ("unreadable" if c.parse_error and schema else "answered")
    shown = (c.parse_error if schema is not None or c.truncated else None) or c.raw.strip()
    detail = shown.replace("\n", " ")[:80]
    thought = bool(c.reasoning) or reasoning_tokens(c.usage or {}) > 0  # OpenAI only counts its thinking
    return Probe(name, outcome, c.latency_s, detail, thought, c.usage), client.dialect


def check_server(config: LLMConfig, allow_hosts: list[AllowedHost] | None = None) -> CheckReport:
    """List models and probe each capability; raise :class:`ServerUnusable` when nothing answers."""
    allow_hosts = allow_hosts or []
    config = replace(config, cache_path=None, cache_only=False, max_tokens=PROBE_MAX_TOKENS, concurrency=1)
    config = replace(config, retries=min(config.retries, PROBE_RETRIES), backoff_max_s=1.0)  # answers fast
    client = LLMClient(config, allow_hosts=allow_hosts)  # the egress guard, before any request
    report = CheckReport(config.base_url, config.server)
    try:
        report.models, report.context_length, owner = _models(client)
        if config.server == "auto" and owner in OWNERS:
            report.server = OWNERS[owner]
    except (httpx.HTTPError, ValueError, AttributeError) as e:
        report.models_error = client.redact(f"{type(e).__name__}: {e}")[:160]
    plain, _ = _probe("plain", config, allow_hosts, None)
    report.probes.append(plain)
    if plain.outcome == "refused":
        listed = "" if report.models_error else f" (it lists {', '.join(report.models) or 'no models'})"
        raise ServerUnusable(
            f"the server at {config.base_url} does not answer a chat request{listed}: {plain.detail}",
            hint="check base_url (…/v1), model, api_key_env and server; `--set server=…` names its dialect",
        )
    schema_probe, dialect = _probe("JSON schema", config, allow_hosts, PROBE_SCHEMA)
    report.probes.append(schema_probe)
    report.structured = dialect if schema_probe.outcome == "answered" else "none"
    for name, thinking in (("thinking on", True), ("thinking off", False)):
        report.probes.append(_probe(name, replace(config, thinking=thinking), allow_hosts, None)[0])
    return report
