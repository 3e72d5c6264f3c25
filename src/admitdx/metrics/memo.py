"""Remembering what depends only on an encounter's labels while several systems are scored.

Scoring five systems asks five times which codes an encounter's labels roll up to, or which
subgroup each encounter is in. :func:`per_labels` caches such answers by the *identity* of the
label list — one encounter's labels, or a whole run's per-encounter metadata — plus hashable
arguments. The cache holds a reference to the list, so an identity can never be reused by another
object while its entry exists; label lists are treated as read-only, as
:class:`~admitdx.contracts.Instance` is frozen.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import wraps
from typing import Any, TypeVar

T = TypeVar("T")
MAX_ENTRIES = 200_000


def per_labels(fn: Callable[..., T]) -> Callable[..., T]:
    """Cache ``fn(labels, *args)`` on ``id(labels)`` and ``args`` (all hashable)."""
    cache: dict[tuple[int, tuple[Hashable, ...]], tuple[Sequence[Any], T]] = {}

    @wraps(fn)
    def wrapper(labels: Sequence[Any], *args: Hashable) -> T:
        key = (id(labels), args)
        hit = cache.get(key)
        if hit is not None and hit[0] is labels:
            return hit[1]
        if len(cache) >= MAX_ENTRIES:
            cache.clear()
        value = fn(labels, *args)
        cache[key] = (labels, value)
        return value

    return wrapper
