"""``admitdx data check``: exact row counts on the real demo; exit 2 naming the culprit on bad input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from admitdx.sources.check import check_mimic
from admitdx.sources.mimic import open_mimic
from admitdx.sources.schema import SCHEMAS
from data_roots import rewrite_csv_gz, run_cli

# Row counts of the MIMIC-IV Clinical Database Demo 2.2 / MIMIC-IV-ED Demo 2.2 / ECG Demo 0.1
# (schema doc section 8, from mimic-code's validate.sql and PhysioNet's demo pages).
DEMO_ROWS = {
    "hosp.patients": 100,
    "hosp.admissions": 275,
    "hosp.transfers": 1190,
    "hosp.diagnoses_icd": 4506,
    "hosp.d_icd_diagnoses": 109_775,
    "hosp.labevents": 107_727,
    "hosp.d_labitems": 1622,
    "hosp.omr": 2964,
    "hosp.prescriptions": 18_087,
    "hosp.microbiologyevents": 2899,
    "ed.edstays": 222,
    "ed.triage": 222,
    "ed.vitalsign": 1038,
    "ed.medrecon": 2764,
    "ed.pyxis": 1082,
    "ed.diagnosis": 545,
    "ecg.record_list": 659,
}
REQUIRED = sorted(k for k, s in SCHEMAS.items() if s.required)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Verdicts (gzip CRC, clean scans) go to a folder of this test, not the user's cache."""
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))


def test_demo_check_reports_real_row_counts(demo_dir: Path) -> None:
    report = check_mimic(demo_dir)
    assert report.ok, report.errors()
    modules = {m.module: m for m in report.modules}
    assert {k: modules[k].status for k in ("hosp", "ed", "note", "ecg", "echo")} == {
        "hosp": "present",
        "ed": "present",
        "note": "absent",
        "ecg": "partial",
        "echo": "absent",
    }
    rows = {t.qualified: t.rows for m in report.modules for t in m.tables}
    assert {k: rows[k] for k in DEMO_ROWS} == DEMO_ROWS
    ecg = {t.table: t.status for t in modules["ecg"].tables}
    assert ecg == {"record_list": "found", "machine_measurements": "missing"}
    assert not [p for m in report.modules for t in m.tables for p in t.problems]  # not even warnings


def test_demo_check_cli_table_and_json(demo_dir: Path, capsys, monkeypatch) -> None:
    code, out, _ = run_cli(["data", "check", "--mimic", str(demo_dir)], capsys, monkeypatch)
    assert code == 0
    assert "107,727" in out and "ecg partial" in out and "note absent" in out
    code, out, _ = run_cli(["data", "check", "--mimic", str(demo_dir), "--json"], capsys, monkeypatch)
    assert code == 0
    data = json.loads(out)
    assert data["ok"] is True
    rows = {f"{t['module']}.{t['table']}": t["rows"] for m in data["modules"] for t in m["tables"]}
    assert rows["ed.edstays"] == 222 and rows["ed.diagnosis"] == 545 and rows["hosp.admissions"] == 275


@pytest.fixture
def small_root(demo_dir: Path, tmp_path: Path) -> Path:
    """A root with only the required hosp and ed tables, each a link to the demo's file."""
    root = tmp_path / "mimic"
    for key in REQUIRED:
        module, table = key.split(".")
        (root / module).mkdir(parents=True, exist_ok=True)
        (root / module / f"{table}.csv.gz").symlink_to(demo_dir / module / f"{table}.csv.gz")
    return root


def test_small_root_passes(small_root: Path, capsys, monkeypatch) -> None:
    code, out, _ = run_cli(["data", "check", "--mimic", str(small_root)], capsys, monkeypatch)
    assert code == 0 and "note absent" in out


def test_missing_required_table(small_root: Path, capsys, monkeypatch) -> None:
    (small_root / "ed" / "triage.csv.gz").unlink()
    code, _, err = run_cli(["data", "check", "--mimic", str(small_root)], capsys, monkeypatch)
    assert code == 2
    assert "required table ed.triage is missing" in err


def test_missing_required_module(small_root: Path, capsys, monkeypatch) -> None:
    for f in (small_root / "ed").iterdir():
        f.unlink()
    (small_root / "ed").rmdir()
    code, _, err = run_cli(["data", "check", "--mimic", str(small_root)], capsys, monkeypatch)
    assert code == 2 and "required module ed/ not found" in err


def test_missing_required_column(small_root: Path, capsys, monkeypatch) -> None:
    def drop_admittime(header, rows):
        i = header.index("admittime")
        return header[:i] + header[i + 1 :], [r[:i] + r[i + 1 :] for r in rows]

    rewrite_csv_gz(small_root / "hosp" / "admissions.csv.gz", drop_admittime)
    code, _, err = run_cli(["data", "check", "--mimic", str(small_root)], capsys, monkeypatch)
    assert code == 2
    assert "required column admittime is missing" in err and "table hosp.admissions" in err


