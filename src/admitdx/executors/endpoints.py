"""The endpoints of one LLM system: OpenAI-compatible servers (e.g. vLLM replicas) and their limits.

Configured next to the system's other options::

    systems:
      qwen:
        kind: llm
        model: Qwen/Qwen2.5-7B-Instruct
        endpoints:
          - http://127.0.0.1:8000/v1                       # concurrency: the system's `concurrency`
          - {url: http://127.0.0.1:8001/v1, concurrency: 32}

Every endpoint passes the egress guard (:func:`admitdx.llm.egress.check_egress`) when the system is
built, before any request is made: a non-loopback host without an ``allow_hosts`` attestation is a
usage error. Without ``endpoints`` the one endpoint is ``base_url``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from admitdx.errors import UsageError
from admitdx.llm.egress import AllowedHost, check_egress
from admitdx.llm.redact import redact_url

ENDPOINT_SHAPE = "a URL, or a mapping {url: http://127.0.0.1:8000/v1, concurrency: 16}"


@dataclass(frozen=True)
class Endpoint:
    url: str
    concurrency: int
    egress: dict[str, Any]

    @property
    def shown(self) -> str:
        """The URL as messages and the manifest show it: without credentials."""
        return redact_url(self.url)


def parse_endpoints(
    entries: Any, *, base_url: str, concurrency: int, allow_hosts: list[AllowedHost], proxy: str | None
) -> list[Endpoint]:
    """The system's endpoints, each checked by the egress guard; ``[base_url]`` when none are listed."""
    if entries is None:
        entries = [base_url]
    if not isinstance(entries, list | tuple) or not entries:
        raise UsageError(
            f"`endpoints` must be a non-empty list, not {entries!r}", hint=f"each entry: {ENDPOINT_SHAPE}"
        )
    endpoints = []
    for entry in entries:
        url, limit = _url_and_limit(entry, concurrency)
        endpoints.append(Endpoint(url, limit, check_egress(url, allow_hosts, proxy=proxy)))
    urls = [e.url for e in endpoints]
    if len(set(urls)) != len(urls):
        twice = next(u for u in urls if urls.count(u) > 1)
        raise UsageError(f"`endpoints` lists {redact_url(twice)} twice", hint="raise its concurrency instead")
    return endpoints


def _url_and_limit(entry: Any, concurrency: int) -> tuple[str, int]:
    if isinstance(entry, str):
        return entry, concurrency
    if isinstance(entry, dict) and isinstance(entry.get("url"), str) and set(entry) <= {"url", "concurrency"}:
        limit = entry.get("concurrency", concurrency)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise UsageError(
                f"endpoint {redact_url(entry['url'])}: concurrency must be a positive integer, not {limit!r}"
            )
        return entry["url"], limit
    raise UsageError(f"an `endpoints` entry must be {ENDPOINT_SHAPE}, not {entry!r}")
