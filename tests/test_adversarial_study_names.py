"""Issue 30, names and confinement: a study file received from someone else cannot write outside its
``out:`` folder. A task run's or a system's name is a folder, so it must be one path segment of safe
characters; ``out:`` may not be a data root, lie in one, or lie below a regular file; a run folder
that is a link to elsewhere is not written through. Each refusal is exit 2 naming the file, the key
and the character at fault, before anything is written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from admitdx.errors import UsageError
from data_roots import run_cli
from study_cases import STUDY, refused, write_study


@pytest.mark.parametrize(
    ("name", "culprit"),
    [
        ("../../x", "path separator '/'"),
        ("/tmp/elsewhere", "path separator '/'"),
        ("a\\\\b", "path separator '\\\\'"),
        ("..", "parent or current folder"),
        (".", "parent or current folder"),
        ("a\\x01b", "control character U+0001"),
        ("a b", "character ' ' (U+0020)"),
    ],
)
def test_a_task_run_named_as_a_path_is_refused_naming_the_character(
    name: str,
    culprit: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = sorted(p.name for p in tmp_path.parent.iterdir())
    text = STUDY.replace("  earlydx:\n", f'  "{name}":\n    task: earlydx\n')
    err = refused(write_study(tmp_path, text), capsys, monkeypatch)
    assert "tasks." in err and culprit in err
    assert sorted(p.name for p in tmp_path.parent.iterdir()) == before  # nothing beside the test's folder


def test_a_system_named_as_a_path_is_refused_even_if_no_task_uses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = STUDY + '  "../evil": {kind: frequency}\n'
    err = refused(write_study(tmp_path, text), capsys, monkeypatch)
    assert "systems.../evil" in err and "path separator '/'" in err


def test_out_equal_to_the_data_root_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_study(tmp_path, STUDY.replace("out: out", "out: data"))
    code, _, err = run_cli(["study", str(path)], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in err
    assert f"out: {tmp_path / 'data'} is the data root" in " ".join(err.split())
    assert list((tmp_path / "data").iterdir()) == []


def test_out_inside_a_mimic_root_not_named_by_the_study_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder with MIMIC-IV's hosp/ is a data root whether or not the study names it."""
    (tmp_path / "other-root" / "hosp").mkdir(parents=True)
    path = write_study(tmp_path, STUDY.replace("out: out", "out: other-root/studies"))
    code, _, err = run_cli(["study", str(path)], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in err
    assert "is inside the data root" in " ".join(err.split())
    assert sorted(p.name for p in (tmp_path / "other-root").iterdir()) == ["hosp"]


def test_out_below_a_regular_file_is_exit_2_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notes.txt").write_text("a file\n", encoding="utf-8")
    path = write_study(tmp_path, STUDY.replace("out: out", "out: notes.txt/runs"))
    code, _, err = run_cli(["study", str(path), "--dry-run"], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in err
    assert "which is a file, not a folder" in " ".join(err.split())


def test_a_run_folder_over_a_data_root_inside_out_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """out: may hold the data (the demo's does), but no task run may be named after its folder."""
    text = STUDY.replace("out: out", "out: .").replace("  earlydx:\n", "  data:\n    task: earlydx\n")
    path = write_study(tmp_path, text)
    code, _, err = run_cli(["study", str(path)], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in err
    assert "tasks.data: its folder" in " ".join(err.split())
    assert list((tmp_path / "data").iterdir()) == []


def test_a_run_folder_linked_to_elsewhere_is_not_written_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").mkdir()
    os.symlink(elsewhere, tmp_path / "out" / "earlydx")
    path = write_study(tmp_path, STUDY)
    code, _, err = run_cli(["study", str(path), "--dry-run"], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in err
    assert "lies outside the study's out: folder" in " ".join(err.split())
    assert list(elsewhere.iterdir()) == []


def test_safe_names_pass_and_paths_under_out_are_returned(tmp_path: Path) -> None:
    from admitdx.study.names import check_name, under  # here: the module is issue 30's (counted before)

    for name in ("earlydx", "er-reason-acuity", "gpt_4o.2024-08-06", "A1"):
        assert check_name(name, "f.yaml", "tasks.x") == name
    assert under(tmp_path, "a", "predictions", "b") == tmp_path / "a" / "predictions" / "b"
    with pytest.raises(UsageError, match="lies outside"):
        under(tmp_path, "..", "x")


def test_a_leaderboard_file_linked_to_elsewhere_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "precious.html"
    target.write_text("keep me\n", encoding="utf-8")
    (tmp_path / "out").mkdir()
    os.symlink(target, tmp_path / "out" / "leaderboard.html")
    path = write_study(tmp_path, STUDY)
    code, _, err = run_cli(["study", str(path)], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in err
    assert "leaderboard.html lies outside the study's out: folder" in " ".join(err.split())
    assert target.read_text(encoding="utf-8") == "keep me\n"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["leaderboard.html", "study.json"]
