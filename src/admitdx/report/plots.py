"""The report's figures, drawn with matplotlib's Agg backend and returned as inline SVG text.

Each function takes the ``systems`` list of ``results.json`` (and what else it needs) and returns
one ``<svg>`` string; a system keeps one colour in every figure.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

PALETTE = ("#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563")
INK, GRID = "#1f2937", "#e5e7eb"

plt.rcParams.update(
    {
        "font.family": "DejaVu Sans",
        "font.size": 9,
        "axes.edgecolor": "#9ca3af",
        "axes.labelcolor": INK,
        "xtick.color": INK,
        "ytick.color": INK,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.color": GRID,
        "grid.linewidth": 0.8,
        "axes.axisbelow": True,
        "svg.fonttype": "none",
        "svg.hashsalt": "admitdx",
        "legend.frameon": False,
    }
)


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _svg(fig: plt.Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    start, end = text.find("<metadata>"), text.find("</metadata>")
    return text[:start] + text[end + len("</metadata>") :] if start >= 0 else text


def _metric(system: dict[str, Any], name: str) -> tuple[float, float, float]:
    """(value, lower error, upper error) for error bars; NaN when undefined."""
    m = system["metrics"].get(name) or {}
    v = m.get("value")
    if v is None:
        return float("nan"), 0.0, 0.0
    ci = m.get("ci")
    return (v, v - ci[0], ci[1] - v) if ci else (v, 0.0, 0.0)


def grouped_bars(
    systems: Sequence[dict[str, Any]],
    metrics: Sequence[tuple[str, str]],
    ylabel: str,
    ymax: float | None = 1.0,
    width: float = 6.4,
) -> str:
    """Bars per metric group, one bar per system, with bootstrap intervals as whiskers."""
    fig, ax = plt.subplots(figsize=(width, 2.8))
    n = len(systems)
    step = 0.8 / max(n, 1)
    x = np.arange(len(metrics))
    for i, s in enumerate(systems):
        vals = [_metric(s, key) for key, _ in metrics]
        ax.bar(
            x - 0.4 + step * (i + 0.5),
            [v[0] for v in vals],
            step * 0.92,
            color=color(i),
            label=s["name"],
            yerr=np.array([[v[1] for v in vals], [v[2] for v in vals]]),
            error_kw={"elinewidth": 1, "ecolor": INK, "capsize": 2},
        )
    ax.set_xticks(x, [label for _, label in metrics])
    ax.set_ylabel(ylabel)
    if ymax is not None:
        ax.set_ylim(0, ymax)
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _svg(fig)


def recall_at_k(systems: Sequence[dict[str, Any]], track: str, ks: Sequence[int]) -> str:
    """R@k curves (appendix A, figure 12) with interval bands."""
    fig, ax = plt.subplots(figsize=(4.6, 3.0))
    for i, s in enumerate(systems):
        vals = np.array([_metric(s, f"{track}.recall@{k}") for k in ks])
        ax.plot(ks, vals[:, 0], marker="o", color=color(i), label=s["name"], lw=1.8, ms=4)
        ax.fill_between(
            ks, vals[:, 0] - vals[:, 1], vals[:, 0] + vals[:, 2], color=color(i), alpha=0.12, lw=0
        )
    ax.set_xticks(list(ks))
    ax.set_xlabel("prediction budget k (system's own order)")
    ax.set_ylabel(f"recall@k ({track} labels)")
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _svg(fig)


def cardinality(systems: Sequence[dict[str, Any]], track: str) -> str:
    """Mean predictions per encounter against the mean reference size (section 5.4, figure 10)."""
    fig, ax = plt.subplots(figsize=(4.6, 0.5 + 0.38 * len(systems)))
    names = [s["name"] for s in systems]
    y = np.arange(len(systems))[::-1]
    vals = [_metric(s, f"{track}.mean_predictions") for s in systems]
    ax.barh(
        y,
        [v[0] for v in vals],
        color=[color(i) for i in range(len(systems))],
        height=0.6,
        xerr=np.array([[v[1] for v in vals], [v[2] for v in vals]]),
        error_kw={"ecolor": INK, "capsize": 2},
    )
    ref = systems[0]["metrics"][f"{track}.mean_references"]["value"] if systems else None
    if ref is not None:
        ax.axvline(ref, ls="--", color=INK, lw=1.2)
        ax.text(ref, len(systems) - 0.35, f" reference {ref:.2f}", color=INK, va="bottom", fontsize=8)
    ax.set_yticks(y, names)
    ax.set_xlabel("diagnoses per encounter")
    ax.grid(axis="y", visible=False)
    return _svg(fig)


def explicit_implicit(systems: Sequence[dict[str, Any]], track: str) -> str:
    """Recall on explicit (○) vs implicit (●) labels, one row per system (section 5.2, figure 9)."""
    fig, ax = plt.subplots(figsize=(4.6, 0.6 + 0.38 * len(systems)))
    y = np.arange(len(systems))[::-1]
    for i, s in enumerate(systems):
        e = _metric(s, f"{track}.explicit_recall")[0]
        m = _metric(s, f"{track}.implicit_recall")[0]
        ax.plot([e, m], [y[i], y[i]], color=color(i), lw=2, alpha=0.5)
        ax.plot(e, y[i], "o", mfc="white", mec=color(i), mew=2, ms=8, clip_on=False, zorder=3)
        ax.plot(m, y[i], "o", color=color(i), ms=8, clip_on=False, zorder=3)
    ax.plot([], [], "o", mfc="white", mec=INK, label="explicit")
    ax.plot([], [], "o", color=INK, label="implicit")
    ax.set_yticks(y, [s["name"] for s in systems])
    ax.set_xlim(0, 1.0)
    ax.set_ylim(-0.9, len(systems) - 0.3)
    ax.set_xlabel(f"recall ({track} labels)")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower right", ncol=2, fontsize=8)
    return _svg(fig)


def operating_points(systems: Sequence[dict[str, Any]]) -> str:
    """Time-critical precision/recall with F1 isolines; standard (●) → graded (◆) (section 5.5, figure 11)."""
    fig, ax = plt.subplots(figsize=(4.8, 4.0))
    grid = np.linspace(0.01, 1, 200)
    for f in (0.2, 0.4, 0.6, 0.8):
        p = grid[grid > f / 2]
        r = f * p / (2 * p - f)
        keep = (r > 0) & (r <= 1)
        ax.plot(p[keep], r[keep], color="#9ca3af", lw=0.8, ls="-", zorder=1)
        ax.text(p[keep][-1], r[keep][-1], f"F1={f}", color="#6b7280", fontsize=7, ha="right", va="bottom")
    for i, s in enumerate(systems):
        p, _, _ = _metric(s, "tc.precision")
        r, _, _ = _metric(s, "tc.recall")
        gp, _, _ = _metric(s, "tc_graded.precision")
        gr, _, _ = _metric(s, "tc_graded.recall")
        # coincident systems stay visible: earlier systems are drawn larger, underneath
        size = max(12 - 2 * i, 5)
        ax.plot(p, r, "o", color=color(i), ms=size, label=s["name"], zorder=3 + i, clip_on=False)
        if np.isfinite(gp) and np.isfinite(gr) and (abs(gp - p) > 1e-9 or abs(gr - r) > 1e-9):
            ax.annotate("", (gp, gr), (p, r), arrowprops={"arrowstyle": "->", "color": color(i), "lw": 1.2})
            ax.plot(gp, gr, "D", color=color(i), ms=6, mfc="white", mew=1.6, zorder=3, clip_on=False)
    ax.plot([], [], "D", mfc="white", mec=INK, label="graded view")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("precision (flags that were recorded)")
    ax.set_ylabel("recall (recorded conditions flagged)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _svg(fig)


def coverage(sections: dict[str, float]) -> str:
    """Share of encounters with each evidence section present (EarlyDx figure 3)."""
    items = sorted(sections.items(), key=lambda kv: kv[1])
    fig, ax = plt.subplots(figsize=(4.6, 0.5 + 0.3 * max(len(items), 1)))
    y = np.arange(len(items))
    ax.barh(y, [v for _, v in items], color="#64748b", height=0.62)
    for yi, (_, v) in zip(y, items, strict=True):
        ax.text(v + 0.01, yi, f"{100 * v:.0f}%", va="center", fontsize=8, color=INK)
    ax.set_yticks(y, [k.replace("_", " ") for k, _ in items])
    ax.set_xlim(0, 1.12)
    ax.set_xlabel("share of encounters with the section present")
    ax.grid(axis="y", visible=False)
    return _svg(fig)
