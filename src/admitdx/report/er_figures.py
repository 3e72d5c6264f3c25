"""Figures of the ER-Reason suites: for category tasks (acuity, disposition) a confusion heatmap
per system (rows recorded, columns predicted, each row as shares of its recorded class) and
per-class recall bars; for text tasks ROUGE bars per part and, where scored, concept-recall bars
by rationale type (ER-Reason table 4)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from admitdx.report import plots

COLUMN_INCHES = 1.1  # per predicted class: room for a wrapped disposition such as "LEFT WITHOUT BEING SEEN"
ROUGE = (("rouge1_f1", "ROUGE-1"), ("rouge2_f1", "ROUGE-2"), ("rougeL_f1", "ROUGE-L"))


def confusion_heatmap(system: dict[str, Any]) -> plots.Plot:
    c = system["confusion"]
    counts = np.array(c["confusion"], dtype=float)
    totals = counts.sum(axis=1, keepdims=True)
    shares = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
    columns = [str(x) if x is not None else "unreadable" for x in c["predicted_labels"]]
    fig, ax = plt.subplots(figsize=(COLUMN_INCHES * len(columns) + 2.2, 0.5 * len(c["labels"]) + 1.4))
    ax.imshow(shares, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    ax.grid(False)
    ax.set_xticks(range(len(columns)), plots.wrap_labels(columns, COLUMN_INCHES))
    ax.set_yticks(range(len(c["labels"])), c["labels"])
    ax.set_xlabel("predicted")
    ax.set_ylabel("recorded")
    ax.set_title(system["name"], fontsize=9)
    rows = []
    for i, label in enumerate(c["labels"]):
        for j, column in enumerate(columns):
            n = int(counts[i, j])
            if n:
                ax.text(j, i, str(n), ha="center", va="center", fontsize=8,
                        color="white" if shares[i, j] > 0.5 else plots.INK)  # fmt: skip
            rows.append({"system": system["name"], "recorded": label, "predicted": column, "n": n})
    return plots.Plot(fig, rows)


def figure_plots(results: dict[str, Any]) -> dict[str, plots.Plot]:
    """The ER-Reason suites' figures by name (empty for another suite)."""
    out: dict[str, plots.Plot] = {}
    if results.get("suite") == "category":
        cats = results.get("categories") or []
        out["per_class_recall"] = plots.grouped_bars(
            results, [(f"recall.{c}", c) for c in cats], "recall", width=max(6.4, 1.2 * len(cats))
        )
        for i, s in enumerate(results["systems"]):
            if s.get("confusion"):
                out[f"confusion_{i}"] = confusion_heatmap(s)
    elif results.get("suite") == "text":
        parts = results.get("parts") or []
        for part in parts:
            out[f"rouge_{part}"] = plots.grouped_bars(
                results, [(f"{part}.{key}", label) for key, label in ROUGE], f"{part}: F1"
            )
        if extractor := results.get("concept_extractor"):
            caveat = "; not comparable with ER-Reason table 4" if extractor == "offline" else ""
            out["concept_recall"] = plots.grouped_bars(
                results, [(f"{p}.concept_recall", p) for p in parts], f"concept recall ({extractor}{caveat})"
            )
    return out
