"""The report's figures, drawn with matplotlib's Agg backend.

Each function takes the ``systems`` list of ``results.json`` (and what else it needs) and returns a
:class:`Plot`: the matplotlib figure and the rows of data it draws, so the same figure can go
inline into ``report.html`` as SVG (:func:`svg`) and into a figures folder as SVG, PDF, PNG and CSV
(:mod:`admitdx.report.figures`). A system's colour is the one its run recorded (:func:`styles`), so
one system has one colour in every figure and page of a run.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from admitdx.colours import Style, assign
from admitdx.report import evidence

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
        "pdf.fonttype": 42,
    }
)


def styles(results: dict[str, Any]) -> dict[str, Style]:
    """Each system's colour and pattern as ``results.json`` records them (:mod:`admitdx.colours`),
    so every figure and page of a run agrees; a file scored before they were recorded gets them by
    the systems' order, which is what scoring would have recorded."""
    systems = results.get("systems") or []
    if all("colour" in s for s in systems):
        return {s["name"]: Style(s["colour"], s.get("pattern")) for s in systems}
    return assign([s["name"] for s in systems])


#: A line's dash per pattern, for systems past the palette's size in line plots.
DASHES = {None: "-", "//": "--", "..": ":", "xx": "-.", "\\\\": (0, (5, 1)), "oo": (0, (1, 3))}


@dataclass
class Plot:
    """A drawn figure and the data behind it (one dict per drawn value, for the CSV)."""

    figure: plt.Figure
    rows: list[dict[str, Any]]


def svg(plot: Plot) -> str:
    """The figure as inline ``<svg>`` text (no XML prolog, no metadata)."""
    buf = io.StringIO()
    plot.figure.savefig(buf, format="svg", bbox_inches="tight")
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    start, end = text.find("<metadata>"), text.find("</metadata>")
    return text[:start] + text[end + len("</metadata>") :] if start >= 0 else text


def close(plot: Plot) -> None:
    plt.close(plot.figure)


def _metric(system: dict[str, Any], name: str) -> tuple[float, float, float]:
    """(value, lower error, upper error) for error bars; NaN when undefined. Without an interval,
    or with an uninformative one (zero width or all of [0, 1]), the errors are NaN, which
    matplotlib draws as no whisker at all (0 would still draw the caps)."""
    m = system["metrics"].get(name) or {}
    v = m.get("value")
    if v is None:
        return float("nan"), float("nan"), float("nan")
    ci = m.get("ci")
    if not ci or None in ci or evidence.uninformative(m, name):
        return v, float("nan"), float("nan")
    return v, max(v - ci[0], 0.0), max(ci[1] - v, 0.0)


def _row(results: dict[str, Any], system: dict[str, Any], name: str, **extra: Any) -> dict[str, Any]:
    m = system["metrics"].get(name) or {}
    ci = m.get("ci") or [None, None]
    n_enc, n_pat = evidence.sample_size(results, name)
    return {
        "system": system["name"],
        "metric": name,
        **extra,
        "value": m.get("value"),
        "ci_low": ci[0],
        "ci_high": ci[1],
        "uninformative_ci": evidence.uninformative(m, name),
        "n_encounters": n_enc,
        "n_patients": n_pat,
    }


def _legend_right(ax: plt.Axes) -> None:
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))


