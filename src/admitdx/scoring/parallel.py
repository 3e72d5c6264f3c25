"""Run one function over a run's systems in forked worker processes, results in order.

Why fork: the parent prepares the run once — instances, the bootstrap resample matrices, the
suite's label arrays — and forked workers inherit all of it copy-on-write, so nothing large is
pickled on the way in (the function itself is not pickled either: it is a closure over the
prepared run, handed to the workers by inheritance). What comes back is small: one system's
results entry, its replicates and its per_instance lines, already encoded.

Workers keep the parent's BLAS thread count on purpose: OpenBLAS sums a matrix product in an
order that depends on its thread count (measured: one thread instead of two moves the last bits of
bootstrap intervals), and a run must write the same bytes whatever ``jobs`` is.

Workers take the default SIGTERM action, unblocked (:func:`admitdx.concurrency.default_sigterm`):
once, in CI, a worker forked from a process that had run a Ray driver outlived the pool's SIGTERM,
waiting on the pool's queue lock while the parent joined it forever.

Errors: a worker's :class:`~admitdx.errors.AdmitdxError` comes back as a :class:`Failure` value
(pickling an exception keeps only its ``args``: an InputError would lose its hint, table and
row), so that the caller can raise the one the serial order would have raised. Any other
exception propagates from the worker as it arises, with the worker's traceback as its cause.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from admitdx.concurrency import alone, default_sigterm
from admitdx.errors import AdmitdxError

T = TypeVar("T")

#: the function a pool's workers call; set in the parent just before the pool forks
_TASK: Callable[[int], Any] | None = None


def worker_count(jobs: int | None, n_items: int) -> int:
    """Processes for ``n_items`` systems: ``jobs`` (None: one per CPU), at most one per system;
    1 (score in this process) where there is one system or one CPU, or no ``fork`` here, or while
    a study's lanes run side by side (a fork would end OpenBLAS's helper threads under another
    lane's product: :mod:`admitdx.concurrency`)."""
    if n_items < 2 or "fork" not in multiprocessing.get_all_start_methods() or not alone():
        return 1
    return max(1, min(jobs if jobs is not None else (os.cpu_count() or 1), n_items))


def fork_map(fn: Callable[[int], T], n: int, workers: int) -> Iterator[T]:
    """``fn(0)``, …, ``fn(n - 1)`` computed in ``workers`` forked processes, yielded in index order
    (each as soon as it and those before it are done). Closing the iterator early ends the pool."""
    global _TASK
    if _TASK is not None:
        raise RuntimeError("fork_map is already running in this process")
    _TASK = fn
    try:
        context = multiprocessing.get_context("fork")
        with context.Pool(workers, initializer=default_sigterm) as pool:
            yield from pool.imap(_call, range(n))
    finally:
        _TASK = None


def _call(k: int) -> Any:
    assert _TASK is not None, "a fork_map worker runs the function its parent set before forking"
    return _TASK(k)


@dataclass(frozen=True)
class Failure:
    """An :class:`AdmitdxError` raised in a worker, carried back whole: its class, ``args`` and
    attributes (message, hint, table, row, …); ``stage`` says how far the worker got."""

    stage: str
    kind: type[AdmitdxError]
    args: tuple[Any, ...]
    state: dict[str, Any]

    @classmethod
    def of(cls, stage: str, error: AdmitdxError) -> Failure:
        return cls(stage, type(error), error.args, dict(vars(error)))

    def error(self) -> AdmitdxError:
        """The error as the worker raised it (same class, message, hint and attributes)."""
        error = self.kind.__new__(self.kind)
        error.args = self.args
        error.__dict__.update(self.state)
        return error
