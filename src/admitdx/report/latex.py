"""The main results as a LaTeX table (``booktabs``): value and 95 % interval per cell, the
encounters and patients each block was computed over, significance marks only where the patient
minimum allows them (:mod:`admitdx.report.evidence`)."""

from __future__ import annotations

from typing import Any

from admitdx.report import evidence
from admitdx.report.table import MAIN_COLUMNS, SUITE_TITLES, TIME_CRITICAL, TRACK_TITLES, column_label

_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def escape(text: str) -> str:
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def _cell(results: dict[str, Any], system: dict[str, Any], name: str) -> str:
    m = system["metrics"].get(name) or {}
    if m.get("value") is None:
        return "--"
    text = f"{m['value']:.3f}"
    if evidence.significant(results, system, name):
        text += "$^{*}$"
    ci = m.get("ci")
    if ci and None not in ci:
        text += r" {\scriptsize" + f" [{ci[0]:.3f}, {ci[1]:.3f}]" + "}"
        if evidence.uninformative(m, name):
            text += r"$^{\dagger}$"
    return text


def _block(results: dict[str, Any], title: str, columns: list[tuple[str, str]]) -> list[str]:
    n_cols = len(columns) + 1
    scored_on = evidence.sample_text(results, columns[0][0])
    lines = [rf"\multicolumn{{{n_cols}}}{{l}}{{\textit{{{escape(title)} --- {scored_on}}}}} \\"]
    lines.append(" & ".join(["System", *(escape(label) for _, label in columns)]) + r" \\")
    lines.append(r"\midrule")
    for s in results["systems"]:
        cells = [escape(s["name"]), *(_cell(results, s, name) for name, _ in columns)]
        lines.append(" & ".join(cells) + r" \\")
    return lines


def render_latex(results: dict[str, Any]) -> str:
    """A ``table`` environment; needs ``\\usepackage{booktabs}``."""
    if results.get("suite", "earlydx") == "earlydx":
        track = results["primary_track"]
        blocks = [
            (TRACK_TITLES.get(track, track), [(f"{track}.{key}", label) for key, label in MAIN_COLUMNS[:5]]),
            (
                "Time-critical conditions",
                list(zip(TIME_CRITICAL, ("R", "P", "F1", "graded R", "graded P"), strict=True)),
            ),
        ]
    else:
        names = results["headline_metrics"][:6]
        blocks = [
            (SUITE_TITLES.get(results["suite"], results["suite"]), [(n, column_label(n)) for n in names])
        ]
    width = max(len(cols) for _, cols in blocks) + 1
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        rf"\begin{{tabular}}{{l{'r' * (width - 1)}}}",
        r"\toprule",
    ]
    for i, (title, cols) in enumerate(blocks):
        if i:
            lines.append(r"\midrule")
        lines += _block(results, title, cols)
    lines.append(r"\bottomrule")
    lines.append(r"\end{tabular}")
    lines.append(rf"\caption{{{_caption(results, [n for _, cols in blocks for n, _ in cols])}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _caption(results: dict[str, Any], names: list[str]) -> str:
    """The caption in LaTeX: names escaped, the p-value threshold in math mode."""
    conf = round(100 * results["params"]["confidence"])
    trial = evidence.trial_text(results)
    parts = [escape(f"{trial.capitalize()}, not a result.")] if trial else []
    parts += [
        escape(
            f"{results.get('task', 'earlydx')}, {results['params']['split']} split "
            f"({results['n_instances']} encounters, {results['n_patients']} patients). "
            f"Brackets: {conf} % patient-level bootstrap intervals "
            f"({results['params']['n_bootstrap']} replicates)."
        )
    ]
    if len(results["systems"]) > 1 and not trial:
        parts.append(
            rf"$^{{*}}$ paired bootstrap $p < {evidence.ALPHA}$ against {escape(results['baseline'])}."
        )
    suppressed = evidence.suppressed_note(results, names)
    if suppressed:
        parts.append(escape(suppressed.replace("`", "")))
    if evidence.any_uninformative(results, names):
        note = evidence.UNINFORMATIVE_NOTE.removeprefix(evidence.UNINFORMATIVE_MARK)
        parts.append(r"$^{\dagger}$" + escape(note).replace("[0, 1]", "$[0, 1]$"))
    return " ".join(parts)
