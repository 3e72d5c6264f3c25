"""The headline table printed in the terminal after scoring (the HTML report has everything)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from admitdx.report import evidence
from admitdx.report.table import column_label

COLUMNS = (
    ("P", "micro_precision"),
    ("R", "micro_recall"),
    ("F1", "micro_f1"),
    ("R@1", "recall@1"),
    ("explicit R", "explicit_recall"),
    ("implicit R", "implicit_recall"),
)


def _cell(metric: dict[str, Any] | None, with_ci: bool, name: str = "") -> str:
    if not metric or metric.get("value") is None:
        return "–"
    text = f"{metric['value']:.3f}"
    ci = metric.get("ci")
    if with_ci and ci and None not in ci:
        text += f" [{ci[0]:.2f}, {ci[1]:.2f}]"
        if evidence.uninformative(metric, name):
            text += evidence.UNINFORMATIVE_MARK
    return text


def _title(results: dict[str, Any], label: str, metric: str) -> str:
    """The table's title names what its numbers were computed over, then the evaluated split."""
    scored_on = evidence.sample_text(results, metric)
    split = f"{results['n_instances']} encounters, {results['n_patients']} patients"
    trial = evidence.trial_text(results)
    return (f"{trial.upper()} · " if trial else "") + (
        f"{label} · scored on {scored_on} (of the {results['params']['split']} split's {split})"
    )


def headline_table(results: dict[str, Any]) -> Table:
    """Micro P/R/F1 (F1 with its 95 % patient-bootstrap interval), R@1 and explicit/implicit recall
    on the primary track, plus unparseable outputs, one row per system; for the other suites, their
    first headline metrics with intervals."""
    if results.get("suite", "earlydx") != "earlydx":
        return _suite_table(results)
    track = results["primary_track"]
    table = Table(title=_title(results, f"{track} labels", f"{track}.micro_f1"), box=None)
    _system_column(table, results)
    for header, _ in COLUMNS:
        table.add_column(header, justify="right")
    table.add_column("unparseable", justify="right")
    for system in results["systems"]:
        metrics = system["metrics"]
        cells = [
            _cell(metrics.get(f"{track}.{key}"), with_ci=key == "micro_f1", name=key) for _, key in COLUMNS
        ]
        table.add_row(system["name"], *cells, str(system["counts"]["parse_errors"]))
    return table


def print_headline(console: Console, results: dict[str, Any]) -> None:
    """Print the headline table at least 100 columns wide: logs and pipes report 80 columns, which
    would fold every interval onto extra lines."""
    wide = Console(file=console.file, width=max(console.width, 100), force_terminal=console.is_terminal)
    wide.print(headline_table(results))
    if any(
        evidence.uninformative(s["metrics"].get(m), m) for s in results["systems"] for m in _shown(results)
    ):
        wide.print(evidence.UNINFORMATIVE_NOTE)


def _shown(results: dict[str, Any]) -> list[str]:
    if results.get("suite", "earlydx") != "earlydx":
        return list(results["headline_metrics"][:6])
    return [f"{results['primary_track']}.micro_f1"]


def _system_column(table: Table, results: dict[str, Any]) -> None:
    """The system column as wide as its longest name: rich would cut "code-frequency" to
    "code-frequ…" to fit the metric columns, which then wrap instead."""
    longest = max((len(s["name"]) for s in results["systems"]), default=6)
    table.add_column("system", no_wrap=True, min_width=longest)


def _suite_table(results: dict[str, Any]) -> Table:
    names = results["headline_metrics"][:6]
    table = Table(title=_title(results, results["task"], names[0]), box=None)
    _system_column(table, results)
    for name in names:
        table.add_column(column_label(name), justify="right")
    table.add_column("unparseable", justify="right")
    for system in results["systems"]:
        cells = [_cell(system["metrics"].get(n), with_ci=True, name=n) for n in names]
        table.add_row(system["name"], *cells, str(system["counts"]["parse_errors"]))
    return table


def print_missing(console: Console, results: dict[str, Any]) -> None:
    """Warn, per system, about evaluated encounters without a prediction and how they were scored
    (lm-eval warns about ``--limit``; a trial run scored against the full split must say so)."""
    n, split = results["n_instances"], results["params"]["split"]
    for s in results["systems"]:
        missing = s["counts"].get("missing", 0)
        if missing:
            console.print(
                f"[yellow]warning[/]: {s['name']}: {missing} of {n} {split} encounters have "
                "no prediction; each is scored as an empty prediction (its labels count as missed, it adds "
                "no false positive) and counted as `missing` (e.g. a --limit trial: rerun predict without "
                "--limit to complete it)."
            )
