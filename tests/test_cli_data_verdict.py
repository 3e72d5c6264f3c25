"""`admitdx data check` ends with what the root can build, task by task (issue 23). The open
MIMIC-IV demo holds hosp/ and ed/ but no note/ (MIMIC-IV-Note is its own PhysioNet project), so
EarlyDx and three ER-Reason tasks are buildable, CliniBench and the one-liner are not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app


def test_the_demo_root_can_build_every_task_without_notes(
    demo_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))
    result = CliRunner().invoke(app, ["data", "check", "--mimic", str(demo_dir), "--json"])
    assert result.exit_code == 0, result.output
    tasks = json.loads(result.output)["tasks"]
    assert tasks == {
        "earlydx": [],
        "clinibench": ["note.discharge"],
        "er-reason-acuity": [],
        "er-reason-disposition": [],
        "er-reason-diagnosis": [],
        "er-reason-one-liner": ["note.discharge"],
    }
    text = CliRunner().invoke(app, ["data", "check", "--mimic", str(demo_dir)]).output
    lines = text.splitlines()
    assert "earlydx: buildable" in lines
    refusal = "clinibench: not buildable, lacks note.discharge — add note/ from MIMIC-IV-Note"
    assert any(line.startswith(refusal) for line in lines)