def grouped_bars(
    results: dict[str, Any],
    metrics: Sequence[tuple[str, str]],
    ylabel: str,
    ymax: float | None = 1.0,
    width: float = 6.4,
) -> Plot:
    """Bars per metric group, one bar per system, bootstrap intervals as whiskers; each group's
    label names the encounters and patients it was computed over, and a bar whose interval is
    uninformative carries a † instead of a whisker."""
    systems, style = results["systems"], styles(results)
    fig, ax = plt.subplots(figsize=(width, 3.0))
    step = 0.8 / max(len(systems), 1)
    x = np.arange(len(metrics))
    rows = []
    for i, s in enumerate(systems):
        vals = [_metric(s, key) for key, _ in metrics]
        xs = x - 0.4 + step * (i + 0.5)
        ax.bar(
            xs,
            [v[0] for v in vals],
            step * 0.92,
            color=style[s["name"]].colour,
            hatch=style[s["name"]].pattern,
            edgecolor="white" if style[s["name"]].pattern else "none",
            label=s["name"],
            yerr=np.array([[v[1] for v in vals], [v[2] for v in vals]]),
            error_kw={"elinewidth": 1, "ecolor": INK, "capsize": 2},
        )
        for xi, (key, _) in zip(xs, metrics, strict=True):
            m = s["metrics"].get(key)
            if evidence.uninformative(m, key) and m and m.get("value") is not None:
                ax.text(xi, m["value"], evidence.UNINFORMATIVE_MARK, ha="center", va="bottom", fontsize=8)
        rows += [_row(results, s, key, label=label) for key, label in metrics]
    sizes = [evidence.sample_size(results, key) for key, _ in metrics]
    if len(set(sizes)) == 1:  # one n for the whole figure: say it once
        ax.set_title(f"n = {sizes[0][0]} encounters, {sizes[0][1]} patients", fontsize=8, color="#4b5563")
        ticks = [label for _, label in metrics]
    else:
        ticks = [f"{label}\nn={e} enc., {p} pat." for (_, label), (e, p) in zip(metrics, sizes, strict=True)]
    ax.set_xticks(x, wrap_labels(ticks, 0.8 * width / max(len(ticks), 1)))
    ax.set_ylabel(ylabel)
    if ymax is not None:
        ax.set_ylim(0, ymax)
    ax.grid(axis="x", visible=False)
    _legend_right(ax)
    return Plot(fig, rows)


CHARS_PER_INCH = 12  # DejaVu Sans at 9 pt, an average character


def wrap_labels(labels: Sequence[str], inches_each: float) -> list[str]:
    """Each tick label wrapped to the ``inches_each`` its group or column has on the axis (the
    disposition classes ran into one string; tilted labels still overlap as boxes), so no two
    labels overlap; a label that fits is left as it is."""
    room = max(int(inches_each * CHARS_PER_INCH), 4)
    return ["\n".join(textwrap.fill(line, room) for line in label.split("\n")) for label in labels]


def recall_at_k(results: dict[str, Any], track: str, ks: Sequence[int], bands: bool = False) -> Plot:
    """R@k curves (appendix A, figure 12). Intervals are whiskers dodged a little per system, so
    overlapping intervals stay apart; ``bands=True`` draws light shaded bands instead."""
    systems, style = results["systems"], styles(results)
    fig, ax = plt.subplots(figsize=(4.8, 3.0))
    rows = []
    dodge = 0.08 * (np.arange(len(systems)) - (len(systems) - 1) / 2)
    for i, s in enumerate(systems):
        c, dash = style[s["name"]].colour, DASHES[style[s["name"]].pattern]
        vals = np.array([_metric(s, f"{track}.recall@{k}") for k in ks])
        xs = np.asarray(ks, dtype=float) + (0.0 if bands else dodge[i])
        ax.plot(xs, vals[:, 0], marker="o", color=c, ls=dash, label=s["name"], lw=1.6, ms=4)
        if bands:
            ax.fill_between(xs, vals[:, 0] - vals[:, 1], vals[:, 0] + vals[:, 2], color=c, alpha=0.06, lw=0)
        else:
            ax.errorbar(xs, vals[:, 0], yerr=vals[:, 1:].T, fmt="none", ecolor=c, elinewidth=0.9, capsize=1.5)
        rows += [_row(results, s, f"{track}.recall@{k}", k=k) for k in ks]
    n_enc, n_pat = evidence.sample_size(results, f"{track}.recall@1")
    ax.set_xticks(list(ks))
    ax.set_xlabel(f"prediction budget k (system's own order) · n={n_enc} enc., {n_pat} pat.")
    ax.set_ylabel(f"recall@k ({track} labels)")
    ax.set_ylim(0, 1)
    _legend_right(ax)
    return Plot(fig, rows)


