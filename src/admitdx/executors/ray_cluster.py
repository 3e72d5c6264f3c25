"""Joining or starting the Ray cluster the Ray executor runs on.

``address=None`` starts a local Ray instance (as many CPUs as workers, no dashboard) that ends with
the run; ``auto`` joins the cluster this machine is part of; ``HOST:PORT`` or ``ray://HOST:PORT``
joins a named one. A named address is probed over TCP first, so an unreachable one is a usage error
naming it within seconds, not a Ray connection loop. Workers of a remote cluster import admitdx,
so its nodes need the same admitdx installed.
"""

from __future__ import annotations

import socket
from types import ModuleType
from urllib.parse import urlsplit

from admitdx.errors import UsageError

INSTALL_HINT = "pip install 'admitdx[ray]'"
PROBE_TIMEOUT_S = 5.0


def import_ray() -> ModuleType:
    """Ray, or a usage error that says how to install it (it is an optional extra)."""
    try:
        import ray
    except ImportError as e:
        raise UsageError("--executor ray needs Ray, which is not installed", hint=INSTALL_HINT) from e
    return ray


def _probe(address: str) -> None:
    parts = urlsplit(address if "://" in address else f"ray://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError as e:
        raise UsageError(f"--ray-address {address!r} has no valid port: {e}") from e
    if not host or port is None:
        raise UsageError(
            f"--ray-address {address!r} is not HOST:PORT, ray://HOST:PORT or auto",
            hint="e.g. --ray-address 10.0.0.5:6379 (the head node's GCS port) or ray://10.0.0.5:10001",
        )
    try:
        socket.create_connection((host, port), timeout=PROBE_TIMEOUT_S).close()
    except OSError as e:
        raise UsageError(
            f"the Ray cluster at {address} is unreachable: {e}",
            hint="check the head node is running (`ray status` on it) and the port is open from here, "
            "or leave out --ray-address to start a local Ray instance",
        ) from e


def connect(address: str | None, num_cpus: int) -> bool:
    """Make sure this process is connected to Ray; True when this call connected (so close it after).

    A process already connected (a test session, a notebook) is reused as it is.
    """
    if address not in (None, "auto"):
        _probe(address)
    ray = import_ray()
    if ray.is_initialized():
        return False
    try:
        if address is None:
            ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    except (ConnectionError, RuntimeError, TimeoutError, ValueError) as e:
        where = address or "a new local instance"
        raise UsageError(
            f"cannot join the Ray cluster at {where}: {e}",
            hint="with `auto`, this machine must be a node of a running cluster (`ray start`); "
            "or name the head with --ray-address HOST:PORT, or leave it out for a local instance",
        ) from e
    return True
