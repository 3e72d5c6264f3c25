"""Endpoint URLs: what a valid one looks like, which hosts count as loopback, and where to connect.

Loopback is decided on the literal host, never on a name service's answer: ``127.0.0.0/8``,
``::1`` and the one name ``localhost``. Other names that usually mean the same machine
(``localhost.localdomain``, ``ip6-localhost``, ``localhost.``) are *not* trusted: whether they
resolve to this machine depends on ``/etc/hosts`` and ``nsswitch.conf``, and a name the resolver
does not find there goes out to network DNS, whose answer could be any address.

Even ``localhost`` is never handed to the resolver. :func:`connect_url` rewrites it to the
loopback address ``/etc/hosts`` gives it (``127.0.0.1`` when the file names none, or names only
non-loopback addresses), and the client connects there, sending ``Host: localhost:PORT``; so the
address patient text goes to is the one the guard approved, whatever DNS says.
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from urllib.parse import SplitResult, urlsplit

from admitdx.errors import UsageError

LOOPBACK_NAME = "localhost"
HOSTS_FILE = Path("/etc/hosts")
DEFAULT_LOOPBACK_ADDRESS = "127.0.0.1"

# RFC 3986's characters (unreserved, reserved and '%'); anything else cannot be sent as it is written.
_URL_CHARS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*")


def check_url(
    url: object, what: str = "base_url", *, schemes: tuple[str, ...] = ("http", "https")
) -> SplitResult:
    """Parse ``url`` or raise a UsageError that names ``what`` and the character or part at fault."""
    if not isinstance(url, str):
        raise UsageError(
            f"{what} must be a URL string (got {type(url).__name__} {url!r})",
            hint=f"write it as {what}=http://HOST:PORT/v1",
        )
    if _URL_CHARS.fullmatch(url) is None:
        position, char = next((i, c) for i, c in enumerate(url) if not _URL_CHARS.fullmatch(c))
        shown = {" ": "a space", "\t": "a tab", "\n": "a line break"}.get(char, repr(char))
        raise UsageError(
            f"{what} {url!r} contains {shown} at position {position + 1}, which a URL cannot hold",
            hint="remove it (a value pasted with spaces around it must be quoted without them), "
            "or percent-encode it in the path",
        )
    parts = urlsplit(url)
    if parts.scheme.lower() not in schemes:
        raise UsageError(
            f"{what} {url!r} must start with {' or '.join(s + '://' for s in schemes)}",
            hint=f"write it as {what}=http://HOST:PORT/v1",
        )
    if not parts.hostname:
        raise UsageError(f"{what} {url!r} has no host", hint="write it as http://HOST:PORT/v1")
    try:
        parts.port  # noqa: B018 - urlsplit checks the port only when it is read
    except ValueError as e:
        raise UsageError(f"{what} {url!r} has an invalid port ({e})", hint="a port is 1 to 65535") from None
    return parts


def is_loopback(host: str) -> bool:
    """A literal loopback address, or exactly ``localhost`` (see the module docstring)."""
    host = host.strip("[]").lower()
    if host == LOOPBACK_NAME:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def hosts_file_loopback(name: str, hosts_file: Path = HOSTS_FILE) -> str:
    """The first loopback address ``hosts_file`` gives ``name``; 127.0.0.1 if it gives none.

    Non-loopback addresses listed for the name are skipped: the guard approved loopback, so a
    hosts file that maps ``localhost`` elsewhere must not move the traffic.
    """
    try:
        lines = hosts_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return DEFAULT_LOOPBACK_ADDRESS
    for line in lines:
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        address, *names = fields
        if name in (n.lower() for n in names):
            try:
                if ipaddress.ip_address(address).is_loopback:
                    return address
            except ValueError:
                continue
    return DEFAULT_LOOPBACK_ADDRESS


def connect_url(url: str, hosts_file: Path = HOSTS_FILE) -> tuple[str, str | None]:
    """(URL to connect to, Host header to send) for ``url``: ``localhost`` becomes its address.

    Every other URL is returned unchanged with no Host header (httpx derives it).
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host != LOOPBACK_NAME:
        return url, None
    address = hosts_file_loopback(host, hosts_file)
    literal = f"[{address}]" if ":" in address else address
    port = f":{parts.port}" if parts.port else ""
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = (userinfo + "@" if userinfo else "") + literal + port
    return parts._replace(netloc=netloc).geturl(), f"{parts.hostname}{port}"
