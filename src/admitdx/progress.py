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
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(ProgressColumn):
    """Items per second, once rich has measured a rate."""

    def render(self, task: Task) -> Text:
        if not task.speed:
            return Text("–/s", style="progress.data.speed")
        return Text(
            f"{task.speed:,.1f}/s" if task.speed < 100 else f"{task.speed:,.0f}/s",
            style="progress.data.speed",
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
        TimeRemainingColumn(),
        console=console,
        transient=transient,
    )
