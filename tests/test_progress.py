"""The progress bar's rate and time left (issue 23): an LLM on a CPU finishes an item every 40 s,
longer than rich's 30-s speed window, which showed `–/s` and no time left for the whole run."""

from __future__ import annotations

from rich.progress import Progress

from admitdx.progress import RateColumn, TimeLeftColumn


def test_slow_items_still_show_a_rate_and_the_time_left() -> None:
    now = [0.0]
    progress = Progress(RateColumn(), TimeLeftColumn(), get_time=lambda: now[0])
    task_id = progress.add_task("llm", total=10)
    task = progress.tasks[0]
    assert (RateColumn().render(task).plain, TimeLeftColumn().render(task).plain) == ("–/s", "–")
    now[0] = 40.0
    progress.advance(task_id)
    assert RateColumn().render(task).plain == "40.0 s/item"
    assert TimeLeftColumn().render(task).plain == "0:06:00"  # 9 items left at 40 s each
    now[0] = 45.0
    progress.advance(task_id, 9)  # the rest in 5 s: the mean since the start, nothing left
    assert RateColumn().render(task).plain == "4.5 s/item"
    assert TimeLeftColumn().render(task).plain == "0:00:00"
    fast_id = progress.add_task("exact matching", total=100)
    fast = progress.tasks[fast_id]
    now[0] = 47.0
    progress.advance(fast_id, 30)
    assert (RateColumn().render(fast).plain, TimeLeftColumn().render(fast).plain) == ("15.0/s", "0:00:04")
    # a finished row keeps the rate it ran at while later rows work (as its elapsed time does)
    now[0] = 100.0
    assert (RateColumn().render(task).plain, TimeLeftColumn().render(task).plain) == ("4.5 s/item", "0:00:00")
