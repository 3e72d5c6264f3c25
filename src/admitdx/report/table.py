"""``table.md``: the main results as Markdown tables, one block per track, intervals in brackets."""

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


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_ci(metric: dict[str, Any] | None, digits: int = 3) -> str:
    """``0.512 [0.488, 0.537]``; the bracket is left out when no interval was computed."""
    if not metric or metric.get("value") is None:
        return "–"
    ci = metric.get("ci")
    text = fmt(metric["value"], digits)
    return f"{text} [{fmt(ci[0], digits)}, {fmt(ci[1], digits)}]" if ci else text


def macro(clinibench: dict[str, Any], key: str) -> dict[str, Any]:
    """A CliniBench macro score in the ``{"value", "ci"}`` shape of the other metrics."""
    ci = clinibench.get(f"{key}_ci")
    return {"value": clinibench.get(key), "ci": list(ci) if ci else None}


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render_table(results: dict[str, Any]) -> str:
    """The Markdown text of ``table.md``."""
    systems = results["systems"]
    conf = round(100 * results["params"]["confidence"])
    lines = [
        f"# admitdx results — {results['n_instances']} encounters, {results['n_patients']} patients, "
        f"matcher `{results['params']['matcher']}`",
        "",
        f"Values with {conf} % patient-level bootstrap intervals "
        f"({results['params']['n_bootstrap']} replicates).",
    ]
    if results.get("tracks_note"):
        lines += ["", f"> {results['tracks_note']}"]
    for track in results["tracks"]:
        lines += ["", f"## {TRACK_TITLES.get(track, track)}", ""]
        lines.append(_row(["system", *(label for _, label in MAIN_COLUMNS), "mean #ref"]))
        lines.append(_row(["---"] * (len(MAIN_COLUMNS) + 2)))
        for s in systems:
            m = s["metrics"]
            cells = [fmt_ci(m.get(f"{track}.{key}")) for key, _ in MAIN_COLUMNS]
            lines.append(_row([s["name"], *cells, fmt(m[f"{track}.mean_references"]["value"], 2)]))
    lines += ["", "## Time-critical conditions (encounter level)", ""]
    lines.append(_row(["system", "recall", "precision", "F1", "graded recall", "graded precision"]))
    lines.append(_row(["---"] * 6))
    for s in systems:
        m = s["metrics"]
        lines.append(
            _row(
                [
                    s["name"],
                    *(
                        fmt_ci(m.get(k))
                        for k in (
                            "tc.recall",
                            "tc.precision",
                            "tc.f1",
                            "tc_graded.recall",
                            "tc_graded.precision",
                        )
                    ),
                ]
            )
        )
    lines += ["", "## CliniBench (3-character codes, top-20, macro over labels)", ""]
    lines.append(_row(["system", "macro P", "macro R", "macro F1", "MAP", "MD acc."]))
    lines.append(_row(["---"] * 6))
    for s in systems:
        cb, m = s["clinibench"], s["metrics"]
        lines.append(
            _row(
                [
                    s["name"],
                    fmt_ci(macro(cb, "macro_precision")),
                    fmt_ci(macro(cb, "macro_recall")),
                    fmt_ci(macro(cb, "macro_f1")),
                    fmt_ci(m.get("clinibench.map")),
                    fmt_ci(m.get("clinibench.main_diagnosis_accuracy")),
                ]
            )
        )
    lines += ["", "## Counts", ""]
    lines.append(
        _row(["system", "predictions", "missing", "parse errors", "outside split", "unmapped codes"])
    )
    lines.append(_row(["---"] * 6))
    for s in systems:
        c = s["counts"]
        lines.append(
            _row(
                [
                    s["name"],
                    *(
                        str(c[k])
                        for k in ("predictions", "missing", "parse_errors", "outside_split", "unmapped_codes")
                    ),
                ]
            )
        )
    caveats = [f"- **{s['name']}**: {s['caveat']}" for s in systems if s.get("caveat")]
    if caveats:
        lines += ["", "## Caveats", "", *caveats]
    return "\n".join(lines) + "\n"


def write_table(results: dict[str, Any], path: Path) -> Path:
    path.write_text(render_table(results), encoding="utf-8")
    return path
