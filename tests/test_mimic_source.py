"""The MIMIC-IV source layer: discovery of (nested) module folders and schema-typed DuckDB views."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import duckdb
import pytest

from admitdx.errors import InputError
from admitdx.sources.mimic import open_mimic
from admitdx.sources.schema import SCHEMAS


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Verdicts (gzip CRC, clean scans) go to a folder of this test, not the user's cache."""
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))


def _raw_column(path: Path, column: str) -> list[str]:
    with gzip.open(path, "rt", newline="") as f:
        return [row[column] for row in csv.DictReader(f)]


def _write_csv_gz(path: Path, header: list[str], rows: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def _column_types(source, schema: str, table: str) -> dict[str, str]:
    rows = source.con.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = ? AND table_name = ?",
        [schema, table],
    ).fetchall()
    return dict(rows)


def test_demo_views_have_documented_types(demo_dir: Path) -> None:
    with open_mimic(demo_dir) as src:
        assert {"hosp", "ed", "ecg", "icu"} == src.modules()
        assert src.has("hosp.admissions") and src.has("ed.diagnosis") and not src.has("note.discharge")
        adm = _column_types(src, "hosp", "admissions")
        assert list(adm) == [c.name for c in SCHEMAS["hosp.admissions"].columns]  # MIMIC's column order
        assert adm["admittime"] == "TIMESTAMP" and adm["subject_id"] == "INTEGER"
        assert adm["hospital_expire_flag"] == "SMALLINT"
        assert _column_types(src, "hosp", "patients")["dod"] == "DATE"
        assert _column_types(src, "hosp", "omr")["chartdate"] == "DATE"
        assert _column_types(src, "ed", "triage")["acuity"] == "DOUBLE"
        assert _column_types(src, "ed", "diagnosis")["icd_code"] == "VARCHAR"
        assert _column_types(src, "ed", "medrecon")["ndc"] == "VARCHAR"
        assert _column_types(src, "ecg", "record_list")["ecg_time"] == "TIMESTAMP"
        # A typed value, compared with the raw text of the first admission in the file.
        first = src.execute("SELECT hadm_id, admittime FROM hosp.admissions LIMIT 1").fetchone()
        raw_hadm = _raw_column(demo_dir / "hosp" / "admissions.csv.gz", "hadm_id")[0]
        raw_time = _raw_column(demo_dir / "hosp" / "admissions.csv.gz", "admittime")[0]
        assert first[0] == int(raw_hadm)
        assert first[1].strftime("%Y-%m-%d %H:%M:%S") == raw_time


def test_icd_codes_keep_leading_zeros(demo_dir: Path) -> None:
    raw = _raw_column(demo_dir / "hosp" / "diagnoses_icd.csv.gz", "icd_code")
    with open_mimic(demo_dir) as src:
        typed = [r[0] for r in src.execute("SELECT icd_code FROM hosp.diagnoses_icd").fetchall()]
        zero = src.execute("SELECT count(*) FROM hosp.d_icd_diagnoses WHERE icd_code = '0010'").fetchone()[0]
    assert sorted(typed) == sorted(raw)
    assert sum(c.startswith("0") for c in typed) == sum(c.startswith("0") for c in raw) > 0
    assert zero == 1  # ICD-9 001.0 cholera: '0010', not 10


def test_nested_versioned_layout_is_discovered(demo_dir: Path, tmp_path: Path) -> None:
    """PhysioNet's own folder names: mimic-iv/2.2/hosp, mimic-iv-ed-2.2/ed, ECG CSVs at the release top."""
    layout = {
        "physionet.org/files/mimic-iv/2.2/hosp/patients.csv.gz": "hosp/patients.csv.gz",
        "physionet.org/files/mimic-iv/2.2/hosp/admissions.csv.gz": "hosp/admissions.csv.gz",
        "physionet.org/files/mimic-iv-ed-2.2/ed/edstays.csv.gz": "ed/edstays.csv.gz",
        "physionet.org/files/mimic-iv-ecg-demo-0.1/record_list.csv": "ecg/record_list.csv",
    }
    for link, target in layout.items():
        (tmp_path / link).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / link).symlink_to(demo_dir / target)
    (tmp_path / "physionet.org/files/mimic-iv-ecg-demo-0.1/files/p1000").mkdir(parents=True)
    with open_mimic(tmp_path / "physionet.org") as src:
        assert sorted(src.tables) == ["ecg.record_list", "ed.edstays", "hosp.admissions", "hosp.patients"]
        counts = [src.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in sorted(src.tables)]
    assert counts == [659, 222, 275, 100]


def test_parquet_is_preferred_over_csv(tmp_path: Path) -> None:
    _write_csv_gz(
        tmp_path / "hosp" / "d_labitems.csv.gz",
        ["itemid", "label", "fluid", "category"],
        [["1", "from csv", "Blood", "Chemistry"]],
    )
    with open_mimic(tmp_path) as src:
        src.con.execute(
            f"COPY (SELECT 2 AS itemid, 'from parquet' AS label, 'Blood' AS fluid, 'Chemistry' AS category) "
            f"TO '{tmp_path / 'hosp' / 'd_labitems.parquet'}' (FORMAT parquet)"
        )
    with open_mimic(tmp_path) as src:
        assert src.tables["hosp.d_labitems"].format == "parquet"
        assert src.execute("SELECT itemid, label FROM hosp.d_labitems").fetchall() == [(2, "from parquet")]
        # itemid was written as a 32-bit INTEGER literal; the view keeps the documented type either way
        assert _column_types(src, "hosp", "d_labitems")["itemid"] == "INTEGER"


