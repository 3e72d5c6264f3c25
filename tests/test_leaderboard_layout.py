"""The leaderboard of a demo-shaped study in headless Chromium at 1,280 and 1,920 px (issue 34):
bounding boxes after layout show every system name and at least the first four task columns
without a horizontal page scroll; the table scrolls inside its card with the system column (and
its colour key) sticky; the published numbers are reference lines under our rows, collapsed until
the reader asks for them.

The board has the demo's eleven systems (its study file's names) and its eight task runs, ten
metric columns, with ER-Reason's and CliniBench's published numbers where the demo's runs have
them: the layout the issue found hiding most of the study.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from admitdx.demo.run import STUDY_FILE
from admitdx.report.leaderboard import TaskRun, build_leaderboard
from admitdx.report.leaderboard_files import write_leaderboard_files
from admitdx.yaml_reader import load_yaml
from browser import chromium, probed

SUITES = {"earlydx": "earlydx", "clinibench": "clinibench", "er-reason-acuity": "category",
          "er-reason-disposition": "category"}  # fmt: skip
HEADLINE = {"earlydx": ["supported.micro_f1"], "clinibench": ["clinibench.macro_f1", "clinibench.map"],
            "category": ["accuracy"]}  # fmt: skip

# After layout: the viewport, the page's scroll width, each system name's box, each metric
# column head's box, the published rows' heights; then the same names after the table's own
# scroll box is scrolled to its right end (the sticky column must stay in view).
PROBE = """
<script>
const box = (e) => { const b = e.getBoundingClientRect(); return {l: b.left, r: b.right, h: b.height}; };
const names = () => [...document.querySelectorAll('tbody th.sys')].map(box);
const out = {width: window.innerWidth, page: document.documentElement.scrollWidth, names: names(),
  keys: [...document.querySelectorAll('tbody th.sys .key')].map(box),
  heads: [...document.querySelectorAll('thead tr:nth-child(2) th')].map(box),
  published: [...document.querySelectorAll('tr.pub')].map(box),
  references: [...document.querySelectorAll('tfoot tr.reference td.ref')]
    .filter((t) => t.textContent.trim()).map(box)};
const scroll = document.querySelector('.board .scroll');
out.scrollable = scroll.scrollWidth - scroll.clientWidth;
scroll.scrollLeft = scroll.scrollWidth;
out.scrolledNames = names();
const toggle = document.getElementById('show-published');
toggle.checked = true;
out.shownPublished = [...document.querySelectorAll('tr.pub')].map(box);
const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
"""


def demo_runs() -> tuple[list[str], list[TaskRun]]:
    """The demo study file's systems and task runs, with results shaped as scoring writes them."""
    study = load_yaml(STUDY_FILE.read_text(encoding="utf-8"), str(STUDY_FILE))
    names = list(study["systems"])
    runs = []
    for run, block in study["tasks"].items():
        task = run.removesuffix("-llm-subset")
        suite = SUITES[task]
        n = block.get("subset") or 120
        systems = [
            {"name": s, "counts": {"instances": n},
             "metrics": {m: {"value": 0.1 + 0.07 * i, "ci": [0.05 + 0.07 * i, 0.2 + 0.07 * i]}
                         for m in HEADLINE[suite]}}
            for i, s in enumerate(block["systems"])
        ]  # fmt: skip
        results = {"suite": suite, "headline_metrics": HEADLINE[suite], "n_instances": n, "systems": systems}
        if "subset" in block:
            results |= {
                "subset": f"the first {n} benchmark-set encounters",
                "subset_trial": {"n": n, "of": 120},
            }
        published = tuple(
            {"label": label, "metric": HEADLINE[suite][0], "value": v, "printed": f"{v:.3f}",
             "source": "ER-Reason Table 2", "data": "ER-Reason release"}
            for label, v in (("LLaMA 3.2 (zero-shot)", 0.41), ("GPT-4o (zero-shot)", 0.58),
                             ("o3-mini (zero-shot)", 0.627))
        ) if suite == "category" else ()  # fmt: skip
        runs.append(
            TaskRun(run, f"{run}/report/report.html", f"{run}/report/encounters.html", results, published)
        )
    return names, runs


def probe(html: Path, width: int) -> dict:
    return probed(
        html.read_text(encoding="utf-8"), html.with_name(f"probe-{width}.html"), f"{width},1400", PROBE
    )


def test_the_demo_shaped_board_has_every_run_and_its_counts() -> None:
    names, runs = demo_runs()
    board = build_leaderboard("demo", names, runs)
    assert len(board["systems"]) == 11 and len(board["columns"]) == 10
    subset = next(c for c in board["columns"] if c["task"] == "earlydx-llm-subset")
    assert subset["counts"]["text"] == "subset: 20 scored of 120 in the benchmark set"
    assert board["columns"][0]["counts"]["text"] == "120 scored of 120 in the benchmark set"


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install -y chromium)")
@pytest.mark.parametrize("width", [1280, 1920])
def test_every_system_and_four_task_columns_show_without_page_scroll(width: int, tmp_path: Path) -> None:
    names, runs = demo_runs()
    html = write_leaderboard_files(
        build_leaderboard("admitdx demo (synthetic MIMIC-IV)", names, runs), tmp_path
    )
    out = probe(html, width)
    assert out["width"] == width
    assert out["page"] <= width, "the page itself scrolls sideways"
    assert len(out["names"]) == 11
    for b in [*out["names"], *out["keys"]]:
        assert b["l"] >= 0 and b["r"] <= width and b["h"] > 0
    assert len(out["heads"]) == 10
    for b in out["heads"][:4]:  # the first four task columns, whole
        assert b["r"] <= width and b["l"] >= out["names"][0]["r"] - 0.5
    # the rest scrolls inside the card, and the system column stays where it was
    if out["scrollable"] > 0:
        assert [b["l"] for b in out["scrolledNames"]] == [b["l"] for b in out["names"]]
    # the published numbers: one reference line under each column that has some; the rows collapsed
    assert len(out["references"]) == 4 and all(b["h"] > 0 for b in out["references"])
    assert len(out["published"]) == 3 and all(b["h"] == 0 for b in out["published"])
    assert all(b["h"] > 0 for b in out["shownPublished"])  # the toggle shows them, with their source
