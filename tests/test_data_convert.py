"""``admitdx data convert``: a typed, subject-sorted, zstd Parquet copy that reads back like the original."""

from __future__ import annotations

import csv
import gzip
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.errors import InputError
from admitdx.sources.check import check_mimic
from admitdx.sources.convert import convert_mimic
from admitdx.sources.mimic import open_mimic


@pytest.fixture(scope="module")
def converted(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("parquet") / "mimic"
    result = CliRunner().invoke(app, ["data", "convert", "--mimic", str(demo_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


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
