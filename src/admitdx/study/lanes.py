"""Task runs side by side: a study's ``lanes`` threads take its task runs in the file's order, each
the next one not yet taken.

Why threads: a local llama.cpp server answers on one thread (more threads spin at barriers and
collapse on a busy machine), so on two cores the demo keeps one model server busy in each lane —
EarlyDx's local-model subset in one, the LLM audit and the other tasks in the other — and ends in
about half the time of one lane. Remote models gain less (set ``concurrency`` on the system).

This thread (lane 1) takes the first run and prints its steps and progress bars as they happen; the
other lanes keep their lines, printed when they are collected so that they never cut through a
progress bar (while this lane waits for them it says which runs they are still on). The
other lanes are daemon threads: Ctrl-C or an error does not wait for them, their model servers are
stopped at exit, and every stage resumes on the next run (nothing finished is lost).

While lane threads run, scoring stays in its process (:mod:`admitdx.concurrency`: a fork, or the
scorer's resting of OpenBLAS's threads, would hang a lane with a matrix product in flight).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

from admitdx.concurrency import LANE_THREAD_PREFIX
from admitdx.study.steps import Steps

T = TypeVar("T")


class Datasets:
    """Each task run's prepared dataset, handed to the runs that predict on it (``from:``), which may
    be in another lane: :meth:`get` waits for it, and re-raises the error if its run failed."""

    def __init__(self) -> None:
        self._futures: dict[str, Future[Path]] = {}
        self._lock = threading.Lock()

    def _future(self, name: str) -> Future[Path]:
        with self._lock:
            return self._futures.setdefault(name, Future())

    def put(self, name: str, dataset: Path) -> None:
        self._future(name).set_result(dataset)

    def fail(self, name: str, error: BaseException) -> None:
        future = self._future(name)
        if not future.done():
            future.set_exception(error)

    def get(self, name: str) -> Path:
        return self._future(name).result()


def run_in_lanes(jobs: list[tuple[str, Callable[[Steps], T]]], lanes: int, steps: Steps) -> list[T]:
    """Every (name, job), each job given its lane's steps; the results in the jobs' order. The first error
    stops the lanes from taking another job and is raised here; an error in this thread at once,
    without waiting for the other lanes' jobs in flight."""
    results: dict[int, T] = {}
    errors: list[BaseException] = []
    queue = iter(range(len(jobs)))
    lock = threading.Lock()
    running: dict[int, str] = {}  # job index → name, while it runs

    def lane(lane_steps: Steps, first: int | None = None) -> None:
        while not errors:
            with lock:
                i = next(queue, None) if first is None else first
                first = None
                if i is None:
                    return
                name, job = jobs[i]
                running[i] = name
            try:
                results[i] = job(lane_steps)
            except BaseException as e:  # Ctrl-C too: raised by the foreground below
                errors.append(e)
            finally:
                with lock:
                    del running[i]

    others = [Steps(steps.console, buffered=True) for _ in range(min(lanes, len(jobs)) - 1)]
    threads = [
        threading.Thread(target=lane, args=(s,), name=f"{LANE_THREAD_PREFIX}{n + 2}", daemon=True)
        for n, s in enumerate(others)
    ]
    first = next(queue, None)  # this lane takes the first run, whichever thread starts first
    for t in threads:
        t.start()
    lane(steps, first)
    if not errors:
        with lock:
            busy = ", ".join(running.values())
        if busy:
            steps.say(f"[bold]… waiting for the other lane(s):[/] {busy}")
        for t in threads:
            t.join()
    if others:
        steps.console.print("[bold]Ran alongside the steps above:[/]")
        for s in others:
            s.flush()
    if errors:
        raise errors[0]
    return [results[i] for i in range(len(jobs))]
