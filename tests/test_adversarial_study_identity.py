"""Issue 30, study folder identity: ``<out>/study.json`` records the study file (its path and SHA-256)
and its task runs. A different study whose runs would replace another's is refused before any work —
the first study's dataset is not rebuilt — naming the runs; ``--take-over`` hands the folder over.
The same file, edited, stays the folder's owner."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from data_roots import run_cli

STUDY = """\
out: out
data:
  mimic: {root}
tasks:
  er-reason-acuity:
    set: {{seed: {seed}}}
    systems: [majority]
"""


def dry_run(path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str):
    return run_cli(["study", str(path), "--dry-run", *args], capsys, monkeypatch)


def test_another_study_is_refused_before_it_rebuilds_the_first_ones_dataset(
    synthetic_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    first.write_text(STUDY.format(root=synthetic_root, seed=7), encoding="utf-8")
    second.write_text(STUDY.format(root=synthetic_root, seed=8), encoding="utf-8")
    code, _, err = dry_run(first, capsys, monkeypatch)
    assert code == 0, err
    record = json.loads((tmp_path / "out" / "study.json").read_text(encoding="utf-8"))
    assert record == {
        "study": str(first.resolve()),
        "sha256": hashlib.sha256(first.read_bytes()).hexdigest(),
        "runs": ["er-reason-acuity"],
    }
    manifest = tmp_path / "out" / "er-reason-acuity" / "dataset" / "manifest.json"
    built = (manifest.read_bytes(), manifest.stat().st_mtime_ns)

    code, _, err = dry_run(second, capsys, monkeypatch)
    joined = " ".join(err.split())
    assert code == 2 and "Traceback" not in err
    assert f"belongs to another study, {first.resolve()}" in joined
    assert "would replace its task run(s) er-reason-acuity and its leaderboard" in joined
    assert "--take-over" in joined
    assert (manifest.read_bytes(), manifest.stat().st_mtime_ns) == built  # not rebuilt, not touched

    code, _, err = dry_run(second, capsys, monkeypatch, "--take-over")
    assert code == 0, err
    record = json.loads((tmp_path / "out" / "study.json").read_text(encoding="utf-8"))
    assert record["study"] == str(second.resolve())
    assert json.loads(manifest.read_text(encoding="utf-8")) != json.loads(built[0])  # seed 8's build

    code, _, err = dry_run(first, capsys, monkeypatch)  # now the first is the stranger
    assert code == 2 and f"belongs to another study, {second.resolve()}" in " ".join(err.split())


def test_the_same_file_edited_keeps_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Identity is the file (or its bytes): an edit is not another study. Checked on the record alone:
    the edited study is refused later, at its (empty) data root, not as a stranger."""
    (tmp_path / "data").mkdir()
    path = tmp_path / "s.yaml"
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "study.json").write_text(
        json.dumps({"study": str(path.resolve()), "sha256": "0" * 64, "runs": ["er-reason-acuity"]}),
        encoding="utf-8",
    )
    path.write_text(STUDY.format(root="data", seed=9), encoding="utf-8")
    _, _, err = dry_run(path, capsys, monkeypatch)
    assert "another study" not in err
    record = json.loads((tmp_path / "out" / "study.json").read_text(encoding="utf-8"))
    assert record["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_unreadable_record_is_exit_2_with_the_way_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "study.json").write_text("[1, 2", encoding="utf-8")
    path = tmp_path / "s.yaml"
    path.write_text(STUDY.format(root="data", seed=9), encoding="utf-8")
    code, _, err = dry_run(path, capsys, monkeypatch)
    joined = " ".join(err.split())
    assert code == 2 and "Traceback" not in err
    assert "study.json cannot be read as a study folder's record" in joined and "--take-over" in joined
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["study.json"]
