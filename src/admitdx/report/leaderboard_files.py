"""The leaderboard's four files from its data (:func:`admitdx.report.leaderboard.build_leaderboard`):
``leaderboard.json`` (the data), ``leaderboard.md``, ``leaderboard.tex`` (booktabs) and the
self-contained ``leaderboard.html`` (inline style, no script, no network)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from admitdx.report.latex import escape
from admitdx.report.table import fmt
from admitdx.runs import write_aside

LEADERBOARD = "leaderboard"
TEMPLATES = Path(__file__).parent / "templates"


def cell_text(cell: dict[str, Any] | None) -> str:
    """``0.512 [0.488, 0.537] n=113 #1``; ``–`` for a system the task did not run."""
    if not cell or cell["value"] is None:
        return "–"
    ci = cell.get("ci")
    interval = f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci and None not in ci else ""
    rank = f" #{cell['rank']}" if cell.get("rank") else ""
    return f"{fmt(cell['value'])}{interval} n={cell['n']}{rank}"


def _published_rows(board: dict[str, Any]) -> list[tuple[str, list[dict[str, Any] | None]]]:
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
    head = [f"{c['task']}: {c['label']}" for c in board["columns"]]
    lines = [f"# {board['title']}", "", "| system | " + " | ".join(head) + " |"]
    lines.append("|" + "---|" * (len(head) + 1))
    for i, s in enumerate(board["systems"]):
        lines.append(
            f"| {s['name']} | " + " | ".join(cell_text(c["cells"][i]) for c in board["columns"]) + " |"
        )
    published = _published_rows(board)
    if published:
        lines.append("| *published, full data (not comparable)* |" + " |" * len(head))
        for label, cells in published:
            shown = [f"*{fmt(p['value'])}* ({p['source']})" if p else "" for p in cells]
            lines.append(f"| *{label}* | " + " | ".join(shown) + " |")
        lines += ["", f"_{board['published_note']}_"]
    reports = dict.fromkeys((c["task"], c["report"]) for c in board["columns"])
    lines += ["", "Reports: " + ", ".join(f"[{t}]({href})" for t, href in reports)]
    return "\n".join(lines) + "\n"


def render_latex(board: dict[str, Any]) -> str:
    """A ``table`` environment (needs ``\\usepackage{booktabs}``): value and interval per cell."""
    cols = board["columns"]
    lines = [
        r"\begin{table}[t]",
        r"\centering\small",
        r"\begin{tabular}{l" + "c" * len(cols) + "}",
        r"\toprule",
        " & ".join(["System", *(escape(f"{c['task']}: {c['label']}") for c in cols)]) + r" \\",
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
            interval = (
                r" {\scriptsize" + f" [{ci[0]:.3f}, {ci[1]:.3f}]" + "}" if ci and None not in ci else ""
            )
            cells.append(f"{cell['value']:.3f}{interval}")
        lines.append(" & ".join([escape(s["name"]), *cells]) + r" \\")
    published = _published_rows(board)
    if published:
        lines.append(r"\midrule")
        title = r"\textit{Published, on the full data (not comparable)}"
        lines.append(rf"\multicolumn{{{len(cols) + 1}}}{{l}}{{{title}}} \\")
        for label, ps in published:
            shown = [rf"\textit{{{p['value']:.3f}}}" if p else "" for p in ps]
            lines.append(" & ".join([rf"\textit{{{escape(label)}}}", *shown]) + r" \\")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{escape(board['title'])}. Value [95\,\% patient-bootstrap interval].}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def render_html(board: dict[str, Any]) -> str:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]))
    env.filters.update(fmt=fmt)
    return env.get_template("leaderboard.html.j2").render(board=board, published=_published_rows(board))


def write_leaderboard_files(board: dict[str, Any], out_dir: Path) -> Path:
    """Write the four files into ``out_dir``; returns the path of leaderboard.html."""
    out_dir.mkdir(parents=True, exist_ok=True)
    write_aside(out_dir / f"{LEADERBOARD}.json", json.dumps(board, indent=1, ensure_ascii=False) + "\n")
    write_aside(out_dir / f"{LEADERBOARD}.md", render_markdown(board))
    write_aside(out_dir / f"{LEADERBOARD}.tex", render_latex(board))
    return write_aside(out_dir / f"{LEADERBOARD}.html", render_html(board))
