"""Issue 30, duplicate keys: YAML mappings have unique keys, and PyYAML kept the last of two without
a word — a task block pasted twice under one name dropped the first run from the leaderboard with
exit 0, the same under ``systems:``. Every mapping of a study (and of a ``--config`` file) refuses a
repeated key with exit 2 naming it and both its lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from admitdx.errors import UsageError
from admitdx.yaml_reader import load_yaml
from study_cases import STUDY, predict_refused, refused, write_study


def test_a_task_block_pasted_twice_is_refused_with_both_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = STUDY.replace(
        "  er-reason-acuity:\n",
        "  earlydx:\n    matcher: exact\n    systems: [frequency]\n  er-reason-acuity:\n",
    )
    assert text.splitlines()[4] == text.splitlines()[7] == "  earlydx:"
    err = refused(write_study(tmp_path, text), capsys, monkeypatch)
    assert "duplicate key 'earlydx' (lines 5 and 8)" in err


def test_a_system_given_twice_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = STUDY + "  frequency: {kind: knn-bm25}\n"
    err = refused(write_study(tmp_path, text), capsys, monkeypatch)
    assert "duplicate key 'frequency' (lines 11 and 13)" in err


def test_a_repeated_key_inside_a_flow_mapping_on_one_line_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = STUDY.replace(
        "    systems: [frequency]\n", "    set: {seed: 1, seed: 2}\n    systems: [frequency]\n"
    )
    err = refused(write_study(tmp_path, text), capsys, monkeypatch)
    assert "duplicate key 'seed' (lines 7 and 7)" in err


def test_a_config_file_of_predict_refuses_them_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "systems.yaml"
    config.write_text("systems:\n  a: {kind: frequency}\n  a: {kind: tfidf}\n", encoding="utf-8")
    assert "duplicate key 'a' (lines 2 and 3)" in predict_refused(config, "a", capsys, monkeypatch)


def test_equal_keys_in_different_mappings_are_not_duplicates() -> None:
    data = load_yaml("a: {seed: 1}\nb: {seed: 2}\nc:\n  - {seed: 3}\n  - {seed: 4}\n", "f.yaml")
    assert data == {"a": {"seed": 1}, "b": {"seed": 2}, "c": [{"seed": 3}, {"seed": 4}]}
    with pytest.raises(UsageError, match=r"duplicate key 1 \(lines 1 and 2\)"):
        load_yaml("1: a\n1: b\n", "f.yaml")
