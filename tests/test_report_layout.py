"""The report of each answer kind (diagnoses, category, text) in headless Chromium: no table wider
than its card (it wraps or scrolls inside it), no two axis labels of a figure overlapping
(bounding boxes after layout), and only the cards the task can fill (issue 23).

The category run uses MIMIC-IV-ED's disposition values as ``edstays.disposition`` spells them
(HOME, ADMITTED, TRANSFER, LEFT WITHOUT BEING SEEN, LEFT AGAINST MEDICAL ADVICE, ELOPED, EXPIRED,
OTHER; MIMIC-IV-ED documentation, edstays table): their length is what ran the x-labels together.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

import scoring_data as sd
from admitdx.cli import app
from admitdx.contracts import Instance, Prediction
from admitdx.jsonl import write_jsonl
from admitdx.tasks.dataset_writer import instance_schema
from admitdx.tasks.registry import register
from admitdx.tasks.spec import TaskSpec
from browser import chromium, probed
from predict_manifests import write_predict_manifest

DISPOSITIONS = (
    "HOME",
    "ADMITTED",
    "TRANSFER",
    "LEFT WITHOUT BEING SEEN",
    "LEFT AGAINST MEDICAL ADVICE",
    "ELOPED",
    "EXPIRED",
    "OTHER",
)

# After layout: per table, its card's right edge and the right edge of what shows of it (the
# table, or the scrolling box around it); per figure, the tick labels of each axis as boxes.
PROBE = """
<script>
const out = {tables: [], axes: []};
document.querySelectorAll('section table').forEach((t) => {
  const card = t.closest('section').getBoundingClientRect();
  const shown = (t.closest('.scroll') || t).getBoundingClientRect();
  out.tables.push({section: t.closest('section').id, right: shown.right, card: card.right});
});
document.querySelectorAll('figure svg').forEach((svg, f) => {
  svg.querySelectorAll('g[id^="matplotlib.axis"]').forEach((axis) => {
    const boxes = [...axis.querySelectorAll('g[id^="xtick_"] text, g[id^="ytick_"] text')]
      .map((t) => t.getBoundingClientRect()).filter((b) => b.width > 0)
      .map((b) => ({l: b.left, r: b.right, t: b.top, b: b.bottom}));
    out.axes.push({figure: f, axis: axis.id, boxes});
  });
});
const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
"""


def _invoke(*args: object) -> None:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output


@dataclass(frozen=True)
class _NoParams:
    pass


def _never_built(*args: object, **kwargs: object) -> dict:
    raise AssertionError("written by hand")


def _answers_run(root: Path, answer: str, gold: list, systems: dict[str, list]) -> Path:
    """Score hand-written answers of a registered category or text task; the run directory."""
    task = register(
        TaskSpec(f"layout-{answer}", answer, _NoParams, _never_built, answer, answer,
                 instance_schema((), (), target=True),
                 categories=DISPOSITIONS if answer == "category" else ())
    )  # fmt: skip
    insts = [
        Instance(f"i{n}", n // 2, task.name, "test", {}, f"r{n}", [], target=g) for n, g in enumerate(gold)
    ]
    write_jsonl(root / "ds" / "instances.jsonl", (i.to_dict() for i in insts))
    for name, answers in systems.items():
        write_jsonl(
            root / name / "predictions.jsonl",
            (Prediction(i.id, name, [], answer=a).to_dict() for i, a in zip(insts, answers, strict=True)),
        )
        write_predict_manifest(root / name, insts)
    run = root / "run"
    _invoke("score", "--dataset", root / "ds", "--predictions", *(root / n for n in systems), "--out", run,
            "--n-bootstrap", "50")  # fmt: skip
    return run


def _diagnoses_run(root: Path) -> Path:
    insts = sd.instances()
    ds = sd.write_dataset(root / "ds", insts)
    dirs = [
        sd.write_system(root, "oracle-all", insts, sd.oracle(None)),
        sd.write_system(root, "code-frequency-baseline", insts, lambda i: [("Sepsis", None)]),
    ]
    run = root / "run"
    _invoke("score", "--dataset", ds, "--predictions", *dirs, "--matcher", "exact", "--out", run,
            "--n-bootstrap", "50")  # fmt: skip
    return run


def _category_run(root: Path) -> Path:
    gold = [DISPOSITIONS[n % len(DISPOSITIONS)] for n in range(16)]
    return _answers_run(root, "category", gold, {"right": gold, "always-home": ["HOME"] * 16,
                                                   "majority-class-baseline": ["ADMITTED"] * 16})  # fmt: skip


def _text_run(root: Path) -> Path:
    gold = [f"{n} year old with chest pain and shortness of breath" for n in range(8)]
    return _answers_run(root, "text", gold, {"copy": gold, "short": ["chest pain"] * 8})


RUNS = {"diagnoses": _diagnoses_run, "category": _category_run, "text": _text_run}


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install -y chromium)")
@pytest.mark.parametrize("kind", list(RUNS))
def test_tables_fit_their_cards_and_axis_labels_do_not_overlap(kind: str, tmp_path: Path) -> None:
    run = RUNS[kind](tmp_path)
    _invoke("report", run)
    html = (run / "report.html").read_text()
    assert ('id="agreement"' in html) == (kind == "diagnoses")  # no judge where no matcher applies
    if kind != "diagnoses":
        assert "admission-time diagnosis report" not in html and "predicted_share." not in html
    probe = probed(html, tmp_path / "probe.html", "1024,4000", PROBE)
    assert probe["tables"] and probe["axes"]
    for table in probe["tables"]:
        assert table["right"] <= table["card"] + 0.5, (
            f"{kind}: a table in #{table['section']} overflows its card"
        )
    for axis in probe["axes"]:
        boxes = axis["boxes"]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                apart = (
                    a["r"] <= b["l"] + 0.5
                    or b["r"] <= a["l"] + 0.5
                    or a["b"] <= b["t"] + 0.5
                    or b["b"] <= a["t"] + 0.5
                )
                assert apart, f"{kind}: figure {axis['figure']} {axis['axis']}: tick labels overlap {a} {b}"
