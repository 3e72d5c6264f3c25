"""``table.md``: the main results as Markdown tables with intervals in brackets: one block per
evidence track for EarlyDx, one block of the suite's headline metrics for the other suites."""

from __future__ import annotations

from pathlib import Path
from typing import Any

MAIN_COLUMNS: tuple[tuple[str, str], ...] = (
    ("micro_precision", "P"),
    ("micro_recall", "R"),
    ("micro_f1", "F1"),
    ("example_f1", "ex-F1"),
    ("complete_match_rate", "complete"),
    ("mean_predictions", "#pred"),
)
TRACK_TITLES = {
    "supported": "Supported labels (primary track)",
    "supported_partial": "Supported + partially supported labels",
    "partial": "Partially supported labels only",
    "all": "All labels",
}


SUITE_TITLES = {
    "clinibench": "CliniBench (3-character codes, top-n, macro over labels)",
    "category": "Categories (accuracy, under/over-triage, predicted share per class)",
    "text": "Texts (ROUGE F1, Porter stemming)",
    "final_diagnosis": "Final diagnosis (first coded answer vs main / any gold code)",
}
TABLE_FILE = "table.md"


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_ci(metric: dict[str, Any] | None, digits: int = 3) -> str:
    """``0.512 [0.488, 0.537]``; the bracket is left out when no interval was computed."""
    if not metric or metric.get("value") is None:
        return "–"
    ci = metric.get("ci")
    text = fmt(metric["value"], digits)
    return f"{text} [{fmt(ci[0], digits)}, {fmt(ci[1], digits)}]" if ci else text


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render_table(results: dict[str, Any]) -> str:
    """The Markdown text of ``table.md``: the blocks of the suite that scored the run."""
    conf = round(100 * results["params"]["confidence"])
    matcher = results["params"].get("matcher")
    lines = [
        f"# admitdx results — {results.get('task', 'earlydx')}: {results['n_instances']} encounters, "
        f"{results['n_patients']} patients" + (f", matcher `{matcher}`" if matcher else ""),
        "",
        f"Values with {conf} % patient-level bootstrap intervals "
        f"({results['params']['n_bootstrap']} replicates).",
    ]
    if results.get("tracks_note"):
        lines += ["", f"> {results['tracks_note']}"]
    suite = results.get("suite", "earlydx")
    lines += _earlydx_blocks(results) if suite == "earlydx" else _headline_block(results)
    lines += _counts_block(results["systems"])
    caveats = [f"- **{s['name']}**: {s['caveat']}" for s in results["systems"] if s.get("caveat")]
    if caveats:
        lines += ["", "## Caveats", "", *caveats]
    return "\n".join(lines) + "\n"


def _earlydx_blocks(results: dict[str, Any]) -> list[str]:
    systems, lines = results["systems"], []
    for track in results["tracks"]:
        lines += ["", f"## {TRACK_TITLES.get(track, track)}", ""]
        lines.append(_row(["system", *(label for _, label in MAIN_COLUMNS), "mean #ref"]))
        lines.append(_row(["---"] * (len(MAIN_COLUMNS) + 2)))
        for s in systems:
            m = s["metrics"]
            cells = [fmt_ci(m.get(f"{track}.{key}")) for key, _ in MAIN_COLUMNS]
            lines.append(_row([s["name"], *cells, fmt(m[f"{track}.mean_references"]["value"], 2)]))
    tc = ("tc.recall", "tc.precision", "tc.f1", "tc_graded.recall", "tc_graded.precision")
    lines += ["", "## Time-critical conditions (encounter level)", ""]
    lines.append(_row(["system", "recall", "precision", "F1", "graded recall", "graded precision"]))
    lines.append(_row(["---"] * 6))
    for s in systems:
        lines.append(_row([s["name"], *(fmt_ci(s["metrics"].get(k)) for k in tc)]))
    return lines


def _headline_block(results: dict[str, Any]) -> list[str]:
    """One column per headline metric of the suite (CliniBench, categories, texts, codes)."""
    names = results["headline_metrics"]
    lines = ["", f"## {SUITE_TITLES.get(results['suite'], results['suite'])}", ""]
    lines.append(_row(["system", *names]))
    lines.append(_row(["---"] * (len(names) + 1)))
    for s in results["systems"]:
        lines.append(_row([s["name"], *(fmt_ci(s["metrics"].get(n)) for n in names)]))
    return lines


def _counts_block(systems: list[dict[str, Any]]) -> list[str]:
    keys = list(dict.fromkeys(k for s in systems for k in s["counts"] if k != "instances"))
    lines = ["", "## Counts", "", _row(["system", *(k.replace("_", " ") for k in keys)])]
    lines.append(_row(["---"] * (len(keys) + 1)))
    lines += [_row([s["name"], *(str(s["counts"].get(k, "–")) for k in keys)]) for s in systems]
    return lines


def write_table(results: dict[str, Any], path: Path) -> Path:
    path.write_text(render_table(results), encoding="utf-8")
    return path
