"""Messages that name the real cause and the fix (issue 23, item 6): a one-liner without note/,
predictions of another dataset, a predictions file given for its folder, one system name twice."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from typer.testing import CliRunner

import scoring_data as sd
from admitdx.cli import app
from admitdx.errors import AdmitdxError


def _error(*args: object) -> AdmitdxError:
    """The error `admitdx` would print with exit 2 (its main catches what CliRunner hands back)."""
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert isinstance(result.exception, AdmitdxError), result.output
    assert result.exception.exit_code == 2
    return result.exception


@pytest.fixture(scope="module")
def scored_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("messages")
    insts = sd.instances()
    ds = sd.write_dataset(root / "ds", insts)
    return ds, [
        sd.write_system(root, "oracle-all", insts, sd.oracle(None)),
        sd.write_system(root, "sepsis", insts, lambda i: [("Sepsis", None)]),
    ]


def test_the_one_liner_without_note_asks_for_note_not_hosp_and_ed(demo_dir: Path, tmp_path: Path) -> None:
    """The open demo has hosp/ and ed/ but no note/ (MIMIC-IV-Note is a separate PhysioNet project)."""
    error = _error("build", "er-reason", "--task", "one-liner", "--mimic", demo_dir, "--out", tmp_path / "ol")
    assert "note.discharge" in str(error)
    assert error.hint.startswith("add note/ from MIMIC-IV-Note to this root") and "hosp/" not in error.hint


def test_predictions_of_another_dataset_are_refused_before_matches_are_sought(
    scored_inputs: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    """Predictions made (with their manifest) on another task's dataset have no matches against this
    one: the refusal names the other dataset instead of sending the user to `admitdx match`."""
    ds, _ = scored_inputs
    other = sd.write_dataset(
        tmp_path / "other", [dataclasses.replace(i, text=i.text + " (another task)") for i in sd.instances()]
    )
    CliRunner().invoke(app, ["predict", "--dataset", str(other), "--system", "frequency",
                             "--out", str(tmp_path / "freq")], catch_exceptions=False)  # fmt: skip
    assert (tmp_path / "freq" / "predictions.jsonl").exists()
    error = _error("score", "--dataset", ds, "--predictions", tmp_path / "freq", "--matcher", "exact",
                   "--out", tmp_path / "run")  # fmt: skip
    assert "were made on another dataset" in str(error) and "admitdx match" not in (error.hint or "")


def test_a_predictions_file_is_answered_with_its_folder(
    scored_inputs: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    ds, dirs = scored_inputs
    file = dirs[0] / "predictions.jsonl"
    for verb in (["score", "--out", tmp_path / "run"], ["match"]):
        error = _error(*verb[:1], "--dataset", ds, "--predictions", file, "--matcher", "exact", *verb[1:])
        assert (
            f"--predictions {file} is a file" in str(error) and error.hint == f"pass --predictions {dirs[0]}"
        )


def test_one_system_name_twice_names_the_system_and_both_folders(
    scored_inputs: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    ds, dirs = scored_inputs
    error = _error("score", "--dataset", ds, "--predictions", *dirs, dirs[0], "--matcher", "exact",
                   "--out", tmp_path / "run")  # fmt: skip
    assert f"the same system name 'oracle-all': {dirs[0]}, {dirs[0]}" in str(error)
    assert "--name" in error.hint
