"""``admitdx report RUN --figures DIR``: every figure of the report as SVG, PDF and PNG with the CSV
of the values it draws, and the main results as a LaTeX (booktabs) and a Markdown table.

The figures are the report's own (:func:`figure_plots`), so a paper's figure and the report a
co-author opens show the same numbers in the same colours.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from admitdx.metrics.earlydx import RECALL_AT_K
from admitdx.report import cb_figures, er_figures, evidence, plots
from admitdx.report.latex import render_latex
from admitdx.report.table import render_table

FORMATS = ("svg", "pdf", "png")
PNG_DPI = 200
TRACK_LABELS = {
    "supported": "supported",
    "supported_partial": "supp. + partial",
    "partial": "partial",
    "all": "all",
}


def figure_plots(results: dict[str, Any]) -> dict[str, plots.Plot]:
    """The suite's figures by name: EarlyDx's, CliniBench's (:mod:`.cb_figures`), the ER-Reason
    suites' (:mod:`.er_figures`), none for the others (shown as tables)."""
    out = _suite_plots(results)
    text = evidence.trial_text(results)
    if text:  # a trial's figure says so above it, wherever it is pasted
        for plot in out.values():
            plot.figure.suptitle(
                text, x=0.01, y=1.02, ha="left", color=TRIAL_INK, fontsize=9, fontweight="bold"
            )
    return out


TRIAL_INK = "#b91c1c"


def _suite_plots(results: dict[str, Any]) -> dict[str, plots.Plot]:
    if results.get("suite") == "clinibench":
        return cb_figures.figure_plots(results)
    if results.get("suite", "earlydx") != "earlydx":
        return er_figures.figure_plots(results)
    track = results["primary_track"]
    out = {
        "main": plots.grouped_bars(
            results,
            [
                (f"{track}.micro_precision", "precision"),
                (f"{track}.micro_recall", "recall"),
                (f"{track}.micro_f1", "micro-F1"),
                (f"{track}.example_f1", "example-F1"),
                (f"{track}.complete_match_rate", "complete match"),
            ],
            f"{track} labels",
            width=7.2,
        ),
        "recall_at_k": plots.recall_at_k(results, track, RECALL_AT_K),
        "cardinality": plots.cardinality(results, track),
        "explicit": plots.explicit_implicit(results, track),
        "truncation": plots.grouped_bars(
            results,
            [
                (f"{track}.micro_f1_top1", "top-1"),
                (f"{track}.micro_f1_top2", "top-2"),
                (f"{track}.micro_f1", "full list"),
            ],
            "micro-F1",
            width=5.2,
        ),
        "operating": plots.operating_points(results),
    }
    if results.get("coverage"):
        out["coverage"] = plots.coverage(results["coverage"], results.get("coverage_absent") or ())
    if len(results["tracks"]) > 1:
        out["tracks"] = plots.grouped_bars(
            results,
            [(f"{t}.micro_f1", TRACK_LABELS.get(t, t)) for t in results["tracks"]],
            "micro-F1",
            width=7.2,
        )
    return out


def write_figures(results: dict[str, Any], out_dir: Path) -> list[Path]:
    """Write ``<name>.svg|pdf|png|csv`` per figure, ``results.tex`` and ``results.md``; return the paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, plot in figure_plots(results).items():
        try:
            for fmt in FORMATS:
                path = out_dir / f"{name}.{fmt}"
                plot.figure.savefig(
                    path, format=fmt, bbox_inches="tight", dpi=PNG_DPI, metadata=_metadata(fmt)
                )
                written.append(path)
        finally:
            plots.close(plot)
        written.append(_write_csv(out_dir / f"{name}.csv", plot.rows))
    tex = out_dir / "results.tex"
    tex.write_text(render_latex(results), encoding="utf-8")
    md = out_dir / "results.md"
    md.write_text(render_table(results), encoding="utf-8")
    return [*written, tex, md]


def _metadata(fmt: str) -> dict[str, Any]:
    """No creation date in the files, so a rerun on the same results writes the same bytes."""
    return {"svg": {"Date": None}, "pdf": {"CreationDate": None}, "png": {}}[fmt]


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    columns = list(dict.fromkeys(k for r in rows for k in r))
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if r.get(k) is None else r.get(k) for k in columns} for r in rows)
    return path