def cardinality(results: dict[str, Any], track: str) -> Plot:
    """Mean predictions per encounter against the mean reference size (section 5.4, figure 10)."""
    systems, style = results["systems"], styles(results)
    fig, ax = plt.subplots(figsize=(4.6, 0.7 + 0.38 * len(systems)))
    y = np.arange(len(systems))[::-1]
    name = f"{track}.mean_predictions"
    vals = [_metric(s, name) for s in systems]
    ax.barh(
        y,
        [v[0] for v in vals],
        color=[style[s["name"]].colour for s in systems],
        hatch=[style[s["name"]].pattern for s in systems],
        edgecolor=["white" if style[s["name"]].pattern else "none" for s in systems],
        height=0.6,
        xerr=np.array([[v[1] for v in vals], [v[2] for v in vals]]),
        error_kw={"ecolor": INK, "capsize": 2},
    )
    ref = systems[0]["metrics"][f"{track}.mean_references"]["value"] if systems else None
    if ref is not None:
        ax.axvline(ref, ls="--", color=INK, lw=1.2)
        ax.text(ref, len(systems) - 0.35, f" reference {ref:.2f}", color=INK, va="bottom", fontsize=8)
    n_enc, n_pat = evidence.sample_size(results, name)
    ax.set_yticks(y, [s["name"] for s in systems])
    ax.set_xlabel(f"diagnoses per encounter · n={n_enc} enc., {n_pat} pat.")
    ax.grid(axis="y", visible=False)
    rows = [_row(results, s, name) for s in systems]
    rows += [_row(results, s, f"{track}.mean_references") for s in systems[:1]]
    return Plot(fig, rows)


def explicit_implicit(results: dict[str, Any], track: str) -> Plot:
    """Recall on explicit (○) vs implicit (●) labels, one row per system (section 5.2, figure 9)."""
    systems, style = results["systems"], styles(results)
    fig, ax = plt.subplots(figsize=(4.6, 0.8 + 0.38 * len(systems)))
    y = np.arange(len(systems))[::-1]
    for i, s in enumerate(systems):
        c = style[s["name"]].colour
        e = _metric(s, f"{track}.explicit_recall")[0]
        m = _metric(s, f"{track}.implicit_recall")[0]
        ax.plot([e, m], [y[i], y[i]], color=c, lw=2, alpha=0.5)
        ax.plot(e, y[i], "o", mfc="white", mec=c, mew=2, ms=8, clip_on=False, zorder=3)
        ax.plot(m, y[i], "o", color=c, ms=8, clip_on=False, zorder=3)
    ax.plot([], [], "o", mfc="white", mec=INK, label="explicit")
    ax.plot([], [], "o", color=INK, label="implicit")
    n_enc, n_pat = evidence.sample_size(results, f"{track}.explicit_recall")
    ax.set_yticks(y, [s["name"] for s in systems])
    ax.set_xlim(0, 1.0)
    ax.set_ylim(-0.9, len(systems) - 0.3)
    ax.set_xlabel(f"recall ({track} labels) · n={n_enc} enc., {n_pat} pat.")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower right", ncol=2, fontsize=8)
    rows = [
        _row(results, s, f"{track}.{kind}_recall", kind=kind)
        for s in systems
        for kind in ("explicit", "implicit")
    ]
    return Plot(fig, rows)


def _isolines(ax: plt.Axes) -> None:
    grid = np.linspace(0.01, 1, 200)
    for f in (0.2, 0.4, 0.6, 0.8):
        p = grid[grid > f / 2]
        r = f * p / (2 * p - f)
        keep = (r > 0) & (r <= 1)
        ax.plot(p[keep], r[keep], color="#9ca3af", lw=0.8, ls="-", zorder=1)
        ax.text(p[keep][-1], r[keep][-1], f"F1={f}", color="#6b7280", fontsize=7, ha="right", va="bottom")


