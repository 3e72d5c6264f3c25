"""``admitdx report RUN_DIR``: one self-contained ``report.html`` from ``results.json``.

The page carries its figures as inline SVG and its style inline, so it can be mailed or archived
as a single file and opened without a network. The layout is in the Jinja2 template
``templates/report.html.j2`` (package data); this module prepares the figures and cells.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from admitdx.errors import UsageError
from admitdx.metrics.earlydx import RECALL_AT_K
from admitdx.report import evidence, plots
from admitdx.report.browser import BROWSER_FILE
from admitdx.report.counts import LEGEND, scored_of
from admitdx.report.figures import figure_plots
from admitdx.report.table import (
    MAIN_COLUMNS,
    REPORT_TITLES,
    SUITE_TITLES,
    TRACK_TITLES,
    column_label,
    fmt,
    fmt_ci,
    shown_metrics,
)
from admitdx.runs import write_aside
from admitdx.scoring.run import RESULTS_FILE

REPORT_FILE = "report.html"
TEMPLATES = Path(__file__).parent / "templates"


def heat(value: float | None, lo: float = 0.0, hi: float = 1.0) -> str:
    """Background colour for a score cell: white at ``lo`` to blue at ``hi``."""
    if value is None:
        return "background:#f9fafb;color:#9ca3af"
    t = min(max((value - lo) / (hi - lo), 0.0), 1.0) if hi > lo else 0.0
    r, g, b = (int(255 + (c - 255) * t * 0.85) for c in (37, 99, 235))
    return f"background:rgb({r},{g},{b});color:{'#fff' if t > 0.62 else '#111827'}"


def delta_style(value: float | None) -> str:
    """Green for a gain, red for a loss, by size (per-condition change against the baseline)."""
    if value is None:
        return "color:#9ca3af"
    t = min(abs(value) / 0.3, 1.0)
    base = (5, 150, 105) if value > 0 else (220, 38, 38)
    r, g, b = (int(255 + (c - 255) * t * 0.7) for c in base)
    return f"background:rgb({r},{g},{b})"


def figures(results: dict[str, Any]) -> dict[str, str]:
    """The suite's figures as inline SVG by name ("" for a figure the run has no data for)."""
    out = {}
    for name, plot in figure_plots(results).items():
        try:
            out[name] = plots.svg(plot)
        finally:
            plots.close(plot)
    return out


def render_report(results: dict[str, Any], browser: str | None = None) -> str:
    """The page; ``browser``: the href of the run's per-encounter browser, linked when there is one."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]))
    style = plots.styles(results)
    env.filters.update(
        fmt=fmt,
        fmt_ci=fmt_ci,
        heat=heat,
        delta_style=delta_style,
        colour=lambda name: style[name].colour,
        column=column_label,
    )
    env.globals.update(
        significant=lambda s, name: evidence.significant(results, s, name),
        scored_on=lambda name: evidence.sample_text(results, name),
        uninformative=evidence.uninformative,
        uninformative_mark=evidence.UNINFORMATIVE_MARK,
        trial=evidence.trial_text(results),
        system_trial=lambda s: evidence.system_trial_text(results, s),
        scored_of=scored_of,
        counts_legend=LEGEND,
    )
    shown = shown_metrics(results)
    systems = results["systems"]
    conditions = [  # conditions no system could be scored on (never recorded nor flagged) are left out
        c
        for c in (systems[0].get("per_condition_f1") or {} if systems else {})
        if any(s["per_condition_f1"][c] is not None for s in systems)
    ]
    axes = sorted({axis for s in systems for axis in s.get("subgroups") or {}})
    return env.get_template("report.html.j2").render(
        r=results,
        figs=figures(results),
        main_columns=MAIN_COLUMNS,
        track_titles=TRACK_TITLES,
        suite_titles=SUITE_TITLES,
        report_title=REPORT_TITLES.get(results.get("suite", "earlydx"), "report"),
        ks=RECALL_AT_K,
        conditions=conditions,
        axes=axes,
        alpha=evidence.ALPHA,
        suppressed_note=evidence.suppressed_note(results, shown),
        uninformative_note=evidence.UNINFORMATIVE_NOTE
        if evidence.any_uninformative(results, shown)
        else None,
        agreement_rows=_agreement_rows(results.get("agreement") or []),
        agreement_fields=[label for _, label in AGREEMENT_FIELDS],
        browser=browser,
    )


AGREEMENT_FIELDS = (
    ("compared", "encounters"),
    ("exact_count_agreement", "same count"),
    ("within_one_agreement", "within one pair"),
    ("pair_set_agreement", "same pairs"),
    ("f1_pearson", "Pearson r of F1"),
)


def _agreement_rows(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per ``admitdx agree`` result: the predictions it is about, the two matchers, the figures."""
    rows = []
    for item in found:
        data = item["result"] if isinstance(item["result"], dict) else {}
        rows.append(
            {
                "source": Path(item["source"]).parent.parent.name,
                "pair": f"{data.get('a', '?')} vs {data.get('b', '?')}",
                "values": [data.get(key) for key, _ in AGREEMENT_FIELDS],
            }
        )
    return rows


def load_results(run_dir: Path) -> dict[str, Any]:
    """``RUN_DIR/results.json``, or a usage error that says how to make one."""
    path = Path(run_dir) / RESULTS_FILE
    if not path.exists():
        raise UsageError(
            f"{run_dir} has no {RESULTS_FILE}",
            hint="run `admitdx score --dataset DIR --predictions DIR --matcher NAME --out RUN_DIR` first",
        )
    return json.loads(path.read_text(encoding="utf-8"))


def write_report(run_dir: Path) -> Path:
    """Render ``RUN_DIR/report.html`` from ``RUN_DIR/results.json``."""
    out = Path(run_dir) / REPORT_FILE
    browser = BROWSER_FILE if (Path(run_dir) / BROWSER_FILE).exists() else None
    return write_aside(out, render_report(load_results(run_dir), browser))
