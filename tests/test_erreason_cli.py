"""`admitdx build er-reason --task T (--erreason DIR | --mimic ROOT)`: the issue's one command,
dispatching to the registered spec of (task, source); negatable boolean options of every build
command; the small-split warning of the ER-Reason builds."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.cli.build import _task_command
from admitdx.contracts import load_instances
from admitdx.errors import UsageError
from admitdx.synthetic.erreason import generate_release
from admitdx.tasks.family import families
from admitdx.tasks.registry import get_task

RUNNER = CliRunner()
TASKS = ("acuity", "one-liner", "planning", "diagnosis", "disposition")


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_release(tmp_path_factory.mktemp("cli-release") / "er-reason", encounters=120, seed=5)


def _manifest(out: Path) -> dict[str, Any]:
    return json.loads((out / "manifest.json").read_text())


def _flat(text: str) -> str:
    """Help text with rich's box borders removed and its line wrapping undone."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it (the error handler of `admitdx` included)."""
    cmd = [sys.executable, "-c", "from admitdx.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def test_help_lists_the_tasks_and_an_example() -> None:
    result = RUNNER.invoke(app, ["build", "er-reason", "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    text = _flat(result.output)
    assert "Example: admitdx build er-reason --task acuity --mimic" in text
    assert "one of acuity, one-liner, planning, diagnosis, disposition" in text
    assert "planning: --erreason (er-reason-release-planning);" in text  # no --mimic member
    assert "--note-chars" in text and "[--erreason only]" in text and "[--mimic only]" in text
    listing = _flat(RUNNER.invoke(app, ["tasks"]).output)
    assert "admitdx build er-reason --task acuity|one-liner|planning|diagnosis|disposition" in listing


def test_family_members_are_the_registered_specs() -> None:
    family = families()["er-reason"]
    assert family.tasks == TASKS
    for task in TASKS:
        assert family.spec_for(task, "erreason") is get_task(f"er-reason-release-{task}")
        if task != "planning":
            assert family.spec_for(task, "mimic") is get_task(f"er-reason-{task}")


def test_release_build_equals_the_task_command(release: Path, tmp_path: Path) -> None:
    """`er-reason --task planning --erreason` is `er-reason-release-planning`, options included:
    a typed option and --set both reach the params, and the dataset is byte-identical."""
    one = tmp_path / "family"
    args = ["build", "er-reason", "--task", "planning", "--erreason", str(release), "--out", str(one)]
    result = RUNNER.invoke(app, [*args, "--note-chars", "300", "--set", "seed=4"])
    assert result.exit_code == 0, result.output
    two = tmp_path / "task"
    args = ["build", "er-reason-release-planning", "--erreason", str(release), "--out", str(two)]
    result = RUNNER.invoke(app, [*args, "--note-chars", "300", "--seed", "4"])
    assert result.exit_code == 0, result.output
    params = _manifest(one)["inputs"]["params"]
    assert params == {
        "test_fraction": 0.5, "seed": 4, "note_chars": 300,
        "one_liner_note_chars": None, "uncut_notes": "exclude",
    }  # fmt: skip
    assert (one / "instances.jsonl").read_bytes() == (two / "instances.jsonl").read_bytes()
    assert _manifest(one)["outputs"]["task"] == "er-reason-release-planning"


def test_small_split_warning_is_printed(release: Path, tmp_path: Path) -> None:
    out = tmp_path / "acuity"
    args = ["build", "er-reason", "--task", "acuity", "--erreason", str(release), "--out", str(out)]
    result = RUNNER.invoke(app, args, terminal_width=300)
    assert result.exit_code == 0, result.output
    counts = _manifest(out)["outputs"]["counts"]
    assert counts["instances"] == 120
    test_ids = {i.subject_id for i in load_instances(out) if i.split == "test"}
    assert counts["test_subjects"] == len(test_ids)
    text = _flat(result.output)
    test, patients = counts["test_instances"], counts["test_subjects"]
    assert 0 < patients <= test < 100
    assert f"the test split has {test} encounters from {patients} patients" in text


def test_planning_from_mimic_is_refused_with_the_reason(tmp_path: Path) -> None:
    done = _cli(
        "build", "er-reason", "--task", "planning", "--mimic", str(tmp_path), "--out", str(tmp_path / "o")
    )
    assert done.returncode == 2, done.stderr
    message = " ".join(done.stderr.split())
    assert "Traceback" not in done.stderr
    assert "er-reason --task planning cannot be built from --mimic" in message
    assert "physician rationales" in message and "--erreason" in message
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--task", "acuity"], "give exactly one source (--erreason or --mimic)"),
        (["--task", "acuity", "--mimic", "m", "--erreason", "e"], "give exactly one source"),
        (["--task", "triage", "--mimic", "m"], "unknown --task 'triage'"),
        (
            ["--task", "acuity", "--erreason", "e", "--home-meds-max", "3"],
            "--home-meds-max is not an option of",
        ),
        (
            ["--task", "acuity", "--erreason", "e", "--set", "home_meds_max=3"],
            "has no option 'home_meds_max'",
        ),
    ],
)
def test_usage_errors(args: list[str], expected: str, tmp_path: Path) -> None:
    result = RUNNER.invoke(app, ["build", "er-reason", *args, "--out", str(tmp_path / "o")])
    assert isinstance(result.exception, UsageError), result.output
    assert expected in str(result.exception)
    assert result.exception.exit_code == 2


def test_mimic_build_through_the_family(demo_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "acuity"
    args = ["build", "er-reason", "--task", "acuity", "--mimic", str(demo_dir), "--out", str(out)]
    result = RUNNER.invoke(app, [*args, "--test-fraction", "0.3"], terminal_width=300)
    assert result.exit_code == 0, result.output
    manifest = _manifest(out)
    assert manifest["outputs"]["task"] == "er-reason-acuity"
    assert manifest["inputs"]["params"]["test_fraction"] == 0.3
    counts = manifest["outputs"]["counts"]
    assert counts["instances"] == 207  # the demo's stays with an acuity (test_erreason_mimic)
    assert "too few for bootstrap intervals" in _flat(result.output)


def test_boolean_parameter_defaulting_to_true_can_be_switched_off(tmp_path: Path) -> None:
    """CliniBench's group_by_patient defaults to True: `--no-group-by-patient` turns it off, as
    `--set group_by_patient=false` does; the build function receives the parsed params."""
    received: list[Any] = []

    def build(source: Path, out: Path, params: Any, **options: Any) -> dict[str, Any]:
        received.append(params)
        return {"skipped": False}

    spec = dataclasses.replace(get_task("clinibench"), build=build, report_build=None)
    one = typer.Typer()
    one.command("clinibench")(_task_command(spec))
    one.command("other")(lambda: None)  # two commands, so the name is a subcommand
    base = ["clinibench", "--mimic", str(tmp_path), "--out", str(tmp_path / "o")]
    for extra, expected in (
        ([], True),
        (["--no-group-by-patient"], False),
        (["--group-by-patient"], True),
        (["--set", "group_by_patient=false"], False),
    ):
        result = RUNNER.invoke(one, [*base, *extra])
        assert result.exit_code == 0, result.output
        assert received[-1].group_by_patient is expected, extra
        assert received[-1].drop_empty_core is True  # another boolean left at its default
    help_text = _flat(RUNNER.invoke(app, ["build", "clinibench", "--help"], terminal_width=200).output)
    assert "--no-group-by-patient" in help_text and "--no-drop-empty-core" in help_text
