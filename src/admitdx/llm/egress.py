"""The egress guard: MIMIC-derived text goes only where the data use agreement allows.

The PhysioNet credentialed data use agreement forbids sharing MIMIC with third parties, and
EarlyDx (appendix R) sent test encounters to hosted models only under zero-retention agreements.
So by default a base URL must point at a loopback host (see :mod:`admitdx.llm.urls`: a literal
127.0.0.0/8 or ::1 address, or ``localhost``, which is connected to by its /etc/hosts address and
never looked up in DNS); any other host needs an allow-list entry in the run configuration::

    allow_hosts:
      - host: my-endpoint.openai.azure.com
        attestation: "Azure OpenAI deployment with abuse monitoring and human review disabled"

An attestation is a sentence a reader of the manifest can check, so it must be text of at least
:data:`MIN_ATTESTATION_CHARS` characters and :data:`MIN_ATTESTATION_WORDS` words, not ``true``.

**Proxies.** The environment's proxy variables (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY`` and
their lower-case forms) are ignored by every client that sends patient text (httpx's
``trust_env=False``): a proxy sees every prompt and the API key, and a variable set for some other
program must not redirect a run the guard approved as loopback. A proxy is used only when an LLM
option names it, ``proxy: http://proxy.example.org:3128``, and its host has an allow-list entry with
an attestation, like any other host that receives the data (a proxy on loopback needs one too: it
may forward anywhere).

The decision (each hop's host, whether all are loopback, each attestation, the proxy's URL without
credentials) is returned as a record that the caller writes into the run's manifest, so a
published run shows where its data went.

Host names are compared literally (case-insensitive), not resolved: resolving would let a DNS
answer silently widen what the attestation covers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from admitdx.errors import UsageError
from admitdx.llm.redact import redact_url
from admitdx.llm.urls import check_url, is_loopback

PROXY_ENV_VARS = ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")
MIN_ATTESTATION_CHARS = 12
MIN_ATTESTATION_WORDS = 2
ENTRY_SHAPE = "`- {host: NAME, attestation: 'why this host may receive MIMIC-derived text'}`"


def _check_attestation(host: str, value: Any, where: str) -> str:
    text = value.strip() if isinstance(value, str) else ""
    words = [w for w in text.split() if any(c.isalpha() for c in w)]
    if len(text) < MIN_ATTESTATION_CHARS or len(words) < MIN_ATTESTATION_WORDS:
        problem = "no attestation" if value is None else f"no real attestation (got {value!r})"
        raise UsageError(
            f"{where}: the allow_hosts entry for {host} has {problem}",
            hint=f"write why this host may receive MIMIC-derived text, at least {MIN_ATTESTATION_WORDS} "
            f"words and {MIN_ATTESTATION_CHARS} characters, e.g. attestation: 'zero-retention agreement, "
            "contract 2026-04'",
        )
    return text


@dataclass(frozen=True)
class AllowedHost:
    """A non-loopback host the user vouches for, with the reason it may receive patient data."""

    host: str
    attestation: str

    @classmethod
    def from_dict(cls, data: Any, where: str = "allow_hosts") -> AllowedHost:
        if not isinstance(data, dict):
            raise UsageError(
                f"{where}: an allow_hosts entry must be a mapping with host and attestation, "
                f"not {type(data).__name__} {data!r}",
                hint=f"write each entry as {ENTRY_SHAPE}",
            )
        unknown = sorted(str(k) for k in set(data) - {"host", "attestation"})
        if unknown:
            raise UsageError(
                f"{where}: unknown key(s) {', '.join(unknown)} in an allow_hosts entry",
                hint=f"an entry has exactly host and attestation: {ENTRY_SHAPE}",
            )
        raw_host = data.get("host")
        host = raw_host.strip().lower() if isinstance(raw_host, str) else ""
        if not host:
            raise UsageError(f"{where}: an allow_hosts entry has no host", hint=f"write {ENTRY_SHAPE}")
        return cls(host, _check_attestation(host, data.get("attestation"), where))


def parse_allow_hosts(entries: Any, where: str = "allow_hosts") -> list[AllowedHost]:
    """Entries from a config file or matcher parameters; ``where`` names the source in errors."""
    if entries is None:
        return []
    if not isinstance(entries, list | tuple):
        raise UsageError(
            f"{where}: `allow_hosts` must be a list of entries, not {type(entries).__name__} {entries!r}",
            hint=f"write each entry as {ENTRY_SHAPE}",
        )
    return [e if isinstance(e, AllowedHost) else AllowedHost.from_dict(e, where) for e in entries]


def _allowed(host: str, allow_hosts: list[AllowedHost]) -> AllowedHost | None:
    return next((entry for entry in allow_hosts if entry.host == host), None)


def check_egress(
    base_url: str, allow_hosts: list[AllowedHost] | None = None, *, proxy: str | None = None
) -> dict[str, Any]:
    """Allow ``base_url`` (reached through ``proxy`` if given) or raise; return the manifest record.

    ``loopback`` in the record is true only when no byte leaves the machine: the endpoint is
    loopback and so is the proxy, if any.
    """
    allow_hosts = allow_hosts or []
    host = (check_url(base_url, "base_url").hostname or "").lower()
    record: dict[str, Any] = {"host": host, "loopback": is_loopback(host)}
    if not record["loopback"]:
        entry = _allowed(host, allow_hosts)
        if entry is None:
            raise UsageError(
                f"refusing to send patient data to {host}: only loopback endpoints are allowed by default "
                "(a literal 127.x.y.z or [::1] address, or localhost)",
                hint=(
                    "if this host may receive MIMIC-derived text, add it to the run configuration as "
                    f"`allow_hosts: [{{host: {host}, attestation: '<why, e.g. zero-retention agreement>'}}]`"
                ),
            )
        record["attestation"] = entry.attestation
    if proxy is None:
        return record
    proxy_host = (check_url(proxy, "proxy").hostname or "").lower()
    entry = _allowed(proxy_host, allow_hosts)
    if entry is None:
        raise UsageError(
            f"refusing to route patient data through the proxy {proxy_host}: a proxy sees every prompt "
            "and the API key, so it needs an allow_hosts entry like any other receiving host",
            hint=f"add `allow_hosts: [{{host: {proxy_host}, attestation: '<why it may see MIMIC text>'}}]` "
            "to the run configuration, or drop the `proxy` option",
        )
    record["proxy"] = {"url": redact_url(proxy), "host": proxy_host, "attestation": entry.attestation}
    record["loopback"] = record["loopback"] and is_loopback(proxy_host)
    return record
