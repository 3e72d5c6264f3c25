"""A study's leaderboard: one row per system, one column group per task run with that task's
primary metrics (value, 95 % interval, n, rank), and the papers' published numbers beside them.

Built from each task run's results.json only. Which metrics a task shows is one table,
:data:`PRIMARY_METRICS` (suite → results.json keys), so a renamed metric is a one-line change.
A key starting with ``.`` matches every headline metric ending with it (a text task has one
ROUGE-L per part). Ranks are per column, among the study's own systems, best first (every
primary metric is higher-is-better), ties sharing the better rank (1, 2, 2, 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from admitdx.colours import assign

#: suite → (results.json key, column label); the issue's primary metrics per benchmark
PRIMARY_METRICS: dict[str, tuple[tuple[str, str], ...]] = {
    "earlydx": (("supported.micro_f1", "supported micro-F1"),),
    "clinibench": (("clinibench.macro_f1", "macro-F1"), ("clinibench.map", "MAP")),
    "category": (("accuracy", "accuracy"),),
    "text": ((".rougeL_f1", "ROUGE-L"), (".concept_recall", "concept recall")),
    "final_diagnosis": (
        ("main.exact", "exact ICD"),
        ("main.category3", "3-character"),
        ("main.ccsr", "CCSR"),
        ("main.hcc", "HCC"),
    ),
}
NOT_COMPARABLE = (
    "Published numbers are the papers' own, measured on the full data each names (MIMIC-IV, "
    "MIMIC-IV-Note, the ER-Reason release) with the papers' models; they are not comparable to "
    "numbers on a demo, a synthetic root or another cohort, and carry no rank."
)


def system_colours(systems: Sequence[str]) -> dict[str, str]:
    """Each system's colour on the leaderboard: :mod:`admitdx.colours`, by its place in the study."""
    return {name: style.colour for name, style in assign(systems).items()}


@dataclass(frozen=True)
class TaskRun:
    """One task run of the study as the leaderboard needs it."""

    name: str
    report: str  # href of its report.html, relative to the leaderboard
    browser: str  # href of its encounters.html
    results: dict[str, Any]
    published: tuple[dict[str, Any], ...] = ()  # {label, metric, value, printed, source, data}


def primary_metrics(results: dict[str, Any]) -> list[tuple[str, str]]:
    """The (key, label) columns of a task run, in :data:`PRIMARY_METRICS` order."""
    headline = results.get("headline_metrics", [])
    columns = []
    for key, label in PRIMARY_METRICS.get(results["suite"], ()):
        if key.startswith("."):
            columns += [(m, f"{m.removesuffix(key)} {label}") for m in headline if m.endswith(key)]
        elif key in headline:
            columns.append((key, label))
    return columns


def cell_n(system: dict[str, Any], metric: str) -> int:
    """How many encounters a metric rests on: the track's for an EarlyDx track metric, else every
    evaluated instance of the system."""
    track = (system.get("sample_size") or {}).get(metric.split(".")[0])
    return int(track["n_encounters"]) if track else int(system["counts"]["instances"])


def build_leaderboard(title: str, systems: list[str], runs: list[TaskRun]) -> dict[str, Any]:
    """The leaderboard as data (leaderboard.json); the html, md and tex pages render it."""
    columns = []
    for run in runs:
        by_name = {s["name"]: s for s in run.results["systems"]}
        for key, label in primary_metrics(run.results):
            cells = {name: _cell(by_name[name], key) for name in systems if name in by_name}
            _rank(cells)
            published = [
                {k: p[k] for k in ("label", "value", "printed", "source", "data")}
                for p in run.published
                if p["metric"] == key
            ]
            columns.append({
                "task": run.name, "suite": run.results["suite"], "metric": key, "label": label,
                "report": run.report, "browser": run.browser, "subset": _subset(run.results),
                "cells": [cells.get(name) for name in systems], "published": published,
            })  # fmt: skip
    return {
        "title": title,
        "systems": [{"name": s, "colour": c} for s, c in system_colours(systems).items()],
        "columns": columns,
        "published_note": NOT_COMPARABLE,
    }


def _subset(results: dict[str, Any]) -> str | None:
    """A run on a cut of its dataset says so in its header (without the dataset's path, so that a
    study moved elsewhere writes the same leaderboard)."""
    return f"a subset: {results['n_instances']} scored test instances" if results.get("subset") else None


def _cell(system: dict[str, Any], key: str) -> dict[str, Any] | None:
    metric = system["metrics"].get(key)
    if metric is None:
        return None
    return {"value": metric.get("value"), "ci": metric.get("ci"), "n": cell_n(system, key), "rank": None}


def _rank(cells: dict[str, dict[str, Any] | None]) -> None:
    scored = sorted((c["value"] for c in cells.values() if c and c["value"] is not None), reverse=True)
    for c in cells.values():
        if c and c["value"] is not None:
            c["rank"] = scored.index(c["value"]) + 1
