"""A harness run as a study system: a log named by path (relative to the study file) and a command
template the study runs on its own export (here a script running Inspect with the test model) both
appear on the leaderboard beside a baseline, scored by the task's suite, on the open MIMIC-IV demo."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from admitdx.cli import app
from admitdx.study.subset import llm_subset
from harness_data import RUNNER, answers_by_messages, export
from test_harness_roundtrip import run_inspect

pytest.importorskip("inspect_ai", reason="the harness extra: pip install 'admitdx[harness]'")

STUDY = """\
out: out
data: {{mimic: {root}}}
score: {{n_bootstrap: 20}}
tasks:
  acuity:
    task: er-reason-acuity
    subset: 6
    systems: [{systems}]
systems:
  majority: {{kind: majority}}
  from-log: {{kind: inspect, log: logs/run.eval}}
  from-command:
    kind: inspect
    command: {python} {helper} {{task_file}} {{log_dir}}
"""
HELPER = Path(__file__).with_name("inspect_canned_run.py")


def _study(folder: Path, root: Path, systems: str) -> Path:
    path = folder / "study.yaml"
    path.write_text(STUDY.format(root=root, systems=systems, python=sys.executable, helper=HELPER))
    result = RUNNER.invoke(app, ["study", str(path)])
    assert result.exit_code == 0, result.output
    return folder / "out"


@pytest.mark.slow
def test_harness_runs_appear_on_the_leaderboard(demo_dir: Path, tmp_path: Path) -> None:
    # the dataset the study will predict on, built and cut as the study builds and cuts it
    built = tmp_path / "built"
    result = RUNNER.invoke(
        app, ["build", "er-reason", "--task", "acuity", "--mimic", str(demo_dir), "--out", str(built)]
    )
    assert result.exit_code == 0, result.output
    subset = llm_subset(built, tmp_path / "subset", 6)
    export("inspect", subset, tmp_path / "export")
    answers = answers_by_messages(tmp_path / "export")
    log = run_inspect(next((tmp_path / "export").glob("admitdx_*.py")), answers, tmp_path / "inspect-logs")
    (tmp_path / "logs").mkdir()
    log.rename(tmp_path / "logs" / "run.eval")
    out = _study(tmp_path, demo_dir, "majority, from-log, from-command")
    board = json.loads((out / "leaderboard.json").read_text())
    assert [row["name"] for row in board["systems"]] == ["majority", "from-log", "from-command"]
    results = json.loads((out / "acuity" / "report" / "results.json").read_text())
    counts = {s["name"]: s["counts"] for s in results["systems"]}
    assert counts["from-log"]["predictions"] == counts["from-command"]["predictions"] == 6
    assert (
        counts["from-log"]["parse_errors"] == counts["from-command"]["parse_errors"] == 1
    )  # the fourth of six
    manifest = json.loads((out / "acuity" / "predictions" / "from-command" / "manifest.json").read_text())
    assert manifest["inputs"]["system_inputs"]["harness"] == "inspect"
    assert manifest["inputs"]["system_inputs"]["model"] == "mockllm/model"
