"""The one progress bar every long-running verb shows: count, rate, elapsed time and time left."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text


def _rate(task: Task) -> float | None:
    """Items per second since the task started. Rich's own speed looks back 30 s only, so a step
    whose items come slower than that (an LLM on a CPU) showed ``–/s`` and no time left for the
    whole run; the mean since the start is there from the first item on. A finished task's rate is
    over the time it ran (``task.elapsed`` keeps counting while later rows of the bar work)."""
    elapsed = task.finished_time if task.finished else task.elapsed
    if not task.completed or not elapsed:
        return None
    return task.completed / elapsed


class RateColumn(ProgressColumn):
    """Items per second (or seconds per item when slower than one a second), from the first item."""

    def render(self, task: Task) -> Text:
        rate = _rate(task)
        if rate is None:
            text = "–/s"
        elif rate < 1:
            text = f"{1 / rate:,.1f} s/item"
        else:
            text = f"{rate:,.1f}/s" if rate < 100 else f"{rate:,.0f}/s"
        return Text(text, style="progress.data.speed")


class TimeLeftColumn(ProgressColumn):
    """The time left at the rate so far; ``–`` until the first item or without a total."""

    def render(self, task: Task) -> Text:
        rate = _rate(task)
        if task.finished:
            return Text("0:00:00", style="progress.remaining")
        if rate is None or task.total is None:
            return Text("–", style="progress.remaining")
        seconds = int((task.total - task.completed) / rate)
        return Text(
            f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}", style="progress.remaining"
        )


def progress_bar(console: Console, *, transient: bool = False) -> Progress:
    """``description  ━━━━  12/40  3.1/s  elapsed 0:00:04  left 0:00:09``."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeLeftColumn(),
        console=console,
        transient=transient,
    )
