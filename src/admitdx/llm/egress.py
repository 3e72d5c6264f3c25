"""The egress guard: MIMIC-derived text goes only where the data use agreement allows.

The PhysioNet credentialed data use agreement forbids sharing MIMIC with third parties, and
EarlyDx (appendix R) sent test encounters to hosted models only under zero-retention agreements.
So by default a base URL must point at a loopback address (127.0.0.0/8, ::1, ``localhost``);
any other host needs an allow-list entry in the run configuration::

    allow_hosts:
      - host: my-endpoint.openai.azure.com
        attestation: "Azure OpenAI deployment with abuse monitoring and human review disabled"

The decision (loopback, or the host and its attestation) is returned as a record that the caller
writes into the run's manifest, so a published run shows where its data went.

Host names are compared literally (case-insensitive), not resolved: resolving would let a DNS
answer silently widen what the attestation covers.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from admitdx.errors import UsageError

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


@dataclass(frozen=True)
class AllowedHost:
    """A non-loopback host the user vouches for, with the reason it may receive patient data."""

    host: str
    attestation: str

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AllowedHost:
        host = str(data.get("host") or "").strip().lower()
        attestation = str(data.get("attestation") or "").strip()
        if not host:
            raise UsageError(
                "an allow_hosts entry has no host", hint="write `- host: NAME` with an attestation"
            )
        if not attestation:
            raise UsageError(
                f"allow_hosts entry for {host} has no attestation",
                hint="state why this host may receive MIMIC-derived text (e.g. a zero-retention agreement)",
            )
        return cls(host, attestation)


def parse_allow_hosts(entries: list[dict[str, Any]] | list[AllowedHost] | None) -> list[AllowedHost]:
    return [e if isinstance(e, AllowedHost) else AllowedHost.from_dict(e) for e in (entries or [])]


def is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_egress(base_url: str, allow_hosts: list[AllowedHost] | None = None) -> dict[str, Any]:
    """Allow ``base_url`` or raise; return the record of the decision for the manifest."""
    host = (urlsplit(base_url).hostname or "").lower()
    if not host:
        raise UsageError(f"base_url {base_url!r} has no host", hint="write it as http://HOST:PORT/v1")
    if is_loopback(host):
        return {"host": host, "loopback": True}
    for entry in allow_hosts or []:
        if entry.host == host:
            return {"host": host, "loopback": False, "attestation": entry.attestation}
    raise UsageError(
        f"refusing to send patient data to {host}: only loopback endpoints are allowed by default",
        hint=(
            "if this host may receive MIMIC-derived text, add it to the run configuration as "
            f"`allow_hosts: [{{host: {host}, attestation: '<why, e.g. zero-retention agreement>'}}]`"
        ),
    )
