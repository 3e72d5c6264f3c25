"""The leaderboard's four files from its data (:func:`admitdx.report.leaderboard.build_leaderboard`):
``leaderboard.json`` (the data), ``leaderboard.md``, ``leaderboard.tex`` (booktabs) and the
self-contained ``leaderboard.html`` (inline style, no script, no network). Each carries every
column's n and every run's subset or trial mark in the words of :mod:`admitdx.report.counts`, the
differences with the best system, HELM's mean win rate and the provenance (the LaTeX as a comment).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from admitdx.colours import css_background
from admitdx.report.latex import escape
from admitdx.report.repeats import spread_text
from admitdx.report.table import fmt
from admitdx.runs import write_aside

LEADERBOARD = "leaderboard"
TEMPLATES = Path(__file__).parent / "templates"


def interval_text(ci: list[float | None] | None) -> str:
    return f"[{fmt(ci[0])}, {fmt(ci[1])}]" if ci and None not in ci else ""


def difference_text(cell: dict[str, Any] | None) -> str:
    """``Δ −0.120 [−0.210, −0.030]*``: the difference with the column's best system; * where its
    paired interval excludes 0; ``best`` for the best system itself."""
    if not cell or cell["value"] is None:
        return ""
    if cell.get("best"):
        return "best"
    gap = cell.get("difference")
    if not gap:
        return ""
    return f"Δ {gap['value']:+.3f} {interval_text(gap['ci'])}{'*' if gap['mark'] else ''}".strip()


def cell_text(cell: dict[str, Any] | None) -> str:
    """``0.512 [0.488, 0.537] n=113 #2 Δ -0.040 [-0.080, 0.010]``; ``–`` for a system the task did not run."""
    if not cell or cell["value"] is None:
        return "–"
    interval = interval_text(cell.get("ci"))
    rank = f" #{cell['rank']}" if cell.get("rank") else ""
    gap = difference_text(cell)
    parts = [fmt(cell["value"]), interval, f"n={cell['n']}{rank}", spread_text(cell), gap]
    return " ".join(p for p in parts if p)


def column_head(col: dict[str, Any]) -> str:
    """``earlydx: supported micro-F1 (subset: 20 scored of 120 in the benchmark set)``."""
    return f"{col['task']}: {col['label']} ({col['counts']['text']})"


def run_marks(board: dict[str, Any]) -> list[str]:
    """One line per task run: its counts and its trial mark, if any."""
    runs = {c["task"]: c["counts"] for c in board["columns"]}
    return [f"{task}: {c['text']}{'; ' + c['trial'] if c.get('trial') else ''}" for task, c in runs.items()]


def provenance_lines(board: dict[str, Any]) -> list[str]:
    """The provenance as lines of text (the md list, the LaTeX comment, the page footer)."""
    p = board.get("provenance") or {}
    if not p:
        return []
    study = p.get("study_file")
    lines = [
        f"admitdx {p['admitdx_version']}"
        + (f"; study file {study['name']} sha256 {study['sha256']}" if study else "; no study file")
    ]
    for run in p.get("runs", []):
        seeds = ", ".join(f"{k} {v}" for k, v in run["seeds"].items() if v is not None)
        dates = run["dates"]
        lines.append(
            f"{run['name']} ({run['task']}): dataset sha256 {run['dataset_sha256']}; seeds: {seeds}; "
            f"built {dates['built']}, predicted {', '.join(dates['predicted']) or '–'}, "
            f"scored {dates['scored']}"
        )
    for name, m in p.get("systems", {}).items():
        if m.get("model"):
            quant = m.get("quantisation") or "not stated"
            where = ", admitdx's local server" if m.get("local_server") else ""
            lines.append(
                f"{name}: {m['kind']}, model {m['model']} (server {m['server']}{where}; quantisation {quant})"
            )
        else:
            lines.append(f"{name}: {m.get('kind')} (no model server)")
    return lines


def published_rows(board: dict[str, Any]) -> list[tuple[str, list[dict[str, Any] | None]]]:
    """Each published system once, with its number under every column that has one."""
    labels: dict[str, None] = {}
    for col in board["columns"]:
        labels.update(dict.fromkeys(p["label"] for p in col["published"]))
    return [
        (
            label,
            [next((p for p in col["published"] if p["label"] == label), None) for col in board["columns"]],
        )
        for label in labels
    ]


