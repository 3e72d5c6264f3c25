"""Figures of the CliniBench suite: the paper's main views as plots, not only tables.

* ``main`` — macro P/R/F1, MAP and main-diagnosis accuracy per system with their intervals (table 2);
* ``length_bins`` — micro-F1 by input-length bin with percentile intervals (figure 5);
* ``tertiles`` — macro F1 of head, body and tail labels by training frequency (figure 3);
* ``answers`` — the valid-answer rate per system (appendix A.3; a missing prediction is invalid).

Each returns :class:`~admitdx.report.plots.Plot` with the rows it draws, so ``report --figures``
writes the same numbers as CSV beside SVG, PDF and PNG.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from admitdx.report import plots

TERTILES = ("head", "body", "tail")


def _bars(
    results: dict[str, Any],
    groups: Sequence[str],
    value: Callable[[dict[str, Any], str], float | None],
    ylabel: str,
    what: str,
) -> plots.Plot:
    """One bar per system in each group, from values read off each system's entry (no whiskers:
    these values carry no interval)."""
    systems = results["systems"]
    fig, ax = plt.subplots(figsize=(max(4.8, 1.6 * len(groups) + 2.4), 3.0))
    step = 0.8 / max(len(systems), 1)
    x = np.arange(len(groups))
    rows = []
    style = plots.styles(results)
    for i, s in enumerate(systems):
        values = [value(s, g) for g in groups]
        heights = [np.nan if v is None else v for v in values]
        ax.bar(
            x - 0.4 + step * (i + 0.5),
            heights,
            step * 0.92,
            color=style[s["name"]].colour,
            hatch=style[s["name"]].pattern,
            label=s["name"],
        )
        rows += [{"system": s["name"], what: g, "value": v} for g, v in zip(groups, values, strict=True)]
    ax.set_xticks(x, list(groups))
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1)
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return plots.Plot(fig, rows)


def length_bins(results: dict[str, Any]) -> plots.Plot:
    """Figure 5: micro-F1 per length bin, one line per system, whiskers from the bins' intervals."""
    systems = results["systems"]
    labels = results["length_bins"]["labels"]
    fig, ax = plt.subplots(figsize=(max(4.8, 1.4 * len(labels) + 2.4), 3.0))
    x = np.arange(len(labels))
    rows = []
    style = plots.styles(results)
    for s in systems:
        bins = s["clinibench"]["length_bins"]
        values = np.array([np.nan if b.get("micro_f1") is None else b["micro_f1"] for b in bins])
        cis = [((b.get("ci") or {}).get("micro_f1") or [np.nan, np.nan]) for b in bins]
        low = np.maximum(values - np.array([c[0] for c in cis], dtype=float), 0.0)
        high = np.maximum(np.array([c[1] for c in cis], dtype=float) - values, 0.0)
        colour, dash = style[s["name"]].colour, plots.DASHES[style[s["name"]].pattern]
        ax.errorbar(x, values, yerr=[low, high], color=colour, linestyle=dash, marker="o", capsize=2,
                    linewidth=1.2, label=s["name"])  # fmt: skip
        rows += [
            {
                "system": s["name"],
                "bin": b["label"],
                "n": b["n"],
                "micro_f1": b.get("micro_f1"),
                "ci_low": c[0] if b.get("micro_f1") is not None else None,
                "ci_high": c[1] if b.get("micro_f1") is not None else None,
            }
            for b, c in zip(bins, cis, strict=True)
        ]
    n = [b["n"] for b in systems[0]["clinibench"]["length_bins"]] if systems else [0] * len(labels)
    ax.set_xticks(x, [f"{label}\nn={k}" for label, k in zip(labels, n, strict=True)])
    ax.set_xlabel("note length in table-1 tokens (words and punctuation marks)", fontsize=8)
    ax.set_ylabel("micro-F1")
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return plots.Plot(fig, rows)


def figure_plots(results: dict[str, Any]) -> dict[str, plots.Plot]:
    """The CliniBench figures by name (none without a system)."""
    if not results.get("systems"):
        return {}
    keys = ("macro_precision", "macro_recall", "macro_f1", "map", "main_diagnosis_accuracy")
    labels = ("macro P", "macro R", "macro F1", "MAP", "MD acc.")
    out = {
        "main": plots.grouped_bars(
            results,
            [(f"clinibench.{k}", label) for k, label in zip(keys, labels, strict=True)],
            "score",
            width=7.2,
        ),
        "tertiles": _bars(
            results,
            TERTILES,
            lambda s, t: s["clinibench"]["tertiles"][t].get("macro_f1"),
            "macro-F1",
            "tertile",
        ),
        "answers": _bars(
            results,
            ["valid answers"],
            lambda s, _: (s["clinibench"].get("answers") or {}).get("valid_rate"),
            "share of notes",
            "measure",
        ),
    }
    if results.get("length_bins"):
        out["length_bins"] = length_bins(results)
    return out
