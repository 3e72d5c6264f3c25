"""A study's leaderboard: one row per system, one column group per task run with that task's
primary metrics (value, 95 % interval, n scored, rank, the difference with the column's best system
and its paired interval), HELM's mean win rate, the papers' published numbers as reference lines,
and the study's provenance.

Built from each task run's results.json and differences.json only. Which metrics a task shows is one table,
:data:`PRIMARY_METRICS` (suite → results.json keys), so a renamed metric is a one-line change.
A key starting with ``.`` matches every headline metric ending with it (a text task has one
ROUGE-L per part). Ranks are per column, among the study's own systems, best first (every
primary metric is higher-is-better), ties sharing the better rank (1, 2, 2, 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from admitdx.colours import Style, assign
from admitdx.report import evidence, repeats
from admitdx.report.counts import LEGEND, scored_of

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


WIN_RATE_NOTE = (
    "Mean win rate (HELM's summary across scenarios): in each task column, the share of the other "
    "systems with a number there that a system beats (a tie counts half); averaged over a task run's "
    "columns, then over the task runs the system took part in. It says how often a system wins, not "
    "by how much: read the differences for that."
)
DIFFERENCE_NOTE = (
    "Δ: the difference with the best system of the column and its 95 % paired patient-bootstrap "
    "interval (the same resampled patients for both); * where the interval excludes 0."
)


def system_styles(systems: Sequence[str]) -> dict[str, Style]:
    """Each system's colour and pattern on the leaderboard: :mod:`admitdx.colours`, by its place in
    the study (the same assignment the study hands every task run's scoring)."""
    return assign(systems)


@dataclass(frozen=True)
class TaskRun:
    """One task run of the study as the leaderboard needs it. ``differences`` is the run's
    differences.json ``metrics`` block (:mod:`admitdx.scoring.differences`)."""

    name: str
    report: str  # href of its report.html, relative to the leaderboard
    browser: str  # href of its encounters.html
    results: dict[str, Any]
    published: tuple[dict[str, Any], ...] = ()  # {label, metric, value, printed, source, data}
    differences: dict[str, Any] = field(default_factory=dict)
    #: a run repeated over seeds: (seed, results.json) of every seed; ``results`` is the first's
    seeds: tuple[tuple[int, dict[str, Any]], ...] = ()


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


def run_counts(results: dict[str, Any]) -> dict[str, Any]:
    """What a task run's column group says about its size, in :mod:`admitdx.report.counts`' words:
    ``n`` scored of ``of`` in the benchmark set, whether it is a subset, and the trial mark of a run
    a system did not finish (a ``--limit`` run: the rest are scored as empty)."""
    n = int(results["n_instances"])
    cut = results.get("subset_trial")
    subset = bool(results.get("subset"))
    of = int(cut["of"]) if cut else None if subset else n
    text = scored_of(n, of) if of is not None else f"{n} scored"
    trial = None if subset else evidence.trial_text(results)  # a subset's own mark says it already
    return {"n": n, "of": of, "subset": subset, "text": f"subset: {text}" if subset else text, "trial": trial}


def build_leaderboard(
    title: str, systems: list[str], runs: list[TaskRun], provenance: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The leaderboard as data (leaderboard.json); the html, md and tex pages render it."""
    columns = []
    for run in runs:
        by_name = {s["name"]: s for s in run.results["systems"]}
        counts = run_counts(run.results)
        if run.seeds:
            counts["seeds"] = [seed for seed, _ in run.seeds]
            counts["text"] += f"; mean of {len(run.seeds)} seeds ({', '.join(map(str, counts['seeds']))})"
        for key, label in primary_metrics(run.results):
            gaps = run.differences.get(key) or {}
            if run.seeds:
                cells = {name: _seed_cell(run, name, key) for name in systems if name in by_name}
                gaps = {"best": repeats.mark_best(cells)}
            else:
                cells = {name: _cell(by_name[name], key, gaps) for name in systems if name in by_name}
            _rank(cells)
            published = [
                {k: p[k] for k in ("label", "value", "printed", "source", "data")}
                for p in run.published
                if p["metric"] == key
            ]
            columns.append({
                "task": run.name, "suite": run.results["suite"], "metric": key, "label": label,
                "report": run.report, "browser": run.browser, "counts": counts,
                "subset": counts["text"] if counts["subset"] else None, "best": gaps.get("best"),
                "cells": [cells.get(name) for name in systems], "published": published,
            })  # fmt: skip
    styles = system_styles(systems)
    return {
        "title": title,
        "legend": [{"term": term, "meaning": meaning} for term, meaning in LEGEND],
        "systems": [{"name": s, "colour": st.colour, "pattern": st.pattern} for s, st in styles.items()],
        "columns": columns,
        "win_rate": {"note": WIN_RATE_NOTE, "systems": mean_win_rates(systems, columns)},
        "difference_note": DIFFERENCE_NOTE,
        "published_note": NOT_COMPARABLE,
        "provenance": provenance or {},
    }


def mean_win_rates(systems: list[str], columns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """HELM's mean win rate per system (:data:`WIN_RATE_NOTE`); None for a system that met no other
    system in any column."""
    per_run: dict[str, dict[str, list[float]]] = {name: {} for name in systems}
    for col in columns:
        values = {
            n: c["value"] for n, c in zip(systems, col["cells"], strict=True) if c and c["value"] is not None
        }
        if len(values) < 2:
            continue
        for name, v in values.items():
            wins = sum(
                1.0 if v > w else 0.5 if v == w else 0.0 for other, w in values.items() if other != name
            )
            per_run[name].setdefault(col["task"], []).append(wins / (len(values) - 1))
    out = []
    for name in systems:
        rates = [sum(r) / len(r) for r in per_run[name].values()]
        value = sum(rates) / len(rates) if rates else None
        out.append({"name": name, "value": value, "task_runs": len(rates)})
    return out


def _seed_cell(run: TaskRun, name: str, key: str) -> dict[str, Any] | None:
    entries = [next((s for s in results["systems"] if s["name"] == name), None) for _, results in run.seeds]
    n = [cell_n(e, key) if e else 0 for e in entries]
    return repeats.seed_cell(entries, [seed for seed, _ in run.seeds], key, n)


def _cell(system: dict[str, Any], key: str, gaps: dict[str, Any]) -> dict[str, Any] | None:
    metric = system["metrics"].get(key)
    if metric is None:
        return None
    gap = (gaps.get("systems") or {}).get(system["name"])
    difference = None
    if gap is not None and gaps.get("best") != system["name"]:
        difference = {"value": gap["difference"], "ci": gap["ci"], "mark": bool(gap["excludes_zero"])}
    return {
        "value": metric.get("value"), "ci": metric.get("ci"), "n": cell_n(system, key), "rank": None,
        "best": gaps.get("best") == system["name"], "difference": difference,
    }  # fmt: skip


def _rank(cells: dict[str, dict[str, Any] | None]) -> None:
    scored = sorted((c["value"] for c in cells.values() if c and c["value"] is not None), reverse=True)
    for c in cells.values():
        if c and c["value"] is not None:
            c["rank"] = scored.index(c["value"]) + 1
