"""A study task run repeated over seeds (`repeat: {seeds: [...]}`): one run per seed, each seed set
wherever the run has one (the build's split, the bootstrap, a system's own seed option), and one
leaderboard column group whose cells show the mean and the spread across seeds beside the
(seed-averaged) bootstrap interval."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.errors import UsageError
from admitdx.report.leaderboard import TaskRun, build_leaderboard
from admitdx.report.leaderboard_files import render_latex, render_markdown
from admitdx.study.spec import load_study

STUDY = """\
data:
  mimic: {root}
tasks:
  er-reason-acuity:
    systems: [majority, triage-classifier]
{extra}systems:
  majority: {{kind: majority}}
  triage-classifier: {{kind: triage-classifier}}
"""


def write(tmp_path: Path, extra: str) -> Path:
    (tmp_path / "root").mkdir(exist_ok=True)
    path = tmp_path / "study.yaml"
    path.write_text(STUDY.format(root=tmp_path / "root", extra=extra), encoding="utf-8")
    return path


def test_a_repeated_run_is_one_run_per_seed_with_every_seed_set(tmp_path: Path) -> None:
    study = load_study(write(tmp_path, "    repeat: {seeds: [3, 5]}\n"))
    assert [t.name for t in study.tasks] == ["er-reason-acuity-seed3", "er-reason-acuity-seed5"]
    for task, seed in zip(study.tasks, (3, 5), strict=True):
        assert task.repeat_of == "er-reason-acuity" and task.params.seed == seed and task.score.seed == seed
        majority, classifier = task.systems
        assert majority.options == {} and classifier.options == {"seed": seed}  # only a kind with a seed
    assert study.system_names == ["majority", "triage-classifier"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("    repeat: {seeds: [3]}\n", "repeat.seeds must list two or more different seeds"),
        ("    repeat: {seeds: [3, 3]}\n", "repeat.seeds must list two or more different seeds"),
        ("    repeat: {seeds: [true, 2]}\n", "repeat.seeds must be whole numbers"),
        (
            "    repeat: {sedes: [1, 2]}\n",
            "tasks.er-reason-acuity.repeat must be a mapping with one key, seeds",
        ),
    ],
)
def test_a_bad_repeat_names_the_key(tmp_path: Path, extra: str, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_study(write(tmp_path, extra))


def _results(seed: int, majority: float, classifier: float) -> dict:
    def entry(name: str, value: float) -> dict:
        return {"name": name, "counts": {"instances": 100 + seed},
                "metrics": {"accuracy": {"value": value, "ci": [value - 0.05, value + 0.05]}}}  # fmt: skip

    return {"suite": "category", "headline_metrics": ["accuracy"], "n_instances": 100 + seed,
            "systems": [entry("majority", majority), entry("triage-classifier", classifier)]}  # fmt: skip


def test_the_seeds_make_one_column_with_mean_and_spread() -> None:
    seeds = ((3, _results(3, 0.50, 0.55)), (5, _results(5, 0.54, 0.53)), (7, _results(7, 0.52, 0.60)))
    run = TaskRun("acuity", "a/report.html", "a/encounters.html", seeds[0][1], seeds=seeds)
    board = build_leaderboard("t", ["majority", "triage-classifier"], [run])
    (col,) = board["columns"]
    majority, classifier = col["cells"]
    assert majority["value"] == pytest.approx(0.52) and classifier["value"] == pytest.approx(0.56)
    assert majority["seeds"]["values"] == [0.50, 0.54, 0.52] and majority["seeds"]["n"] == [103, 105, 107]
    assert majority["seeds"]["sd"] == pytest.approx(statistics.stdev([0.50, 0.54, 0.52]))
    assert majority["ci"] == pytest.approx([0.47, 0.57])  # the seeds' bootstrap bounds, averaged
    assert col["best"] == "triage-classifier" and classifier["rank"] == 1 and majority["rank"] == 2
    assert majority["difference"] == {"value": pytest.approx(-0.04), "ci": None, "mark": False}
    assert col["counts"]["text"] == "103 scored of 103 in the benchmark set; mean of 3 seeds (3, 5, 7)"
    markdown = render_markdown(board)
    assert "| majority | 0.520 [0.470, 0.570] n=105 #2 3 seeds: sd 0.020, 0.500–0.540 Δ -0.040 |" in markdown
    assert r"0.520 $\pm$0.020" in render_latex(board)


def test_a_study_repeated_over_two_seeds_writes_one_column_group(
    synthetic_root: Path, tmp_path: Path
) -> None:
    """Run end to end: two builds with their own splits, each scored, one column group of means."""
    path = tmp_path / "study.yaml"
    path.write_text(
        STUDY.format(
            root=synthetic_root, extra="    repeat: {seeds: [1, 2]}\n    score: {n_bootstrap: 20}\n"
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["study", str(path)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "study"
    runs = [json.loads((out / f"er-reason-acuity-seed{s}/report/results.json").read_text()) for s in (1, 2)]
    splits = [
        json.loads((out / f"er-reason-acuity-seed{s}/dataset/manifest.json").read_text()) for s in (1, 2)
    ]
    assert splits[0]["inputs"] != splits[1]["inputs"]  # each seed its own build
    board = json.loads((out / "leaderboard.json").read_text())
    (col,) = board["columns"]
    assert col["task"] == "er-reason-acuity" and col["counts"]["seeds"] == [1, 2]
    for i, name in enumerate(["majority", "triage-classifier"]):
        values = [
            next(s for s in r["systems"] if s["name"] == name)["metrics"]["accuracy"]["value"] for r in runs
        ]
        assert col["cells"][i]["seeds"]["values"] == values
        assert col["cells"][i]["value"] == pytest.approx(statistics.fmean(values))
    assert "2 seeds: sd" in (out / "leaderboard.md").read_text()
