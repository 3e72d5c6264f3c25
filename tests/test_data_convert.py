"""``admitdx data convert``: a typed, subject-sorted, zstd Parquet copy that reads back like the original."""

from __future__ import annotations

import csv
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from admitdx.errors import InputError
from admitdx.runs import LOCK_FILE
from admitdx.sources.check import check_mimic
from admitdx.sources.convert import convert_mimic
from admitdx.sources.mimic import open_mimic
from data_roots import complete_tables, copy_tables, full_disk, run_cli, run_process
from earlydx_roots import HADM, SUBJECT, write_root


@pytest.fixture
def converted(converted_demo: Path) -> Path:
    """The session's converted demo (the CLI's convert is tested on other roots below)."""
    return converted_demo


def _counts(root: Path) -> dict[str, int]:
    report = check_mimic(root)
    assert report.ok, report.errors()
    return {t.qualified: t.rows for m in report.modules for t in m.tables if t.rows is not None}


def test_converted_copy_has_identical_row_counts(demo_dir: Path, converted: Path) -> None:
    original, copy = _counts(demo_dir), _counts(converted)
    assert copy == original
    assert copy["hosp.labevents"] == 107_727 and copy["ed.edstays"] == 222
    with open_mimic(converted) as src:
        assert all(tf.format == "parquet" for tf in src.tables.values())
        assert src.tables["ecg.record_list"].path == converted / "ecg" / "record_list.parquet"


def test_converted_rows_are_sorted_by_subject(converted: Path) -> None:
    with open_mimic(converted) as src:
        for table in ("hosp.labevents", "hosp.admissions", "ed.vitalsign", "ecg.record_list"):
            subjects = [r[0] for r in src.execute(f"SELECT subject_id FROM {table}").fetchall()]
            assert subjects == sorted(subjects), table
        # within a subject, the first time column is the second key
        times = src.execute(
            "SELECT charttime FROM hosp.labevents WHERE subject_id = 10000032 AND charttime IS NOT NULL"
        ).fetchall()
        assert times == sorted(times) and len(times) > 100


def test_converted_types_and_values_survive(demo_dir: Path, converted: Path) -> None:
    with open_mimic(converted) as src:
        stored = dict(src.columns["hosp.admissions"])
        assert stored["admittime"] == "TIMESTAMP" and stored["hadm_id"] == "INTEGER"
        assert dict(src.columns["hosp.diagnoses_icd"])["icd_code"] == "VARCHAR"
        codes = sorted(r[0] for r in src.execute("SELECT icd_code FROM hosp.diagnoses_icd").fetchall())
        codec = src.execute(
            f"SELECT DISTINCT compression FROM parquet_metadata('{converted / 'hosp' / 'labevents.parquet'}')"
        ).fetchall()
    with gzip.open(demo_dir / "hosp" / "diagnoses_icd.csv.gz", "rt", newline="") as f:
        raw = sorted(row["icd_code"] for row in csv.DictReader(f))
    assert codes == raw  # '0388' stays '0388'
    assert codec == [("ZSTD",)]


def test_rerun_skips_unchanged_tables(demo_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "mimic"
    (root / "ed").mkdir(parents=True)
    for table in ("edstays", "diagnosis"):
        (root / "ed" / f"{table}.csv.gz").symlink_to(demo_dir / "ed" / f"{table}.csv.gz")
    out = tmp_path / "parquet"
    first = convert_mimic(root, out)
    assert sorted((r.qualified, r.rows, r.skipped) for r in first) == [
        ("ed.diagnosis", 545, False),
        ("ed.edstays", 222, False),
    ]
    # a changed source (new modification time) is converted again; the other is kept
    link = root / "ed" / "edstays.csv.gz"
    link.unlink()
    with gzip.open(demo_dir / "ed" / "edstays.csv.gz", "rb") as f:
        lines = f.read().splitlines(keepends=True)
    with gzip.open(link, "wb") as f:
        f.writelines(lines[:11])  # header + 10 stays
    os.utime(link, ns=(1, 1))
    second = {r.qualified: (r.rows, r.skipped) for r in convert_mimic(root, out)}
    assert second == {"ed.edstays": (10, False), "ed.diagnosis": (545, True)}
    assert not list(out.rglob(".*.partial"))
    assert (out / "manifest.json").exists()


def test_unconvertible_value_stops_conversion_naming_the_cell(tmp_path: Path) -> None:
    (tmp_path / "mimic" / "ed").mkdir(parents=True)
    with gzip.open(tmp_path / "mimic" / "ed" / "edstays.csv.gz", "wt", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "subject_id",
                "hadm_id",
                "stay_id",
                "intime",
                "outtime",
                "gender",
                "race",
                "arrival_transport",
                "disposition",
            ]
        )
        w.writerow(
            [
                "10000001",
                "",
                "30000001",
                "2150-01-01 10:00:00",
                "2150-01-01 14:00:00",
                "F",
                "WHITE",
                "WALK IN",
                "HOME",
            ]
        )
        w.writerow(
            [
                "10000002",
                "",
                "30000002",
                "yesterday",
                "2150-01-02 14:00:00",
                "M",
                "WHITE",
                "AMBULANCE",
                "ADMITTED",
            ]
        )
    with pytest.raises(InputError) as err:
        convert_mimic(tmp_path / "mimic", tmp_path / "out")
    assert (err.value.table, err.value.column, err.value.row) == ("ed.edstays", "intime", 2)
    assert not list((tmp_path / "out").rglob("*.parquet*"))