def operating_points(results: dict[str, Any]) -> Plot:
    """Time-critical precision/recall with F1 isolines and the standard point's 95 % intervals as
    whiskers on both axes; standard (●) → graded (◇) (section 5.5, figure 11). A system that
    raised no time-critical flag has no precision: it is drawn as × on the recall axis (at
    precision 0) and its legend entry says "no flags", so every legend entry has its mark. Earlier
    systems are drawn larger, underneath, so coincident systems stay visible; the size carries no
    value, and a note under the plot says so."""
    systems, style = results["systems"], styles(results)
    fig, ax = plt.subplots(figsize=(4.8, 4.2))
    _isolines(ax)
    rows = []
    for i, s in enumerate(systems):
        c = style[s["name"]].colour
        p, r = _metric(s, "tc.precision")[0], _metric(s, "tc.recall")[0]
        gp, gr = _metric(s, "tc_graded.precision")[0], _metric(s, "tc_graded.recall")[0]
        size = max(12 - 2 * i, 5)
        if not np.isfinite(p):
            ax.plot(0, r if np.isfinite(r) else 0.0, "x", color=c, ms=9, mew=2.2, clip_on=False, zorder=4,
                    label=f"{s['name']} (no flags)")  # fmt: skip
        else:
            ax.plot(p, r, "o", color=c, ms=size, label=s["name"], zorder=3 + i, clip_on=False)
            # the 95 % patient-bootstrap intervals of both coordinates (no whisker where uninformative)
            ex, ey = _metric(s, "tc.precision")[1:], _metric(s, "tc.recall")[1:]
            ax.errorbar(p, r, xerr=[[ex[0]], [ex[1]]], yerr=[[ey[0]], [ey[1]]], fmt="none", ecolor=c,
                        elinewidth=1, capsize=2, alpha=0.8, zorder=2)  # fmt: skip
            if np.isfinite(gp) and np.isfinite(gr) and (abs(gp - p) > 1e-9 or abs(gr - r) > 1e-9):
                ax.annotate("", (gp, gr), (p, r), arrowprops={"arrowstyle": "->", "color": c, "lw": 1.2})
                ax.plot(gp, gr, "D", color=c, ms=6, mfc="white", mew=1.6, zorder=3, clip_on=False)
        for name in ("tc.precision", "tc.recall", "tc_graded.precision", "tc_graded.recall"):
            rows.append(_row(results, s, name))
    if any(np.isfinite(_metric(s, "tc_graded.precision")[0]) for s in systems):
        ax.plot([], [], "D", mfc="white", mec=INK, label="graded view")
    n_enc, n_pat = evidence.sample_size(results, "tc.recall")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("precision (flags that were recorded)")
    ax.set_ylabel("recall (recorded conditions flagged)")
    fig.text(
        0.01,
        -0.04,
        f"n={n_enc} encounters, {n_pat} patients. Marker size carries no value: earlier systems are\n"
        "drawn larger, underneath, so coincident systems stay visible.",
        fontsize=7,
        color="#6b7280",
        va="top",
    )
    _legend_right(ax)
    return Plot(fig, rows)


def coverage(sections: dict[str, float], absent: Sequence[str] = ()) -> Plot:
    """Share of encounters with each evidence section present (EarlyDx figure 3). A section whose
    source is absent (``absent``) is labelled so, hatched, instead of drawn as a measured 0 %."""
    items = sorted(sections.items(), key=lambda kv: (kv[0] not in absent, kv[1]))
    fig, ax = plt.subplots(figsize=(4.8, 0.5 + 0.3 * max(len(items), 1)))
    y = np.arange(len(items))
    for yi, (name, v) in zip(y, items, strict=True):
        if name in absent:
            ax.barh(yi, 1.0, color="none", edgecolor="#cbd5e1", hatch="///", height=0.62, lw=0)
            ax.text(0.02, yi, "source absent in this MIMIC root", va="center", fontsize=8, color="#6b7280")
        else:
            ax.barh(yi, v, color="#64748b", height=0.62)
            ax.text(v + 0.01, yi, f"{100 * v:.0f}%", va="center", fontsize=8, color=INK)
    ax.set_yticks(y, [k.replace("_", " ") for k, _ in items])
    ax.set_xlim(0, 1.12)
    ax.set_xlabel("share of encounters with the section present")
    ax.grid(axis="y", visible=False)
    rows = [{"section": k, "share": v, "source_absent": k in absent} for k, v in items]
    return Plot(fig, rows)
