"""Issue 26, class 3: a truncated last line was dropped silently.

A ``predictions.jsonl`` cut inside its last line (a full disk, an interrupted copy) was read as one
prediction fewer in a run whose manifest says complete, and scored with exit 0. Such a run is now
refused as damaged, naming file and line; only an unfinished run's cut tail (the kill that stopped
it) is dropped, and ``predict`` redoes that prediction on resume.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from admitdx.jsonl import read_jsonl
from adversarial_runs import Cli, completed_run, manifest


@pytest.fixture
def cli(capsys, monkeypatch) -> Cli:
    return Cli(capsys, monkeypatch)


@pytest.fixture
def run(cli: Cli, tmp_path: Path) -> tuple[Path, Path]:
    ds, pred = completed_run(cli, tmp_path)
    assert cli.match(ds, pred)[0] == 0
    return ds, pred


def test_a_complete_run_with_a_cut_last_line_is_refused(
    cli: Cli, run: tuple[Path, Path], tmp_path: Path
) -> None:
    ds, pred = run
    path = pred / "predictions.jsonl"
    data = path.read_bytes()
    assert data.count(b"\n") == 4 and manifest(pred)["outputs"]["complete"] is True
    path.write_bytes(data[:-15])  # the last line, without its newline and a few bytes
    for code, err in (cli.match(ds, pred), cli.score(ds, pred, tmp_path / "s")):
        assert code == 2, err
        assert "the last line is cut off" in err and f"table {path}, row 4" in err
        assert "restore it" in err and "rerun the same `admitdx predict` command" in err
    cli.predict(ds, pred)  # the fix it names: the cut prediction is made again, nothing else
    assert path.read_bytes() == data
    assert cli.score(ds, pred, tmp_path / "s")[0] == 0


def test_a_complete_run_missing_whole_lines_is_refused(
    cli: Cli, run: tuple[Path, Path], tmp_path: Path
) -> None:
    """Cut at a line boundary, the file still ends in a newline: the manifest's count tells."""
    ds, pred = run
    path = pred / "predictions.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:3]))
    code, err = cli.score(ds, pred, tmp_path / "s")
    assert code == 2 and "3 lines, but the run's manifest says it completed with 4 predictions" in err


def test_an_unfinished_runs_cut_tail_is_redone_on_resume(cli: Cli, run: tuple[Path, Path]) -> None:
    ds, pred = run
    path = pred / "predictions.jsonl"
    before = [r["instance_id"] for r in read_jsonl(path)]
    path.write_bytes(path.read_bytes()[:-15])  # killed while writing the last line
    unfinished = {**manifest(pred), "outputs": {"complete": False}}
    (pred / "manifest.json").write_text(json.dumps(unfinished))
    cli.predict(ds, pred)
    after = [r["instance_id"] for r in read_jsonl(path)]
    assert sorted(after) == sorted(before) and len(after) == 4  # each instance exactly once
    assert path.read_bytes().endswith(b"\n") and manifest(pred)["outputs"]["complete"] is True
