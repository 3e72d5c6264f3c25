"""The stage machinery of a study: timed steps (printed now, or kept for a stage that runs in another
lane) and scoring with its report (the documented LLM subset of a dataset is :mod:`admitdx.study.subset`)."""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from admitdx.report.browser import write_browser
from admitdx.report.html import write_report
from admitdx.report.table import TABLE_FILE, write_table
from admitdx.scoring.run import ScoreParams, score_run
from admitdx.study.encounters import encounters


def cpu_seconds() -> float:
    """CPU seconds of this process (all its threads) and of its finished children (the stopped
    llama.cpp servers): what the demo has cost the machine so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Steps:
    """Timed steps. In the foreground each line is printed at once; a stage running in a background
    thread keeps its lines (``buffered``) and the foreground prints them when it collects the
    stage, so they never cut through the foreground's progress bars."""

    def __init__(self, console: Console, *, buffered: bool = False) -> None:
        self.console = console
        self.buffered = buffered
        self.lines: list[str] = []

    def say(self, line: str) -> None:
        if self.buffered:
            self.lines.append(line)
        else:
            self.console.print(line)

    @contextmanager
    def step(self, title: str) -> Iterator[None]:
        started = time.perf_counter()
        self.say(f"[bold]▶ {title}[/]")
        yield
        self.say(f"   done in {time.perf_counter() - started:.1f} s")

    def flush(self) -> None:
        for line in self.lines:
            self.console.print(line)
        self.lines.clear()


def score_and_report(
    dataset: Path, dirs: list[Path], run_dir: Path, params: ScoreParams
) -> tuple[dict[str, Any], Path]:
    """Score the prediction directories into ``run_dir``; (the results, the path of report.html).
    The per-encounter browser is written first, so that the report links to it."""
    results = score_run(dataset, dirs, run_dir, params)
    write_table(results, run_dir / TABLE_FILE)
    write_browser(run_dir, results, encounters(dataset, results, params.split))
    return results, write_report(run_dir)