def test_corrupt_gzip_truncated(small_root: Path, capsys, monkeypatch) -> None:
    path = small_root / "hosp" / "labevents.csv.gz"
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data[: len(data) // 2])  # a download cut off half-way
    code, _, err = run_cli(["data", "check", "--mimic", str(small_root)], capsys, monkeypatch)
    assert code == 2
    assert "corrupt gzip" in err and "hosp.labevents" in err


def test_corrupt_gzip_flipped_bytes(small_root: Path) -> None:
    """Damage inside the deflate stream: DuckDB sees garbled CSV; the CRC check names the real cause."""
    path = small_root / "hosp" / "admissions.csv.gz"
    data = bytearray(path.read_bytes())
    path.unlink()
    for i in range(3000, 3100):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))
    report = check_mimic(small_root)
    table = next(t for m in report.modules for t in m.tables if t.qualified == "hosp.admissions")
    assert table.status == "unreadable"
    assert [p.message.split(":")[0] for p in table.problems] == ["corrupt gzip file"]


def test_empty_file(small_root: Path, capsys, monkeypatch) -> None:
    path = small_root / "ed" / "diagnosis.csv.gz"
    path.unlink()
    path.write_bytes(b"")
    code, _, err = run_cli(["data", "check", "--mimic", str(small_root)], capsys, monkeypatch)
    assert code == 2
    assert "empty file" in err and "ed.diagnosis" in err


def test_header_only_required_table(small_root: Path) -> None:
    rewrite_csv_gz(small_root / "hosp" / "patients.csv.gz", lambda header, rows: (header, []))
    report = check_mimic(small_root)
    assert [(w, p.message) for w, p in report.errors()] == [
        ("hosp.patients", "hosp.patients has a header but no rows")
    ]


def test_not_a_mimic_root(tmp_path: Path, capsys, monkeypatch) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.csv").write_text("a,b\n1,2\n")
    code, _, err = run_cli(["data", "check", "--mimic", str(tmp_path)], capsys, monkeypatch)
    assert code == 2 and "is not a MIMIC-IV root" in err
    code, _, err = run_cli(["data", "check", "--mimic", str(tmp_path / "absent")], capsys, monkeypatch)
    assert code == 2 and "is not a directory" in err


def test_unconvertible_value_names_column_and_row(small_root: Path, capsys, monkeypatch) -> None:
    def bad_year(header, rows):
        rows[4][header.index("anchor_year")] = "21xx"
        return header, rows

    rewrite_csv_gz(small_root / "hosp" / "patients.csv.gz", bad_year)
    code, _, err = run_cli(["data", "check", "--mimic", str(small_root)], capsys, monkeypatch)
    assert code == 2
    assert "'21xx' is not a valid SMALLINT" in err
    assert "table hosp.patients, column anchor_year, row 5" in err


def test_null_key_reports_first_row(small_root: Path) -> None:
    def blank_stay_ids(header, rows):
        for i in (6, 40):
            rows[i][header.index("stay_id")] = ""
        return header, rows

    rewrite_csv_gz(small_root / "ed" / "edstays.csv.gz", blank_stay_ids)
    report = check_mimic(small_root)
    [(where, problem)] = report.errors()
    assert (where, problem.column, problem.row) == ("ed.edstays", "stay_id", 7)
    assert problem.message == "2 null value(s) in NOT NULL column stay_id (first at row 7)"


def test_extra_columns_and_tables_are_fine(small_root: Path) -> None:
    rewrite_csv_gz(
        small_root / "ed" / "triage.csv.gz", lambda h, rows: ([*h, "site_note"], [[*r, "x"] for r in rows])
    )
    (small_root / "hosp" / "my_cohort.csv").write_text("subject_id,flag\n10000032,1\n")
    report = check_mimic(small_root)
    assert report.ok
    tables = {t.qualified: t for m in report.modules for t in m.tables}
    assert tables["ed.triage"].columns == 12 and tables["ed.triage"].rows == 222
    assert tables["hosp.my_cohort"].documented is False and tables["hosp.my_cohort"].rows == 1


def test_synthetic_root_passes_with_mimic_columns(synthetic_root: Path, demo_dir: Path) -> None:
    """The generator's tables validate cleanly and share the demo's column names and order."""
    report = check_mimic(synthetic_root)
    assert report.ok, report.errors()
    warnings = [(t.qualified, p.message) for m in report.modules for t in m.tables for p in t.problems]
    assert warnings == []
    assert {m.module: m.status for m in report.modules if m.module != "icu"} == {
        "hosp": "present",
        "ed": "present",
        "note": "present",
        "ecg": "present",
        "echo": "present",
    }
    with open_mimic(synthetic_root) as synth, open_mimic(demo_dir) as demo:
        shared = sorted(set(synth.columns) & set(demo.columns))
        assert len(shared) >= 15  # 8 hosp + 6 ed + ecg.record_list
        for key in shared:
            assert synth.column_names(key) == demo.column_names(key), key