def render_markdown(board: dict[str, Any]) -> str:
    head = [column_head(c) for c in board["columns"]]
    lines = [f"# {board['title']}", "", "| system | " + " | ".join(head) + " |"]
    lines.append("|" + "---|" * (len(head) + 1))
    for i, s in enumerate(board["systems"]):
        lines.append(
            f"| {s['name']} | " + " | ".join(cell_text(c["cells"][i]) for c in board["columns"]) + " |"
        )
    lines += ["", board["difference_note"], "", "Counts:"]
    lines += [f"- **{e['term']}**: {e['meaning']}" for e in board["legend"]]
    lines += ["", "Task runs:", *(f"- {m}" for m in run_marks(board))]
    lines += ["", "| system | mean win rate | task runs |", "|---|---|---|"]
    for w in board["win_rate"]["systems"]:
        lines.append(
            f"| {w['name']} | {fmt(w['value']) if w['value'] is not None else '–'} | {w['task_runs']} |"
        )
    lines += ["", board["win_rate"]["note"]]
    published = published_rows(board)
    if published:
        lines += ["", "Published in the papers, on the full data (not comparable; no rank):", ""]
        lines += ["| published | " + " | ".join(head) + " |", "|" + "---|" * (len(head) + 1)]
        for label, cells in published:
            shown = [f"*{fmt(p['value'])}* ({p['source']})" if p else "" for p in cells]
            lines.append(f"| *{label}* | " + " | ".join(shown) + " |")
        lines += ["", f"_{board['published_note']}_"]
    reports = dict.fromkeys((c["task"], c["report"]) for c in board["columns"])
    lines += ["", "Reports: " + ", ".join(f"[{t}]({href})" for t, href in reports)]
    provenance = provenance_lines(board)
    if provenance:
        lines += ["", "Provenance:", *(f"- {line}" for line in provenance)]
    return "\n".join(lines) + "\n"


def render_latex(board: dict[str, Any]) -> str:
    """A ``table`` environment (needs ``\\usepackage{booktabs}``): value, interval and n per cell, each
    column's n scored of N in its head (a subset or trial marked †), the provenance as a comment."""
    cols = board["columns"]
    lines = [f"% {line}" for line in provenance_lines(board)]
    lines += [
        r"\begin{table}[t]",
        r"\centering\small",
        r"\begin{tabular}{l" + "c" * len(cols) + "}",
        r"\toprule",
        " & ".join(["System", *(escape(f"{c['task']}: {c['label']}") for c in cols)]) + r" \\",
        " & ".join(["", *(_tex_counts(c) for c in cols)]) + r" \\",
        r"\midrule",
    ]
    for i, s in enumerate(board["systems"]):
        cells = []
        for c in cols:
            cell = c["cells"][i]
            if not cell or cell["value"] is None:
                cells.append("--")
                continue
            ci = cell.get("ci")
            interval = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci and None not in ci else ""
            mark = "$^{*}$" if (cell.get("difference") or {}).get("mark") else ""
            sd = (cell.get("seeds") or {}).get("sd")
            mark += rf" $\pm${sd:.3f}" if sd is not None else ""
            cells.append(rf"{cell['value']:.3f}{mark} {{\scriptsize{interval} $n{{=}}{cell['n']}$}}")
        lines.append(" & ".join([escape(s["name"]), *cells]) + r" \\")
    published = published_rows(board)
    if published:
        lines.append(r"\midrule")
        title = r"\textit{Published, on the full data (not comparable)}"
        lines.append(rf"\multicolumn{{{len(cols) + 1}}}{{l}}{{{title}}} \\")
        for label, ps in published:
            shown = [rf"\textit{{{p['value']:.3f}}}" if p else "" for p in ps]
            lines.append(" & ".join([rf"\textit{{{escape(label)}}}", *shown]) + r" \\")
    marks = [
        m
        for c in cols
        if (m := c["counts"].get("trial") or (c["counts"]["text"] if c["counts"]["subset"] else None))
    ]
    marked = "; ".join(dict.fromkeys(escape(m) for m in marks))
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{escape(board['title'])}. Value [95\,\% patient-bootstrap interval], $n$ scored; "
        r"$^{*}$ differs from the column's best system (paired interval excludes 0)."
        + (rf" $\dagger$ {marked}." if marked else "")
        + "}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def _tex_counts(col: dict[str, Any]) -> str:
    counts = col["counts"]
    n = f"$n{{=}}{counts['n']}$" + (f" of {counts['of']}" if counts["of"] not in (None, counts["n"]) else "")
    dagger = r"$^\dagger$" if counts["subset"] or counts.get("trial") else ""
    return rf"{{\scriptsize {n}{dagger}}}"


def render_html(board: dict[str, Any]) -> str:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]))
    env.filters.update(fmt=fmt, swatch=lambda system: css_background(system["colour"], system.get("pattern")))
    groups: list[dict[str, Any]] = []
    for i, col in enumerate(board["columns"]):
        if not groups or groups[-1]["task"] != col["task"]:
            groups.append({"task": col["task"], "first": i, "columns": [], "counts": col["counts"],
                           "report": col["report"], "browser": col["browser"]})  # fmt: skip
        groups[-1]["columns"].append(col)
    return env.get_template("leaderboard.html.j2").render(
        board=board, groups=groups, published=published_rows(board), provenance=provenance_lines(board),
        difference=difference_text, interval=interval_text, spread=spread_text,
    )  # fmt: skip


def write_leaderboard_files(board: dict[str, Any], out_dir: Path) -> Path:
    """Write the four files into ``out_dir``; returns the path of leaderboard.html."""
    out_dir.mkdir(parents=True, exist_ok=True)
    write_aside(out_dir / f"{LEADERBOARD}.json", json.dumps(board, indent=1, ensure_ascii=False) + "\n")
    write_aside(out_dir / f"{LEADERBOARD}.md", render_markdown(board))
    write_aside(out_dir / f"{LEADERBOARD}.tex", render_latex(board))
    return write_aside(out_dir / f"{LEADERBOARD}.html", render_html(board))