def test_unconvertible_value_names_table_column_and_row(tmp_path: Path) -> None:
    rows = [
        ["10000001", "F", "50", "2150", "2011 - 2013", ""],
        ["10000002", "M", "61", "2151", "2011 - 2013", ""],
        ["10000003", "M", "70", "twenty", "2014 - 2016", ""],
    ]
    _write_csv_gz(
        tmp_path / "hosp" / "patients.csv.gz",
        ["subject_id", "gender", "anchor_age", "anchor_year", "anchor_year_group", "dod"],
        rows,
    )
    with open_mimic(tmp_path) as src, pytest.raises(InputError) as err:
        src.execute("SELECT max(anchor_year) FROM hosp.patients")
    assert (err.value.table, err.value.column, err.value.row) == ("hosp.patients", "anchor_year", 3)
    assert "'twenty' is not a valid SMALLINT" in str(err.value)


def test_unreadable_table_strict_and_lenient(tmp_path: Path) -> None:
    _write_csv_gz(tmp_path / "ed" / "edstays.csv.gz", ["subject_id", "stay_id"], [["1", "2"]])
    (tmp_path / "ed" / "triage.csv.gz").write_bytes(b"")
    with pytest.raises(InputError, match="empty file") as err:
        open_mimic(tmp_path)
    assert err.value.table == "ed.triage"
    with open_mimic(tmp_path, strict=False) as src:
        assert src.has("ed.edstays") and not src.has("ed.triage")
        assert "empty file" in src.unreadable["ed.triage"].message


def test_folder_without_modules_is_not_a_root(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "patients.csv").write_text("subject_id\n1\n")
    with pytest.raises(InputError, match="not a MIMIC-IV root"):
        open_mimic(tmp_path)
    with pytest.raises(InputError, match="not a directory"):
        open_mimic(tmp_path / "nope")


def test_echo_release_files_are_typed(tmp_path: Path) -> None:
    """MIMIC-IV-ECHO puts hyphenated CSVs at its release top; views are named with underscores."""
    echo = tmp_path / "mimic-iv-echo-0.1"
    echo.mkdir()
    (echo / "echo-record-list.csv").write_text(
        "subject_id,study_id,acquisition_datetime,dicom_filepath\n"
        "10002221,94106955,2204-12-01 12:57:24,files/p10/p10002221/s94106955/94106955_0001.dcm\n"
    )
    _write_csv_gz(
        echo / "structured-measurements.csv.gz",
        ["subject_id", "measurement_datetime", "measurement", "result", "unit"],
        [["10002221", "2204-12-01 13:10:00", "LVEF", "35", "%"]],
    )
    with open_mimic(tmp_path) as src:
        assert sorted(src.tables) == ["echo.echo_record_list", "echo.structured_measurements"]
        assert _column_types(src, "echo", "echo_record_list")["acquisition_datetime"] == "TIMESTAMP"
        assert _column_types(src, "echo", "structured_measurements")["measurement_datetime"] == "TIMESTAMP"
        assert src.execute("SELECT result FROM echo.structured_measurements").fetchall() == [("35",)]


def test_glob_characters_in_a_parquet_root_are_literal(tmp_path: Path) -> None:
    """Parquet footers and reads name the file literally: ``pq*[1]`` must not read its sibling
    ``pqx1``, which the same string matches as a glob pattern."""
    con = duckdb.connect()
    for name, label in (("pqx1", "decoy"), ("pq*[1]", "wanted")):
        (tmp_path / name / "hosp").mkdir(parents=True)
        con.execute(
            f"COPY (SELECT 1 AS itemid, '{label}' AS label, 'Blood' AS fluid, 'Chemistry' AS category) "
            f"TO '{tmp_path / name / 'hosp' / 'd_labitems.parquet'}' (FORMAT parquet)"
        )
    con.close()
    with open_mimic(tmp_path / "pq*[1]") as src:
        assert src.execute("SELECT label FROM hosp.d_labitems").fetchall() == [("wanted",)]
        assert src.tables["hosp.d_labitems"].relative == "hosp/d_labitems.parquet"


def test_a_task_names_every_table_it_lacks(tmp_path: Path) -> None:
    _write_csv_gz(
        tmp_path / "hosp" / "d_labitems.csv.gz",
        ["itemid", "label", "fluid", "category"],
        [["1", "Sodium", "Blood", "Chemistry"]],
    )
    with open_mimic(tmp_path) as src:
        src.require(("hosp.d_labitems",), "a lab task")  # present: nothing to say
        with pytest.raises(InputError) as e:
            src.require(("ed.edstays", "hosp.d_labitems", "ed.triage"), "the ER-Reason tasks")
    message = str(e.value).splitlines()[0]
    assert message.endswith("lacks table(s) needed by the ER-Reason tasks: ed.edstays, ed.triage")
    assert "admitdx data check --mimic" in (e.value.hint or "")
