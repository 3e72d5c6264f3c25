"""How a value and its interval are written in a table cell (``0.512 [0.488, 0.537]``), shared by
table.md, its final-diagnosis blocks, the HTML report and the leaderboard."""

from __future__ import annotations

from typing import Any

from admitdx.report import evidence


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_ci(metric: dict[str, Any] | None, digits: int = 3, name: str = "") -> str:
    """``0.512 [0.488, 0.537]``; the bracket is left out when no interval was computed, and an
    uninformative interval (:func:`admitdx.report.evidence.uninformative`) carries a ``†``."""
    if not metric or metric.get("value") is None:
        return "–"
    ci = metric.get("ci")
    text = fmt(metric["value"], digits)
    if not ci:
        return text
    mark = evidence.UNINFORMATIVE_MARK if evidence.uninformative(metric, name) else ""
    return f"{text} [{fmt(ci[0], digits)}, {fmt(ci[1], digits)}]{mark}"
