"""Every verb that reads a root refuses what ``data check`` rejects, before it uses the data.

Roots are the hand-written one-stay root of ``earlydx_roots``, completed with a row in every table
``data check`` requires (so check passes it and a build takes a second), with one defect each. Every
case goes through the real entry point and must exit 2 naming the table (and column and row where
there is one), where before the fix ``build`` / ``convert`` exited 0 or showed a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from admitdx.runs import sha256_file
from admitdx.sources import integrity
from data_roots import complete_tables, flip_bit, gzip_stored, pad_triage, run_cli, run_process, unprivileged
from earlydx_roots import STAY, SUBJECT, base_tables, write_root


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))


def _root(tmp_path: Path, name: str = "mimic", **changes: Any) -> Path:
    tables = complete_tables()
    for key, rows in changes.items():
        tables[key.replace("__", ".")] = rows
    return write_root(tmp_path / name, tables)


def _verbs(root: Path, tmp_path: Path) -> list[list[str]]:
    return [
        ["data", "check", "--mimic", str(root)],
        ["data", "convert", "--mimic", str(root), "--out", str(tmp_path / "parquet")],
        ["build", "earlydx", "--mimic", str(root), "--out", str(tmp_path / "dataset")],
    ]


def _all_refuse(root: Path, tmp_path: Path, capsys, monkeypatch, *expected: str) -> None:
    for args in _verbs(root, tmp_path):
        code, _, err = run_cli(args, capsys, monkeypatch)
        err = " ".join(err.split())  # the console folds long messages
        assert code == 2, (args[:2], err)
        for text in expected:
            assert text in err, (args[:2], text, err)
    assert not (tmp_path / "dataset" / "instances.jsonl").exists()
    assert not list((tmp_path / "parquet").rglob("*.parquet"))


def test_clean_tiny_root_passes_every_verb(tmp_path: Path, capsys, monkeypatch) -> None:
    root = _root(tmp_path)
    for args in _verbs(root, tmp_path):
        code, _, err = run_cli(args, capsys, monkeypatch)
        assert code == 0, (args[:2], err)
    (line,) = (tmp_path / "dataset" / "instances.jsonl").read_text().splitlines()
    assert json.loads(line)["stay_id"] == STAY


def test_header_only_edstays(tmp_path: Path, capsys, monkeypatch) -> None:
    root = _root(tmp_path, ed__edstays=[])
    _all_refuse(root, tmp_path, capsys, monkeypatch, "ed.edstays has a header but no rows")


def test_null_stay_id(tmp_path: Path, capsys, monkeypatch) -> None:
    stays = complete_tables()["ed.edstays"]
    second = {**stays[0], "stay_id": None, "hadm_id": None}
    root = _root(tmp_path, ed__edstays=[stays[0], second])
    _all_refuse(
        root,
        tmp_path,
        capsys,
        monkeypatch,
        "1 null value(s) in NOT NULL column stay_id (first at row 2)",
        "table ed.edstays, column stay_id, row 2",
    )


def test_outtime_before_intime(tmp_path: Path, capsys, monkeypatch) -> None:
    (stay,) = base_tables()["ed.edstays"]
    root = _root(tmp_path, ed__edstays=[{**stay, "outtime": "2150-01-01 07:00:00"}])
    _all_refuse(
        root,
        tmp_path,
        capsys,
        monkeypatch,
        "1 row(s) with outtime before intime (first at row 1)",
        "table ed.edstays, column outtime, row 1",
    )


def test_negative_anchor_age(tmp_path: Path, capsys, monkeypatch) -> None:
    (patient,) = base_tables()["hosp.patients"]
    root = _root(tmp_path, hosp__patients=[{**patient, "anchor_age": -39}])
    _all_refuse(
        root,
        tmp_path,
        capsys,
        monkeypatch,
        "negative anchor_age",
        "table hosp.patients, column anchor_age, row 1",
    )


def test_admission_before_birth(tmp_path: Path, capsys, monkeypatch) -> None:
    """anchor_age 20 in anchor_year 2210: an admission in 2150 would be rendered as "-40 yo"."""
    (patient,) = base_tables()["hosp.patients"]
    root = _root(tmp_path, hosp__patients=[{**patient, "anchor_age": 20, "anchor_year": 2210}])
    for args in _verbs(root, tmp_path)[::2]:  # check and build (convert copies tables one by one)
        code, _, err = run_cli(args, capsys, monkeypatch)
        err = " ".join(err.split())
        assert code == 2, err
        assert "admitted before the patient was born" in err
        assert "table hosp.admissions, column admittime, row 1" in err


def test_build_without_icd_dictionary(tmp_path: Path, capsys, monkeypatch) -> None:
    root = _root(tmp_path)
    (root / "hosp" / "d_icd_diagnoses.csv").unlink()
    code, _, err = run_cli(_verbs(root, tmp_path)[2], capsys, monkeypatch)
    assert code == 2
    assert "lacks hosp.d_icd_diagnoses" in err and "table hosp.d_icd_diagnoses" in err


def test_missing_required_column_in_build(tmp_path: Path, capsys, monkeypatch) -> None:
    """Was a DuckDB BinderException traceback."""
    root = _root(tmp_path)
    path = root / "ed" / "edstays.csv"
    lines = [line.rsplit(",", 1)[0] for line in path.read_text().splitlines()]  # drop disposition
    path.write_text("\n".join(lines) + "\n")
    _all_refuse(
        root, tmp_path, capsys, monkeypatch, "required column disposition is missing", "table ed.edstays"
    )


def test_duplicated_header_column(tmp_path: Path, capsys, monkeypatch) -> None:
    root = _root(tmp_path)
    path = root / "ed" / "triage.csv"
    header, *rows = path.read_text().splitlines()
    path.write_text("\n".join([header + ",Pain", *(r + ",7" for r in rows)]) + "\n")
    _all_refuse(
        root,
        tmp_path,
        capsys,
        monkeypatch,
        "column pain appears 2 times in the header (columns 9, 12)",
        "table ed.triage, column pain",
    )


def test_flipped_bit_that_still_parses(tmp_path: Path, capsys, monkeypatch) -> None:
    """One bit of a chief complaint flipped inside a .csv.gz: the CSV parses ("Cough, fevdr"), only
    the gzip CRC shows the damage. check, convert and build all refuse it."""
    root = _root(tmp_path)
    triage = gzip_stored(root / "ed" / "triage.csv")
    flip_bit(triage, b"fever")
    _all_refuse(
        root, tmp_path, capsys, monkeypatch, "corrupt gzip file", "CRC check failed", "table ed.triage"
    )


def test_crc_verdict_is_remembered_and_follows_the_file(tmp_path: Path, capsys, monkeypatch) -> None:
    """A clean file is decompressed once; the next build trusts the remembered verdict. Damage
    that keeps the modification time still changes the inode's ctime, so it is verified again."""
    root = _root(tmp_path)
    pad_triage(root)
    triage = gzip_stored(root / "ed" / "triage.csv")
    assert triage.stat().st_size > integrity.MIN_REMEMBERED_BYTES
    calls: list[Path] = []
    real = integrity.gzip_damage
    monkeypatch.setattr(integrity, "gzip_damage", lambda p: calls.append(p) or real(p))
    build = ["build", "earlydx", "--mimic", str(root), "--out", str(tmp_path / "dataset"), "--force"]
    assert run_cli(build, capsys, monkeypatch)[0] == 0
    assert calls == [triage.resolve()]
    assert run_cli(build, capsys, monkeypatch)[0] == 0
    assert calls == [triage.resolve()]  # remembered: not decompressed again
    flip_bit(triage, b"fever")
    code, _, err = run_cli(build, capsys, monkeypatch)
    assert code == 2 and "corrupt gzip file" in err
    assert len(calls) == 2


