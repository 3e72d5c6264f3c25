"""The headline table printed in the terminal after scoring (the HTML report has everything)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

COLUMNS = (
    ("P", "micro_precision"),
    ("R", "micro_recall"),
    ("F1", "micro_f1"),
    ("R@1", "recall@1"),
    ("explicit R", "explicit_recall"),
    ("implicit R", "implicit_recall"),
)


def _cell(metric: dict[str, Any] | None, with_ci: bool) -> str:
    if not metric or metric.get("value") is None:
        return "–"
    text = f"{metric['value']:.3f}"
    ci = metric.get("ci")
    if with_ci and ci and None not in ci:
        text += f" [{ci[0]:.2f}, {ci[1]:.2f}]"
    return text


def headline_table(results: dict[str, Any]) -> Table:
    """Micro P/R/F1 (F1 with its 95 % patient-bootstrap interval), R@1 and explicit/implicit recall
    on the primary track, plus unparseable outputs, one row per system; for the other suites, their
    first headline metrics with intervals."""
    if results.get("suite", "earlydx") != "earlydx":
        return _suite_table(results)
    track = results["primary_track"]
    table = Table(
        title=f"{track} labels · {results['n_instances']} encounters, {results['n_patients']} patients",
        box=None,
    )
    table.add_column("system")
    for header, _ in COLUMNS:
        table.add_column(header, justify="right")
    table.add_column("unparseable", justify="right")
    for system in results["systems"]:
        metrics = system["metrics"]
        cells = [_cell(metrics.get(f"{track}.{key}"), with_ci=key == "micro_f1") for _, key in COLUMNS]
        table.add_row(system["name"], *cells, str(system["counts"]["parse_errors"]))
    return table


def print_headline(console: Console, results: dict[str, Any]) -> None:
    """Print the headline table at least 100 columns wide: logs and pipes report 80 columns, which
    would fold every interval onto extra lines."""
    wide = Console(file=console.file, width=max(console.width, 100), force_terminal=console.is_terminal)
    wide.print(headline_table(results))


def _suite_table(results: dict[str, Any]) -> Table:
    names = results["headline_metrics"][:6]
    table = Table(
        title=f"{results['task']} · {results['n_instances']} encounters, {results['n_patients']} patients",
        box=None,
    )
    table.add_column("system")
    for name in names:
        table.add_column(name, justify="right")
    table.add_column("unparseable", justify="right")
    for system in results["systems"]:
        cells = [_cell(system["metrics"].get(n), with_ci=True) for n in names]
        table.add_row(system["name"], *cells, str(system["counts"]["parse_errors"]))
    return table
