"""Issue 30, classes 8 and 12: a kill between a file and its manifest.

``demo.steps.llm_subset`` wrote ``subset/instances.jsonl``, then its manifest; killed between the
two, the rerun skipped both, and results.json, the leaderboard and the report presented the subset's
scores as the whole split's (exit 0). ``data synth --erreason`` killed mid-run left a short release
that ``data check`` and ``build`` accepted. Both are now written aside and renamed into place whole.

Then a kill at every kind of write a study makes (the dataset's staging, the subset, predictions,
matches, score, report, leaderboard): the rerun's results.json and leaderboard are byte for byte an
uninterrupted run's. The kill is :mod:`kill_hook` in a real ``admitdx`` process, placed by what it
writes, not by a clock; the systems are baselines and the exact matcher (no model).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from data_roots import run_cli

HOOK = Path(__file__).with_name("kill_hook.py")
STUDY = """\
out: out
lanes: 1
data:
  mimic: {root}
score: {{n_bootstrap: 20}}
tasks:
  earlydx:
    matcher: exact
    systems: [frequency]
  earlydx-subset:
    from: earlydx
    subset: 6
    matcher: exact
    systems: [frequency]
systems:
  frequency: {{kind: frequency}}
"""
RESULTS = ("earlydx/report/results.json", "earlydx-subset/report/results.json")
BOARD = tuple(f"leaderboard.{ext}" for ext in ("json", "md", "tex", "html"))
#: (where the kill lands: WORD:N of kill_hook, what is removed first so that the write happens:
#: "." the whole study folder, "" nothing, since matching, scoring and reports are always redone)
KILLS = (
    ("dataset:2", "."),  # the build's staging, mid-way
    ("subset:2", "earlydx-subset"),  # instances written, the manifest that marks them a trial not yet
    ("subset:4", "earlydx-subset"),  # all written, the folder not yet renamed into place
    ("predictions.jsonl:2", "earlydx/predictions"),  # one prediction appended
    ("matches:1", ""),  # the exact matcher's matches
    ("summary.json:1", ""),  # the match summary
    ("results.json:1", ""),  # the score
    ("report.html:1", ""),  # the report (table.md and encounters.html are written the same way)
    ("leaderboard:7", ""),  # three of the four leaderboard files in place, the html not
)


def _study(path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(HOOK), "study", str(path)],
        capture_output=True, text=True, env=env, timeout=600, check=False,
    )  # fmt: skip


def _outputs(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in (*RESULTS, *BOARD)}


@pytest.mark.slow
def test_a_kill_at_every_write_of_a_study_reruns_to_the_same_bytes(
    synthetic_root: Path, tmp_path: Path
) -> None:
    """The kills are chained in the order a study writes: each killed run first resumes what the
    kill before it left, then dies at its own write (so a resume that fails or stops early shows as
    a kill that did not land), and one last run finishes everything. Its bytes must be the
    uninterrupted run's: a resume that skipped, repeated or half-wrote anything would differ."""
    study = tmp_path / "study.yaml"
    study.write_text(STUDY.format(root=synthetic_root), encoding="utf-8")
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "ADMITDX_TEST_KILL"}
    first = _study(study, env)
    assert first.returncode == 0, first.stderr
    whole = _outputs(out)
    assert json.loads(whole[RESULTS[1]])["subset_trial"]["n"] == 6  # the subset says it is one
    for kill, removed in KILLS:
        if removed:
            shutil.rmtree(out / removed, ignore_errors=True)
        killed = _study(study, {**env, "ADMITDX_TEST_KILL": kill})
        assert killed.returncode == 137, (
            f"{kill}: the kill did not land ({killed.returncode}) {killed.stderr}"
        )
    rerun = _study(study, env)
    assert rerun.returncode == 0, rerun.stderr
    after = _outputs(out)
    assert [k for k in whole if after[k] != whole[k]] == []


def test_a_subset_killed_before_its_manifest_is_cut_again_not_taken_whole(
    synthetic_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The case as found: instances written, the process gone before the manifest. The rerun must
    not find a subset without the mark that says it is one."""
    from admitdx.runs import read_manifest
    from admitdx.study.subset import llm_subset

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("admitdx.study.subset.write_manifest", killed)
    with pytest.raises(KeyboardInterrupt):
        llm_subset(synthetic_dataset, tmp_path / "subset", 5)
    assert not (tmp_path / "subset" / "instances.jsonl").exists()  # nothing a rerun could take
    monkeypatch.undo()
    llm_subset(synthetic_dataset, tmp_path / "subset", 5)
    assert read_manifest(tmp_path / "subset")["outputs"]["trial"]["n"] == 5
    assert [p.name for p in tmp_path.iterdir()] == ["subset"]  # no staging folder left behind


def test_a_killed_release_is_not_left_for_check_and_build(tmp_path: Path, capsys, monkeypatch) -> None:
    """``data synth --erreason`` stopped after its encounters file: no release folder at all."""
    out = tmp_path / "release"
    env = {**os.environ, "ADMITDX_TEST_KILL": "icd_10_codes.csv:1"}
    args = ["data", "synth", "--erreason", "--out", str(out), "--encounters", "60"]
    killed = subprocess.run(
        [sys.executable, str(HOOK), *args], capture_output=True, text=True, env=env, timeout=300
    )
    assert killed.returncode == 137, killed.stderr
    assert not out.exists()
    assert run_cli(["data", "check", "--erreason", str(out)], capsys, monkeypatch)[0] == 2
    assert run_cli(args, capsys, monkeypatch)[0] == 0  # the rerun writes it whole
    assert (out / "er_reason.csv").read_text().count("\n") > 60


def test_synth_erreason_refuses_what_it_cannot_do(tmp_path: Path, capsys, monkeypatch) -> None:
    afile = tmp_path / "a-file"
    afile.write_text("x")
    cases = {
        ("--out", afile): f"--out {afile} is a file",
        ("--out", tmp_path / "r", "--report"): "--report does nothing for a synthetic ER-Reason release",
        ("--out", tmp_path / "r", "--patients", "50"): "--patients does nothing",
    }
    for extra, said in cases.items():
        code, _, err = run_cli(["data", "synth", "--erreason", *map(str, extra)], capsys, monkeypatch)
        err = " ".join(err.split())
        assert code == 2 and said in err and "Traceback" not in err, err
    code, _, err = run_cli(
        ["data", "synth", "--out", str(tmp_path / "m"), "--encounters", "9"], capsys, monkeypatch
    )
    assert code == 2 and "--encounters does nothing for a synthetic MIMIC-IV root" in " ".join(err.split())
    assert not (tmp_path / "r").exists() and not (tmp_path / "m").exists()


def test_force_replaces_a_release_but_not_a_folder_of_other_files(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    out = tmp_path / "release"
    base = ["data", "synth", "--erreason", "--out", str(out), "--encounters", "20"]
    assert run_cli(base, capsys, monkeypatch)[0] == 0
    assert run_cli([*base, "--force", "--seed", "3"], capsys, monkeypatch)[0] == 0
    (out / "my-notes.txt").write_text("mine")
    code, _, err = run_cli([*base, "--force"], capsys, monkeypatch)
    assert code == 2 and "my-notes.txt" in " ".join(err.split())
    assert (out / "my-notes.txt").read_text() == "mine"