def test_glob_characters_are_read_literally(tmp_path: Path, capsys, monkeypatch) -> None:
    """``--mimic 'data[12]'`` next to ``data1``: DuckDB globbing used to build data1's stays."""
    root = _root(tmp_path, "data[12]")
    decoy = complete_tables()
    decoy["ed.triage"][0]["chiefcomplaint"] = "Read from the wrong folder"
    write_root(tmp_path / "data1", decoy)
    out = tmp_path / "out[1]"
    code, _, err = run_cli(["build", "earlydx", "--mimic", str(root), "--out", str(out)], capsys, monkeypatch)
    assert code == 0, err
    (line,) = (out / "instances.jsonl").read_text().splitlines()
    text = json.loads(line)["text"]
    assert "Cough, fever" in text and "wrong folder" not in text
    fingerprints = json.loads((out / "manifest.json").read_text())["inputs"]["source_files"]
    unread = {"ed/pyxis.csv", "hosp/transfers.csv"}  # tables EarlyDx does not read are not inputs
    assert fingerprints == {
        str(p.relative_to(root)): {"size": p.stat().st_size, "sha256": sha256_file(p), "method": "full"}
        for p in sorted(root.rglob("*.csv"))
        if str(p.relative_to(root)) not in unread
    }
    code, out_text, _ = run_cli(["data", "check", "--mimic", str(root), "--json"], capsys, monkeypatch)
    rows = {
        f"{t['module']}.{t['table']}": t["rows"] for m in json.loads(out_text)["modules"] for t in m["tables"]
    }
    assert rows["ed.triage"] == 1 and rows["ed.diagnosis"] == 2


def test_symlinked_module_folders(tmp_path: Path, capsys, monkeypatch) -> None:
    """A root whose hosp/ and ed/ are links to folders elsewhere builds, and its manifest names
    the files as laid out under the root (was a ValueError traceback from relative_to)."""
    elsewhere = _root(tmp_path, "store")
    root = tmp_path / "mimic"
    root.mkdir()
    for module in ("hosp", "ed"):
        (root / module).symlink_to(elsewhere / module, target_is_directory=True)
    out = tmp_path / "dataset"
    code, _, err = run_cli(["build", "earlydx", "--mimic", str(root), "--out", str(out)], capsys, monkeypatch)
    assert code == 0, err
    files = json.loads((out / "manifest.json").read_text())["inputs"]["source_files"]
    assert "ed/edstays.csv" in files and "hosp/patients.csv" in files
    assert files["ed/triage.csv"]["sha256"] == sha256_file(elsewhere / "ed" / "triage.csv")


