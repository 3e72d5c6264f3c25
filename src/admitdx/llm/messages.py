"""What the LLM client says when a request fails: who refused, and what to check next.

A refusal must be pinned on the party that sent it. Through a proxy, a 403 or 407 is usually the
proxy's own answer (its access rules or its credentials), not the endpoint's; blaming the
endpoint's URL sends the user to check a server that never saw the request. Without a proxy the
answer can only have come from the endpoint, because the environment's proxy variables are
ignored (see :mod:`admitdx.llm.egress`); when such variables are set, the message says so, since a
user who set them may expect them to apply.

Texts passed in here are already redacted by the caller (no URL credentials, no echoed keys).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from admitdx.llm.egress import PROXY_ENV_VARS
from admitdx.llm.servers import PROFILES

# Headers only a proxy's own error answer carries (``Via`` is not one: it is on forwarded answers too).
PROXY_SIGNS = ("proxy-authenticate", "x-squid-error")


def ignored_proxy_variables() -> list[str]:
    """The proxy variables set in this environment (all are ignored)."""
    return [name for name in PROXY_ENV_VARS if os.environ.get(name)]


def _env_note() -> str:
    names = ignored_proxy_variables()
    if not names:
        return ""
    return (
        f"; {', '.join(names)} {'is' if len(names) == 1 else 'are'} set but ignored (patient text goes "
        "only where the egress guard allows): to use a proxy, set the LLM option proxy=URL and give its "
        "host an allow_hosts entry with an attestation"
    )


def http_refusal(
    status: int, reason: str, headers: Mapping[str, str], body: str, *, url: str, proxy: str | None
) -> tuple[str, str]:
    """(message, hint) for a non-retried HTTP error answer (4xx other than 408/409/429)."""
    what = f"HTTP {status} {reason}".rstrip()
    if proxy is None:
        return (
            f"the server at {url} answered {what}: {body}",
            "check model name, API key and the server's dialect (`server:` option, one of "
            f"{', '.join(PROFILES)}; an OpenAI reasoning model needs server: openai or azure with "
            "thinking: low, medium or high)" + _env_note(),
        )
    signs = [h for h in PROXY_SIGNS if h in {k.lower() for k in headers}]
    origin = (
        f"the answer carries {', '.join(signs)}, so the proxy itself most likely refused"
        if signs or status == 407
        else "it may come from the proxy or from the server behind it"
    )
    return (
        f"{what} for {url}, sent through the proxy {proxy} ({origin}): {body}",
        "check the proxy's access rules and credentials for this destination first; if it passed the "
        "request on, check the model name and API key",
    )


def redirect_refusal(status: int, location: str, *, url: str) -> tuple[str, str]:
    """(message, hint) for a 3xx: redirects are never followed, since the guard approved ``url`` only."""
    return (
        f"the server at {url} answered HTTP {status}, a redirect to {location or '(no Location)'}, "
        "which is not followed: patient text goes only to the address the egress guard approved",
        "if that address may receive the data, set base_url to it (a non-loopback host also needs an "
        "allow_hosts entry)",
    )


def proxy_tunnel_refusal(error: str, *, url: str, proxy: str) -> tuple[str, str]:
    """(message, hint) when the proxy refused to open a tunnel (CONNECT) to an https endpoint."""
    return (
        f"the proxy {proxy} refused to open a tunnel to {url}: {error}",
        "check the proxy's access rules and credentials for this destination; the server was not reached",
    )


def connection_failure_hint(*, proxy: str | None) -> str:
    """The hint after every retry failed to get an answer."""
    via = f" and that the proxy {proxy} is reachable" if proxy else ""
    return (
        f"check that the server is up{via} (or raise `retries`); finished outputs are kept: rerun"
        + _env_note()
    )
