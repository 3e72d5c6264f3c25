"""The leaderboard of a study (or of the demo's runs): each scored task run's results, its report
and browser links relative to the leaderboard, and the published numbers that apply to it (the same
task, built with the parameters the number needs)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from admitdx.report.browser import BROWSER_FILE
from admitdx.report.html import REPORT_FILE
from admitdx.report.leaderboard import TaskRun, build_leaderboard
from admitdx.report.leaderboard_files import write_leaderboard_files
from admitdx.study.published import load_published


@dataclass(frozen=True)
class Scored:
    """One scored task run: its column group's name, the registered task and its build parameters
    (which published numbers apply), where its report is, and its results."""

    name: str
    task: str
    params: Any
    report_dir: Path
    results: dict[str, Any]


def system_order(scored: list[Scored]) -> list[str]:
    """Every system in the order it first appears (the leaderboard's rows)."""
    names: dict[str, None] = {}
    for s in scored:
        names.update(dict.fromkeys(system["name"] for system in s.results["systems"]))
    return list(names)


def write_leaderboard(out: Path, title: str, scored: list[Scored], systems: list[str] | None = None) -> Path:
    """leaderboard.{json,md,tex,html} in ``out``; returns the html's path."""
    published = load_published()
    runs = []
    for s in scored:
        href = Path(os.path.relpath(s.report_dir, out)).as_posix()
        applies = tuple(
            {"label": p.label, "metric": p.metric, "value": p.value, "printed": p.printed,
             "source": f"{p.benchmark} {p.source}", "data": p.data}
            for p in published
            if p.applies_to(s.task, s.params)
        )  # fmt: skip
        runs.append(TaskRun(s.name, f"{href}/{REPORT_FILE}", f"{href}/{BROWSER_FILE}", s.results, applies))
    board = build_leaderboard(title, systems or system_order(scored), runs)
    return write_leaderboard_files(board, out)