def test_ragged_csv_row(small_root: Path) -> None:
    path = small_root / "hosp" / "d_labitems.csv.gz"
    path.unlink()
    path.write_bytes(
        gzip.compress(b"itemid,label,fluid,category\n50912,Creatinine,Blood,Chemistry\n50971,Potassium\n")
    )
    report = check_mimic(small_root)
    [(where, problem)] = report.errors()
    assert where == "hosp.d_labitems"
    assert problem.message == "unreadable CSV at file line 3: expected 4 fields, found 2"
    assert problem.row == 2


# --------------------------------------------------------------------------- ER-Reason release


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from admitdx.synthetic.erreason import generate_release

    return generate_release(tmp_path_factory.mktemp("check-release") / "er-reason", encounters=80, seed=11)


def _copy_release(release: Path, dest: Path, edit=None) -> Path:  # type: ignore[no-untyped-def]
    """A copy of the release whose er_reason.csv rows (dicts) went through ``edit``."""
    import csv

    dest.mkdir()
    (dest / "icd_10_codes.csv").write_bytes((release / "icd_10_codes.csv").read_bytes())
    with (release / "er_reason.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    fields = edit(rows) if edit else list(rows[0])
    with (dest / "er_reason.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return dest


def test_release_check_reports_the_releases_counts(release: Path, capsys, monkeypatch) -> None:
    import csv

    with (release / "_truth" / "truth.csv").open(newline="") as f:
        truth = list(csv.DictReader(f))
    code, out, _ = run_cli(["data", "check", "--erreason", str(release), "--json"], capsys, monkeypatch)
    assert code == 0
    summary = json.loads(out)
    assert summary["encounters"] == 80 == len(truth)
    assert summary["full_rationales"] == sum(t["has_rationale"] == "1" for t in truth)
    levels = ("Immediate", "Emergent", "Urgent", "Less Urgent", "Non-Urgent")
    expected = {levels[i]: sum(int(t["esi"]) == i + 1 for t in truth) for i in range(5)}
    assert summary["acuitylevel"] == {k: v for k, v in expected.items() if v}
    assert sum(summary["eddisposition"].values()) == 80
    assert summary["encounters_with_codes"] == 80 and summary["code_rows"] >= 80
    code, out, _ = run_cli(["data", "check", "--erreason", str(release)], capsys, monkeypatch)
    assert code == 0 and "full rationales" in out and "ER-Reason release" in out


@pytest.mark.parametrize(
    ("column", "value", "row"), [("acuitylevel", "Less urgent", 7), ("eddisposition", "Home", 30)]
)
def test_release_bad_value_names_file_column_row(
    release: Path, tmp_path: Path, column: str, value: str, row: int, capsys, monkeypatch
) -> None:
    """'Less urgent' (lower-case u) is not a level: values are the data card's, exactly."""

    def spoil(rows: list[dict[str, str]]) -> list[str]:
        rows[row - 1][column] = value
        return list(rows[0])

    bad = _copy_release(release, tmp_path / "bad", spoil)
    code, _, err = run_cli(["data", "check", "--erreason", str(bad)], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in err
    assert f"{column} '{value}' is not one of" in err
    assert f"table {bad / 'er_reason.csv'}, column {column}, row {row}" in " ".join(err.split())


def test_release_missing_file_and_column(release: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    def drop(rows: list[dict[str, str]]) -> list[str]:
        for r in rows:
            del r["eddisposition"]
        return list(rows[0])

    bad = _copy_release(release, tmp_path / "no-column", drop)
    code, _, err = run_cli(["data", "check", "--erreason", str(bad)], capsys, monkeypatch)
    assert code == 2 and "er_reason.csv lacks the column(s) eddisposition" in err
    _copy_release(release, tmp_path / "no-codes").joinpath("icd_10_codes.csv").unlink()
    code, _, err = run_cli(["data", "check", "--erreason", str(tmp_path / "no-codes")], capsys, monkeypatch)
    assert code == 2 and "the ER-Reason release lacks icd_10_codes.csv" in err


def test_check_needs_exactly_one_source(release: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    code, _, err = run_cli(["data", "check"], capsys, monkeypatch)
    assert code == 2 and "give exactly one of --mimic ROOT or --erreason DIR" in err
    both = ["data", "check", "--mimic", str(tmp_path), "--erreason", str(release)]
    code, _, err = run_cli(both, capsys, monkeypatch)
    assert code == 2 and "give exactly one of" in err