# --- what a reader may trust: a finished conversion of exactly one root ------------------------


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))


def _convert(root: Path, out: Path, capsys, monkeypatch) -> tuple[int, str]:
    code, _, err = run_cli(["data", "convert", "--mimic", str(root), "--out", str(out)], capsys, monkeypatch)
    return code, " ".join(err.split())


def _build(root: Path, out: Path, capsys, monkeypatch) -> tuple[int, str]:
    code, _, err = run_cli(["build", "earlydx", "--mimic", str(root), "--out", str(out)], capsys, monkeypatch)
    return code, " ".join(err.split())


def test_converting_another_root_drops_the_first_roots_tables(tmp_path: Path, capsys, monkeypatch) -> None:
    """Root A has a radiology report, root B none. Converting B into A's folder used to keep A's
    note tables, and the build of the folder showed A's report in B's encounter."""
    tables = complete_tables()
    report = "CHEST X-RAY: right lower lobe consolidation."
    with_note = {
        **tables,
        "note.radiology": [
            {
                "note_id": "1-RR-1",
                "subject_id": SUBJECT,
                "hadm_id": HADM,
                "note_type": "RR",
                "note_seq": 1,
                "charttime": "2150-01-01 10:00:00",
                "storetime": "2150-01-01 10:30:00",
                "text": report,
            }
        ],
    }
    a, b = write_root(tmp_path / "a", with_note), write_root(tmp_path / "b", tables)
    out = tmp_path / "parquet"
    assert _convert(a, out, capsys, monkeypatch)[0] == 0
    assert _build(out, tmp_path / "built-a", capsys, monkeypatch)[0] == 0
    assert "consolidation" in (tmp_path / "built-a" / "instances.jsonl").read_text()
    assert _convert(b, out, capsys, monkeypatch)[0] == 0
    assert not (out / "note").exists()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["outputs"]["complete"] is True
    assert sorted(manifest["outputs"]["tables"]) == sorted(tables)
    assert manifest["inputs"]["root"] == str(b.resolve())
    assert _build(out, tmp_path / "built-b", capsys, monkeypatch)[0] == 0
    assert "consolidation" not in (tmp_path / "built-b" / "instances.jsonl").read_text()


