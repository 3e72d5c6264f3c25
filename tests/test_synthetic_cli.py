"""``admitdx data synth`` end to end, as a user runs it (a real subprocess, real exit codes)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

from admitdx.synthetic import read_truth_meta


def _admitdx(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from admitdx.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={"COLUMNS": "200", "PATH": ""},
    )


def test_synth_writes_a_root_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "root"
    done = _admitdx("data", "synth", "--out", str(out), "--patients", "30", "--seed", "4", "--report")
    assert done.returncode == 0, done.stderr
    assert "wrote 30 patients" in done.stdout
    assert "labels_per_encounter" in done.stdout and "radiology_storetime_drop" in done.stdout
    assert read_truth_meta(out)["seed"] == 4
    assert not list(out.rglob("*.part"))


def test_synth_refuses_a_non_empty_folder_with_exit_2(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("keep me")
    done = _admitdx("data", "synth", "--out", str(tmp_path), "--patients", "3")
    assert done.returncode == 2
    assert "not empty" in done.stderr and "Traceback" not in done.stderr
    forced = _admitdx("data", "synth", "--out", str(tmp_path), "--patients", "3", "--force")
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / "x.txt").read_text() == "keep me"


def test_help_ends_with_an_example() -> None:
    done = _admitdx("data", "synth", "--help")
    assert done.returncode == 0
    assert "Example: admitdx data synth" in done.stdout


def test_force_stopped_between_renames_leaves_a_root_check_refuses(tmp_path: Path, monkeypatch) -> None:
    """`synth --force` over seed 1's root, stopped after its first rename: the root has tables
    missing (refused by `data check`), never seed 1's tables beside seed 2's."""
    from typer.testing import CliRunner

    from admitdx.cli import app
    from admitdx.errors import AdmitdxError
    from admitdx.synthetic import generate_synthetic

    root = tmp_path / "mimic"
    generate_synthetic(root, patients=30, seed=1)
    real_replace, moved = Path.replace, []

    def replace_then_die(self: Path, target: Path) -> Path:
        if moved:
            raise KeyboardInterrupt  # the kill, after one table moved in
        moved.append(self.name)
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", replace_then_die)
    with contextlib.suppress(KeyboardInterrupt):
        generate_synthetic(root, patients=30, seed=2, overwrite=True)
    monkeypatch.setattr(Path, "replace", real_replace)
    assert len(moved) == 1 and not (root / "_truth" / "meta.json").exists()
    checked = CliRunner().invoke(app, ["data", "check", "--mimic", str(root)])
    assert checked.exit_code == 2 or isinstance(checked.exception, AdmitdxError), checked.output
    assert "missing" in (checked.output + str(checked.exception)).lower()
