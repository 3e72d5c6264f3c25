"""The synthetic root looks like MIMIC-IV: headers, validation, identifiers, timing, titles, conventions."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from admitdx.ontology import icd
from admitdx.sources.check import check_mimic
from admitdx.sources.mimic import open_mimic
from admitdx.synthetic.tables import FILES
from admitdx.synthetic.truth import read_note_sections, read_truth_meta


def _header(path: Path) -> str:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.readline().rstrip("\n")


def _demo_file(demo_dir: Path, rel: str) -> Path | None:
    for candidate in (demo_dir / rel, demo_dir / rel.removesuffix(".gz")):
        if candidate.exists():
            return candidate
    return None


def test_headers_equal_the_real_demo(synthetic_root: Path, demo_dir: Path) -> None:
    compared = []
    for rel in FILES.values():
        demo = _demo_file(demo_dir, rel)
        if demo is None:
            continue
        assert _header(synthetic_root / rel) == _header(demo), rel
        compared.append(rel)
    # hosp 8 + ed 6 + ecg/record_list + icu/icustays: every table the demo shares with us
    assert len(compared) == 16, compared


def test_data_check_accepts_every_module(synthetic_root: Path) -> None:
    report = check_mimic(synthetic_root)
    assert report.ok, report.errors()
    status = {m.module: m.status for m in report.modules}
    assert status == {
        "hosp": "present",
        "ed": "present",
        "note": "present",
        "ecg": "present",
        "echo": "present",
        "icu": "present",  # icustays only (CliniBench's icu module)
    }


def _one(con, sql: str):
    return con.execute(sql).fetchone()


def test_row_counts_match_meta(synthetic_root: Path) -> None:
    meta = read_truth_meta(synthetic_root)
    assert meta["patients"] == 300 and meta["seed"] == 7
    with open_mimic(synthetic_root) as src:
        for table, n in meta["rows"].items():
            if table.startswith("_"):
                continue
            assert _one(src.con, f"SELECT count(*) FROM {table}")[0] == n, table
        assert _one(src.con, "SELECT count(*) FROM hosp.patients")[0] == 300


def test_identifiers_have_mimic_ranges_and_formats(synthetic_root: Path) -> None:
    with open_mimic(synthetic_root) as src:
        con = src.con
        assert _one(
            con,
            "SELECT min(subject_id) >= 10000000 AND max(subject_id) < 20000000, "
            "count(DISTINCT subject_id) = count(*) FROM hosp.patients",
        ) == (True, True)
        assert _one(
            con,
            "SELECT min(hadm_id) >= 20000000 AND max(hadm_id) < 30000000, "
            "count(DISTINCT hadm_id) = count(*) FROM hosp.admissions",
        ) == (True, True)
        assert _one(
            con,
            "SELECT min(transfer_id) >= 30000000 AND max(transfer_id) < 40000000, "
            "count(DISTINCT transfer_id) = count(*) FROM hosp.transfers",
        ) == (True, True)
        # each ED stay_id is an 'ED' transfer_id with the stay's hadm_id (NULL if not admitted), as in MIMIC
        assert (
            _one(
                con,
                "SELECT count(*) FROM ed.edstays e LEFT JOIN hosp.transfers t "
                "ON t.transfer_id = e.stay_id AND t.eventtype = 'ED' "
                "AND t.hadm_id IS NOT DISTINCT FROM e.hadm_id WHERE t.transfer_id IS NULL",
            )[0]
            == 0
        )
        assert _one(con, "SELECT count(DISTINCT labevent_id) = count(*) FROM hosp.labevents")[0]
        note_ids = [
            r[0]
            for r in con.execute(
                "SELECT note_id FROM note.discharge UNION ALL SELECT note_id FROM note.radiology"
            ).fetchall()
        ]
        assert all(re.fullmatch(r"1\d{7}-(DS|RR)-\d+", n) for n in note_ids)
        assert len(set(note_ids)) == len(note_ids)
        paths = con.execute("SELECT subject_id, study_id, path FROM ecg.record_list").fetchall()
        assert paths and all(p == f"files/p{str(s)[:4]}/p{s}/s{st}/{st}" for s, st, p in paths)


def test_timing_relations(synthetic_root: Path) -> None:
    with open_mimic(synthetic_root) as src:
        con = src.con
        late, early = "storetime < charttime", "charttime < e.intime OR v.charttime > e.outtime"
        adm = "FROM ed.edstays e JOIN hosp.admissions a USING (hadm_id)"
        checks = {
            "lab storetime before charttime": f"SELECT count(*) FROM hosp.labevents WHERE {late}",
            "radiology storetime before charttime": f"SELECT count(*) FROM note.radiology WHERE {late}",
            "discharge note stored before discharge": "SELECT count(*) FROM note.discharge n "
            "JOIN hosp.admissions a USING (hadm_id) "
            "WHERE n.storetime < a.dischtime OR n.charttime <> date_trunc('day', a.dischtime)",
            "ED arrival not before admission": f"SELECT count(*) {adm} "
            "WHERE NOT (e.intime < a.admittime AND a.admittime < e.outtime)",
            "edregtime differs from ED arrival": f"SELECT count(*) {adm} "
            "WHERE a.edregtime <> e.intime OR a.edouttime <> e.outtime",
            "discharge before admission": "SELECT count(*) FROM hosp.admissions WHERE dischtime <= admittime",
            "overlapping admissions": "SELECT count(*) FROM (SELECT admittime, lag(dischtime) OVER "
            "(PARTITION BY subject_id ORDER BY admittime) AS prev FROM hosp.admissions) "
            "WHERE admittime <= prev",
            "overlapping ED stays": "SELECT count(*) FROM (SELECT intime, lag(outtime) OVER "
            "(PARTITION BY subject_id ORDER BY intime) AS prev FROM ed.edstays) WHERE intime <= prev",
            "vitals outside the stay": "SELECT count(*) FROM ed.vitalsign v "
            f"JOIN ed.edstays e USING (stay_id) WHERE v.{early}",
            "ED medications outside the stay": "SELECT count(*) FROM (SELECT stay_id, charttime "
            "FROM ed.pyxis UNION ALL SELECT stay_id, charttime FROM ed.medrecon) v "
            f"JOIN ed.edstays e USING (stay_id) WHERE v.{early}",
        }
        for name, sql in checks.items():
            assert _one(con, sql)[0] == 0, name
        # labs exist on both sides of t0, and most ED draws carry no hadm_id (as in real MIMIC-IV)
        before, after, ed_null = _one(
            con,
            """
            SELECT count(*) FILTER (l.charttime <= a.admittime), count(*) FILTER (l.charttime > a.admittime),
                   avg((l.hadm_id IS NULL)::INT) FILTER (l.charttime <= a.admittime)
            FROM hosp.labevents l JOIN ed.edstays e ON l.subject_id = e.subject_id
            JOIN hosp.admissions a ON a.hadm_id = e.hadm_id
            WHERE l.charttime BETWEEN e.intime AND a.dischtime""",
        )
        assert before > 1000 and after > 1000 and ed_null > 0.8


def test_icd_version_follows_the_real_year(synthetic_root: Path) -> None:
    """ICD-9 before October 2015 of the real calendar, ICD-10 after: read off the anchor year group."""
    with open_mimic(synthetic_root) as src:
        rows = src.con.execute("""
            SELECT p.anchor_year_group, avg((d.icd_version = 9)::INT) FROM ed.diagnosis d
            JOIN hosp.patients p USING (subject_id) GROUP BY 1""").fetchall()
    icd9_share = dict(rows)
    assert icd9_share["2008 - 2010"] > 0.9 and icd9_share["2011 - 2013"] > 0.6
    assert 0.05 < icd9_share["2014 - 2016"] < 0.8
    assert icd9_share["2017 - 2019"] == 0 and icd9_share["2020 - 2022"] == 0


def test_titles_come_from_the_dictionaries(synthetic_root: Path) -> None:
    with open_mimic(synthetic_root) as src:
        sql = "SELECT DISTINCT icd_code, icd_version, icd_title FROM ed.diagnosis"
        ed_rows = src.con.execute(sql).fetchall()
        dictionary = {
            (c, v): t
            for c, v, t in src.con.execute(
                "SELECT icd_code, icd_version, long_title FROM hosp.d_icd_diagnoses"
            ).fetchall()
        }
        billed = src.con.execute("SELECT DISTINCT icd_code, icd_version FROM hosp.diagnoses_icd").fetchall()
    for code, version, title in ed_rows:
        expected = icd.short_title(code, version).upper() if version == 9 else icd.title(code, version)
        assert title == expected, (code, version)
    for code, version in {(c, v) for c, v, _ in ed_rows} | set(billed):
        assert dictionary[(code, version)] == icd.title(code, version)
    titles = {t for _, _, t in ed_rows}
    assert any(t.endswith(" NOS") for t in titles)  # ICD-9 abbreviations such as "SEPTICEMIA NOS"
    codes = {c for c, _, _ in ed_rows}
    assert any(c.startswith("R") for c in codes) and any(c[0] in "VWXYZ" for c in codes)  # symptom, external
    assert any(c.startswith("E8") for c in codes) and any(c.startswith("V") for c in codes)  # ICD-9 E/V


def test_value_conventions(synthetic_root: Path) -> None:
    with open_mimic(synthetic_root) as src:
        con = src.con
        # urine dipstick results are text in `comments` with an empty value, as in the demo
        assert _one(
            con,
            "SELECT count(*) > 0 AND bool_and(value IS NULL AND comments IN "
            "('NEG.', 'SM.', 'MOD.', 'LG.')) FROM hosp.labevents WHERE itemid = 51486",
        )[0]
        assert _one(con, "SELECT bool_and(acuity BETWEEN 1 AND 5) FROM ed.triage")[0]
        assert _one(con, "SELECT count(DISTINCT arrival_transport) >= 3 FROM ed.edstays")[0]
        notes = dict(con.execute("SELECT hadm_id, text FROM note.discharge").fetchall())
    # every note has the template's sections in the template's order (schema notes §4.4), each
    # under the spelling _truth says it drew
    order = ("chief_complaint", "history_of_present_illness", "past_medical_history", "physical_exam",
             "physical_exam_discharge", "pertinent_results", "brief_hospital_course",
             "discharge_diagnosis", "discharge_condition")  # fmt: skip
    for rec in read_note_sections(synthetic_root):
        text, used = notes[rec["hadm_id"]], rec["headings"]
        positions = [text.index("\n" + used[name] + "\n") for name in order]
        assert positions == sorted(positions), rec["note_id"]
    with open_mimic(synthetic_root) as src:
        con = src.con
        report = _one(con, "SELECT text FROM note.radiology LIMIT 1")[0]
        assert report.startswith("EXAMINATION:") and "IMPRESSION:" in report


@pytest.mark.parametrize("rel", sorted(FILES.values()))
def test_every_file_is_valid_gzip(synthetic_root: Path, rel: str) -> None:
    with gzip.open(synthetic_root / rel, "rb") as f:
        assert f.read().count(b"\n") >= 1
