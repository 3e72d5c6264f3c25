"""The study's leaderboard: each task run's results, its report and browser links relative to the
leaderboard, and the published numbers that apply to it (same task, same build parameters)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from admitdx.report.browser import BROWSER_FILE
from admitdx.report.html import REPORT_FILE
from admitdx.report.leaderboard import TaskRun, build_leaderboard
from admitdx.report.leaderboard_files import write_leaderboard_files
from admitdx.study.published import load_published
from admitdx.study.spec import Study


def write_leaderboard(study: Study, done: list[tuple[str, Path, dict[str, Any]]]) -> Path:
    """``done``: (task run name, its report directory, its results) in the study's order; writes
    leaderboard.{json,md,tex,html} into the study's out directory and returns the html's path."""
    published = load_published()
    runs = {t.name: t for t in study.tasks}
    task_runs = []
    for name, report_dir, results in done:
        run = runs[name]
        href = Path(os.path.relpath(report_dir, study.out)).as_posix()
        applies = tuple(
            {"label": p.label, "metric": p.metric, "value": p.value, "printed": p.printed,
             "source": f"{p.benchmark} {p.source}", "data": p.data}
            for p in published
            if p.applies_to(run.spec.name, run.params)
        )  # fmt: skip
        task_runs.append(TaskRun(name, f"{href}/{REPORT_FILE}", f"{href}/{BROWSER_FILE}", results, applies))
    board = build_leaderboard(study.path.stem, study.system_names, task_runs)
    return write_leaderboard_files(board, study.out)