def test_permission_denied_is_not_corrupt_gzip(tmp_path: Path) -> None:
    root = _root(tmp_path)
    triage = gzip_stored(root / "ed" / "triage.csv")
    triage.chmod(0)
    for args in (["data", "check", "--mimic", str(root)], _verbs(root, tmp_path)[2]):
        done = run_process(args, prefix=unprivileged())
        assert done.returncode == 2, done.stderr
        assert f"cannot read {triage}: permission denied" in done.stderr
        assert "corrupt" not in done.stderr and "Traceback" not in done.stderr


def test_unreadable_module_folder(tmp_path: Path) -> None:
    root = _root(tmp_path)
    (root / "ed").chmod(0)
    try:
        for args in _verbs(root, tmp_path):
            done = run_process(args, prefix=unprivileged())
            assert done.returncode == 2, done.stderr
            assert f"cannot list {root / 'ed'}: permission denied" in done.stderr, done.stderr
            assert "Traceback" not in done.stderr
    finally:
        (root / "ed").chmod(0o755)


def test_unwritable_out(tmp_path: Path) -> None:
    root = _root(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    for verb, name in ((["data", "convert"], "parquet"), (["build", "earlydx"], "dataset")):
        done = run_process([*verb, "--mimic", str(root), "--out", str(locked / name)], prefix=unprivileged())
        assert done.returncode == 2, done.stderr
        assert f"cannot write {locked / name}: permission denied" in done.stderr
        assert "Traceback" not in done.stderr
    assert list(locked.iterdir()) == []


def test_subject_rows_survive_in_parquet_copy(tmp_path: Path, capsys, monkeypatch) -> None:
    """The gate runs on the converted copy too: a build of the copy equals a build of the CSV root."""
    root = _root(tmp_path)
    parquet, a, b = tmp_path / "parquet", tmp_path / "a", tmp_path / "b"
    assert (
        run_cli(["data", "convert", "--mimic", str(root), "--out", str(parquet)], capsys, monkeypatch)[0] == 0
    )
    for src, out in ((root, a), (parquet, b)):
        assert (
            run_cli(["build", "earlydx", "--mimic", str(src), "--out", str(out)], capsys, monkeypatch)[0] == 0
        )
    first, second = (json.loads((d / "instances.jsonl").read_text()) for d in (a, b))
    assert first["text"] == second["text"] and first["subject_id"] == SUBJECT


def test_check_remembers_clean_files_for_the_build(tmp_path: Path, capsys, monkeypatch) -> None:
    """``data check`` verifies every gzip afresh and records the clean ones; the build that follows
    decompresses the large one (triage) not again, and the small ones (milliseconds) again."""
    root = _root(tmp_path)
    pad_triage(root)
    for table in ("edstays", "triage", "diagnosis"):
        gzip_stored(root / "ed" / f"{table}.csv")
    calls: list[Path] = []
    real = integrity.gzip_damage
    monkeypatch.setattr(integrity, "gzip_damage", lambda p: calls.append(p) or real(p))
    check = ["data", "check", "--mimic", str(root)]
    assert run_cli(check, capsys, monkeypatch)[0] == 0
    assert sorted(p.name for p in calls) == ["diagnosis.csv.gz", "edstays.csv.gz", "triage.csv.gz"]
    assert run_cli(check, capsys, monkeypatch)[0] == 0
    assert len(calls) == 6  # check never trusts a remembered verdict
    assert run_cli(_verbs(root, tmp_path)[2], capsys, monkeypatch)[0] == 0
    assert sorted(p.name for p in calls[6:]) == ["diagnosis.csv.gz", "edstays.csv.gz"]  # not triage


def test_unreadable_folder_that_is_no_module_is_passed_over(tmp_path: Path) -> None:
    """A root on a disk of its own has a root-only lost+found; it must not make the root unusable."""
    root = _root(tmp_path)
    (root / "lost+found").mkdir(mode=0)
    try:
        done = run_process(["data", "check", "--mimic", str(root)], prefix=unprivileged())
    finally:
        (root / "lost+found").chmod(0o755)
    assert done.returncode == 0, done.stderr


def test_unusable_cache_costs_time_not_results(tmp_path: Path, capsys, monkeypatch, caplog) -> None:
    """A cache folder that cannot be written (here: a file in its place) only means verifying again."""
    root = _root(tmp_path)
    pad_triage(root)
    gzip_stored(root / "ed" / "triage.csv")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(blocker))
    code, _, err = run_cli(_verbs(root, tmp_path)[2], capsys, monkeypatch)
    assert code == 0, err
    assert "cannot remember the verdict on" in caplog.text  # a warning on stderr outside pytest
    assert json.loads((tmp_path / "dataset" / "instances.jsonl").read_text())["stay_id"] == STAY
