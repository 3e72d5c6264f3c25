"""Secrets stay out of manifests, logs and error messages.

Two kinds leak easily. A URL may carry credentials (``http://user:password@host/v1``, a proxy's
``http://user:password@proxy:3128``): manifests and messages show such a URL with its whole
userinfo replaced by ``***`` (a token is often put in the user-name position, so the name goes too).
And a server that refuses a key often echoes it, whole or in part (``Incorrect API key provided:
sk-abc1***********wxyz``): before an answer's text is shown, every token that shares
:data:`ECHO_WINDOW` consecutive characters with a secret is replaced, and so is every exact
occurrence of a shorter secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote, urlsplit

REDACTED = "***"
ECHO_WINDOW = 8  # a run of 8 characters of a key is enough to call a token an echo of it
MIN_SECRET_CHARS = 4  # shorter strings ("a", "x") would mask ordinary words, and guard nothing
NOT_SECRETS = frozenset({"none"})  # the placeholder key sent to servers that need none

_TOKEN = re.compile(r"[A-Za-z0-9_\-.~+/=*]+")


def redact_url(url: str) -> str:
    """``url`` with its userinfo replaced by ``***``; anything without userinfo is returned as is."""
    if "@" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL at all (an unbalanced '['): it is not shown as one either
        return REDACTED
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=f"{REDACTED}@{parts.netloc.rpartition('@')[2]}").geturl()


def redact_options(value: Any) -> Any:
    """``value`` with every string inside it (mappings and lists too) passed through :func:`redact_url`."""
    if isinstance(value, str):
        return redact_url(value)
    if isinstance(value, dict):
        return {k: redact_options(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_options(v) for v in value]
    return value


def url_secrets(url: str | None) -> list[str]:
    """The user name and password in ``url`` (raw and percent-decoded), for :func:`redact_text`."""
    if not url or "@" not in url:
        return []
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [s for s in (parts.username, parts.password) if s]
    return found + [unquote(s) for s in found if unquote(s) != s]


def redact_text(text: str, secrets: Iterable[str]) -> str:
    """``text`` with secrets and tokens that echo them replaced by ``***`` (see the module docstring)."""
    keep = [s for s in secrets if s and len(s) >= MIN_SECRET_CHARS and s.lower() not in NOT_SECRETS]
    if not keep:
        return text
    windows = {
        s[i : i + ECHO_WINDOW] for s in keep if len(s) >= ECHO_WINDOW for i in range(len(s) - ECHO_WINDOW + 1)
    }
    for secret in sorted(keep, key=len, reverse=True):
        text = text.replace(secret, REDACTED)

    def mask(token: re.Match[str]) -> str:
        word = token.group(0)
        return REDACTED if any(w in word for w in windows) else word

    return _TOKEN.sub(mask, text) if windows else text
