"""The leaderboard of a study (or of the demo's runs): each scored task run's results, its report
and browser links relative to the leaderboard, and the published numbers that apply to it (the same
task, built with the parameters the number needs)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from admitdx.report.browser import BROWSER_FILE
from admitdx.report.html import REPORT_FILE
from admitdx.report.leaderboard import TaskRun, build_leaderboard
from admitdx.report.leaderboard_files import write_leaderboard_files
from admitdx.scoring.differences import DIFFERENCES_FILE
from admitdx.study.provenance import study_provenance
from admitdx.study.published import load_published
from admitdx.study.scored import Scored


def system_order(scored: list[Scored]) -> list[str]:
    """Every system in the order it first appears (the leaderboard's rows)."""
    names: dict[str, None] = {}
    for s in scored:
        names.update(dict.fromkeys(system["name"] for system in s.results["systems"]))
    return list(names)


def write_leaderboard(
    out: Path,
    title: str,
    scored: list[Scored],
    systems: list[str] | None = None,
    study_file: Path | None = None,
    repeats: dict[str, tuple[str, int]] | None = None,
) -> Path:
    """leaderboard.{json,md,tex,html} in ``out``; returns the html's path. ``study_file``: the study
    file whose SHA-256 the provenance records; ``repeats``: run name → (the run it repeats, its seed),
    whose seeds become one column group (:mod:`admitdx.report.repeats`)."""
    published = load_published()
    repeats = repeats or {}
    runs: list[TaskRun] = []
    grouped: dict[str, TaskRun] = {}
    for s in scored:
        href = Path(os.path.relpath(s.report_dir, out)).as_posix()
        applies = tuple(
            {"label": p.label, "metric": p.metric, "value": p.value, "printed": p.printed,
             "source": f"{p.benchmark} {p.source}", "data": p.data}
            for p in published
            if p.applies_to(s.task, s.params)
        )  # fmt: skip
        gaps = s.report_dir / DIFFERENCES_FILE
        differences = json.loads(gaps.read_text(encoding="utf-8"))["metrics"] if gaps.is_file() else {}
        run = TaskRun(
            s.name, f"{href}/{REPORT_FILE}", f"{href}/{BROWSER_FILE}", s.results, applies, differences
        )
        if s.name not in repeats:
            runs.append(run)
            continue
        base, seed = repeats[s.name]
        if base in grouped:  # the next seed of a repeated run: its results join the first's column
            first = grouped[base]
            runs[runs.index(first)] = grouped[base] = replace(first, seeds=(*first.seeds, (seed, s.results)))
        else:  # the first seed's report and browser stand for the group
            grouped[base] = replace(run, name=base, seeds=((seed, s.results),))
            runs.append(grouped[base])
    provenance = study_provenance(study_file, scored)
    board = build_leaderboard(title, systems or system_order(scored), runs, provenance)
    return write_leaderboard_files(board, out)
