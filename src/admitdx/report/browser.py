"""``encounters.html``: a static page per task run to read the encounters one by one — the input
sections, the gold answer (with its evidence class and explicit/implicit for EarlyDx), every
system's answer and which gold item each matched — filterable by system, track and
correct/missed, so that a researcher can read what a system got wrong.

Self-contained (inline style and script, no network). The page quotes MIMIC-derived text: it
stays with the user's data, as the dataset does. Its data is prepared by the study
(:mod:`admitdx.study.encounters`); this module only renders it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from admitdx.colours import css_background
from admitdx.report import plots
from admitdx.report.leak_marks import leak_spans, marked
from admitdx.runs import write_aside

BROWSER_FILE = "encounters.html"
TEMPLATES = Path(__file__).parent / "templates"
#: the track filter: evidence classes, then explicit/implicit (EarlyDx; empty for other tasks)
TRACKS = ("supported", "partial", "unsupported", "explicit", "implicit")


def _tracks(gold: dict[str, Any]) -> list[str]:
    tracks = [gold["evidence_class"]] if gold.get("evidence_class") else []
    if gold.get("explicit") is not None:
        tracks.append("explicit" if gold["explicit"] else "implicit")
    return tracks


def render_browser(results: dict[str, Any], encounters: list[dict[str, Any]]) -> str:
    systems = [s["name"] for s in results["systems"]]
    present = {t for e in encounters for g in e["gold"] for t in _tracks(g)}
    for e in encounters:
        for g in e["gold"]:
            g["tracks"] = _tracks(g)
        for answer in e["systems"].values():
            answer["found"] = {r: p for p, r in answer["pairs"]}
            answer["hit_items"] = {p for p, _ in answer["pairs"]}
    leaks = leak_spans(results.get("dataset"))  # the build's leak audit, marked in the inputs
    for e in encounters:
        e.setdefault("leaks", leaks.get(e["id"], {}))
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]))
    env.filters["leak_marked"] = marked
    return env.get_template("browser.html.j2").render(
        r=results,
        systems=systems,
        keys={
            name: css_background(style.colour, style.pattern) for name, style in plots.styles(results).items()
        },
        tracks=[t for t in TRACKS if t in present],
        encounters=encounters,
    )


def write_browser(run_dir: Path, results: dict[str, Any], encounters: list[dict[str, Any]]) -> Path:
    out = Path(run_dir) / BROWSER_FILE
    return write_aside(out, render_browser(results, encounters))
