"""Writes ``earlydx_authors_demo.json``: what the authors' public EarlyDx builder (their ``build_planA.py``
and ``keep_label`` at head b79ac61, read, not run or copied) gives on the real MIMIC-IV demo.

This is the expected side of ``tests/test_earlydx_reproduction.py`` and is deliberately written
apart from admitdx's builder: plain DuckDB over the demo's CSV files, with the public code's rules
restated here —

* cohort: ED stays whose hadm_id is an admission; t0 = admittime; W = 0;
* labels: the stay's ED diagnosis rows by seq_num; dropped when the code is ICD-10 R/V/W/X/Y/Z,
  ICD-9 E/V or 780-799, when the title is empty, or when the lower-cased title matches one of their
  seven "vague" searches; de-duplicated case-insensitively, first kept; an encounter without a label
  is not in the dataset;
* section presence, as their serializer decides it: a triage row (chief complaint when its text is
  not empty); any vitalsign row charted by t0; any medrecon row with a name (no time filter); an OMR
  blood pressure, weight, height or BMI dated on or before t0; a creatinine or haemoglobin charted
  before t0; a lab row of the admission's hadm_id charted by t0; a kept dictionary title billed in an
  earlier admission; a kept ED title of an earlier ED stay.

Run ``python tests/data/earlydx_authors_demo.py DEMO_DIR`` to rewrite the file.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import duckdb

VAGUE = [
    re.compile(r"\bcirculatory disease"),
    re.compile(r"disease of (the )?[\w ]+?(tract|system|organ)s?,? unspecified"),
    re.compile(r"\bunspecified disease\b"),
    re.compile(r"ill[- ]defined"),
    re.compile(r"other and unspecified disorders? of"),
    re.compile(r"disorder of [\w ]+?(system|tract), unspecified"),
    re.compile(r"\b(condition|dis|disorder|disease)s?,? (nec|nos)\b"),
]


def kept(code: str, version: int, title: str | None) -> bool:
    code = code.strip().upper()
    if not code or not (title or "").strip():
        return False
    if version == 10 and code[0] in "RVWXYZ":
        return False
    if version == 9 and (code[0] in "EV" or (code[:3].isdigit() and 780 <= int(code[:3]) <= 799)):
        return False
    return not any(p.search(str(title).lower()) for p in VAGUE)


def main(demo: Path) -> dict[str, dict[str, object]]:
    con = duckdb.connect()

    def view(name: str, path: str) -> None:
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_csv_auto('{demo / path}', all_varchar=true)")

    for name, path in {
        "edstays": "ed/edstays.csv.gz",
        "eddx": "ed/diagnosis.csv.gz",
        "triage": "ed/triage.csv.gz",
        "vitals": "ed/vitalsign.csv.gz",
        "medrecon": "ed/medrecon.csv.gz",
        "adm": "hosp/admissions.csv.gz",
        "omr": "hosp/omr.csv.gz",
        "labs": "hosp/labevents.csv.gz",
        "dx": "hosp/diagnoses_icd.csv.gz",
        "dicd": "hosp/d_icd_diagnoses.csv.gz",
    }.items():
        view(name, path)
    cohort = con.execute(
        """SELECT e.stay_id::BIGINT, e.subject_id::BIGINT, e.hadm_id::BIGINT, e.intime::TIMESTAMP,
                  a.admittime::TIMESTAMP
           FROM edstays e JOIN adm a ON a.hadm_id = e.hadm_id ORDER BY 1"""
    ).fetchall()
    out: dict[str, dict[str, object]] = {}
    for stay, subject, hadm, intime, t0 in cohort:
        rows = con.execute(
            "SELECT icd_code, icd_version::INT, icd_title FROM eddx WHERE stay_id::BIGINT = ? "
            "ORDER BY seq_num::INT",
            [stay],
        ).fetchall()
        labels: list[str] = []
        for code, version, title in rows:
            if kept(code, version, title) and title.strip().casefold() not in {x.casefold() for x in labels}:
                labels.append(title.strip())
        if not labels:
            continue

        def any_row(sql: str, *args: object) -> bool:
            return con.execute(f"SELECT count(*) FROM ({sql})", list(args)).fetchone()[0] > 0

        prior_titles = con.execute(
            """SELECT dx.icd_code, dx.icd_version::INT, d.long_title FROM dx
               JOIN adm a ON a.hadm_id = dx.hadm_id
               JOIN dicd d ON d.icd_code = dx.icd_code AND d.icd_version = dx.icd_version
               WHERE dx.subject_id::BIGINT = ? AND a.admittime::TIMESTAMP < ?""",
            [subject, t0],
        ).fetchall()
        prior_ed = con.execute(
            """SELECT d.icd_code, d.icd_version::INT, d.icd_title FROM eddx d
               JOIN edstays s ON s.stay_id = d.stay_id
               WHERE s.subject_id::BIGINT = ? AND s.intime::TIMESTAMP < ? AND s.stay_id::BIGINT <> ?""",
            [subject, intime, stay],
        ).fetchall()
        present = {
            "chief_complaint": any_row(
                "SELECT 1 FROM triage WHERE stay_id::BIGINT = ? AND coalesce(chiefcomplaint, '') <> ''", stay
            ),
            "triage": any_row("SELECT 1 FROM triage WHERE stay_id::BIGINT = ?", stay),
            "ed_vitals": any_row(
                "SELECT 1 FROM vitals WHERE stay_id::BIGINT = ? AND charttime::TIMESTAMP <= ?", stay, t0
            ),
            "home_meds": any_row(
                "SELECT 1 FROM medrecon WHERE stay_id::BIGINT = ? AND name IS NOT NULL", stay
            ),
            "omr": any_row(
                """SELECT 1 FROM omr WHERE subject_id::BIGINT = ? AND chartdate::DATE <= ?
                   AND result_name IN ('Blood Pressure', 'Weight (Lbs)', 'Weight', 'Height (Inches)',
                                       'Height', 'BMI (kg/m2)', 'BMI')""",
                subject,
                t0,
            ),
            "baseline_labs": any_row(
                """SELECT 1 FROM labs WHERE subject_id::BIGINT = ? AND itemid IN ('50912', '51222')
                   AND valuenum IS NOT NULL AND charttime::TIMESTAMP < ?""",
                subject,
                t0,
            ),
            "labs": any_row(
                "SELECT 1 FROM labs WHERE hadm_id::BIGINT = ? AND charttime::TIMESTAMP <= ?", hadm, t0
            ),
            "prior_dx": any(kept(c, v, t) for c, v, t in prior_titles),
            "prior_ed_dx": any(kept(c, v, t) for c, v, t in prior_ed),
        }
        out[str(stay)] = {"labels": labels, "present": sorted(k for k, v in present.items() if v)}
    return out


if __name__ == "__main__":
    target = Path(__file__).with_name("earlydx_authors_demo.json")
    target.write_text(json.dumps(main(Path(sys.argv[1])), indent=1, sort_keys=True) + "\n", encoding="utf-8")