def test_killed_convert_is_refused_then_resumed(demo_dir: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    """SIGKILL half-way through: the folder has some tables and a manifest saying complete: false;
    build refuses it by name, and the same convert command finishes it."""
    out = tmp_path / "parquet"
    cmd = [
        sys.executable,
        "-m",
        "admitdx.cli",
        "data",
        "convert",
        "--mimic",
        str(demo_dir),
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not list(out.glob("*/*.parquet")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL, "the conversion ended before it could be killed"
    written = len(list(out.glob("*/*.parquet")))
    assert 0 < written < 37
    assert json.loads((out / "manifest.json").read_text())["outputs"]["complete"] is False
    code, err = _build(out, tmp_path / "dataset", capsys, monkeypatch)
    assert code == 2
    assert f"{out} is an unfinished `admitdx data convert` ({written} of 37 tables written)" in err
    assert f"rerun `admitdx data convert --mimic {demo_dir.resolve()} --out {out}`" in err
    assert not (tmp_path / "dataset" / "instances.jsonl").exists()
    code, _, err = run_cli(
        ["data", "convert", "--mimic", str(demo_dir), "--out", str(out)], capsys, monkeypatch
    )
    assert code == 0, err
    assert err.count("unchanged, kept") == written
    with open_mimic(out) as src:
        assert src.execute("SELECT count(*) FROM hosp.labevents").fetchone() == (107_727,)


def test_altered_conversion_is_refused(converted: Path, tmp_path: Path) -> None:
    """A finished copy with a table added, removed or rewritten after the fact is not trusted."""
    copy = tmp_path / "copy"
    shutil.copytree(converted, copy)
    extra = copy / "hosp" / "my_cohort.parquet"
    shutil.copyfile(copy / "hosp" / "patients.parquet", extra)
    with pytest.raises(
        InputError, match=re.escape("1 table(s) its conversion manifest does not list, e.g. hosp.my_cohort")
    ):
        open_mimic(copy)
    extra.unlink()
    (copy / "ed" / "triage.parquet").unlink()
    with pytest.raises(InputError, match=re.escape("lacks 1 table(s) its conversion wrote, e.g. ed.triage")):
        open_mimic(copy)
    shutil.copyfile(converted / "ed" / "triage.parquet", copy / "ed" / "triage.parquet")
    shutil.copyfile(copy / "ed" / "diagnosis.parquet", copy / "ed" / "edstays.parquet")
    with pytest.raises(
        InputError, match=re.escape("edstays.parquet changed after the conversion wrote it")
    ) as err:
        open_mimic(copy)
    assert err.value.table == "ed.edstays"


def test_conversion_without_manifest_is_refused(converted: Path, tmp_path: Path) -> None:
    """An older admitdx wrote the manifest last: a folder killed before it has tables but no manifest."""
    copy = tmp_path / "copy"
    shutil.copytree(converted, copy)
    (copy / "manifest.json").unlink()
    with pytest.raises(
        InputError, match=re.escape("was written by `admitdx data convert` but has no manifest.json")
    ):
        open_mimic(copy)


def test_out_holding_other_files_is_refused(tmp_path: Path, capsys, monkeypatch) -> None:
    root = write_root(tmp_path / "mimic", complete_tables())
    out = tmp_path / "results"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    code, err = _convert(root, out, capsys, monkeypatch)
    assert code == 2
    assert (
        f"--out {out} holds files that `admitdx data convert` did not write (e.g. {out / 'notes.txt'})" in err
    )
    assert sorted(p.name for p in out.iterdir() if p.name != LOCK_FILE) == ["notes.txt"]  # nothing written
    assert (out / "notes.txt").read_text() == "mine"


def test_corrupt_gzip_is_named_as_such(demo_dir: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    """Bytes flipped inside triage's deflate stream used to read "value 'STA0' is not a valid
    DOUBLE"; the checksum is verified first, so the message names the real cause."""
    root = copy_tables(demo_dir, tmp_path / "mimic", ["ed.edstays", "ed.triage"])
    path = root / "ed" / "triage.csv.gz"
    data = bytearray(path.read_bytes())
    for i in range(3000, 3040):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))
    code, err = _convert(root, tmp_path / "out", capsys, monkeypatch)
    assert code == 2
    assert f"corrupt gzip file {path}" in err and "table ed.triage" in err
    assert "not a valid" not in err
    assert not list((tmp_path / "out").rglob("*.parquet"))


def test_full_disk(demo_dir: Path, tmp_path: Path) -> None:
    """A real small file system (tmpfs) too small for the output: convert and build stop with exit 2
    naming the disk, no traceback, and convert leaves no half-written table behind."""
    disk = tmp_path / "disk"
    leftovers = f'"$@"; rc=$?; find {disk} -name "*.partial" -printf "LEFT %p\\n"; exit $rc'
    for verb, size in ((["data", "convert"], "1m"), (["build", "earlydx"], "64k")):
        prefix = [*full_disk(disk, size), "sh", "-c", leftovers, "sh"]
        done = run_process([*verb, "--mimic", str(demo_dir), "--out", str(disk / verb[0])], prefix=prefix)
        assert done.returncode == 2, done.stderr
        err = " ".join(done.stderr.split())
        assert "no space left on" in err.lower() and "Traceback" not in err, err
        assert "free space on that disk" in err
        assert "LEFT" not in done.stdout
