"""Hand-written tiny MIMIC-IV roots for the EarlyDx builder's temporal-rule tests.

One patient (10000001) with one admitted ED visit: ED arrival 2150-01-01 08:00, admission (t0)
12:00. Tests add rows to the tables they exercise. Columns follow the documented schema, so the
files pass the same views the real data goes through.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from admitdx.sources.schema import schema_for
from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx

SUBJECT, HADM, STAY = 10000001, 20000001, 30000001
ED_IN, T0 = "2150-01-01 08:00:00", "2150-01-01 12:00:00"


def base_tables() -> dict[str, list[dict[str, Any]]]:
    return {
        "hosp.patients": [
            {
                "subject_id": SUBJECT,
                "gender": "F",
                "anchor_age": 60,
                "anchor_year": 2148,
                "anchor_year_group": "2014 - 2016",
            }
        ],
        "hosp.admissions": [
            {
                "subject_id": SUBJECT,
                "hadm_id": HADM,
                "admittime": T0,
                "dischtime": "2150-01-05 10:00:00",
                "admission_type": "EW EMER.",
                "admission_location": "EMERGENCY ROOM",
                "insurance": "Medicare",
                "language": "ENGLISH",
                "race": "WHITE",
                "edregtime": ED_IN,
                "edouttime": "2150-01-01 13:00:00",
                "hospital_expire_flag": 0,
            }
        ],
        "hosp.d_labitems": [
            {"itemid": 50912, "label": "Creatinine", "fluid": "Blood", "category": "Chemistry"},
            {"itemid": 50971, "label": "Potassium", "fluid": "Blood", "category": "Chemistry"},
            {"itemid": 51222, "label": "Hemoglobin", "fluid": "Blood", "category": "Hematology"},
            {"itemid": 50983, "label": "Sodium", "fluid": "Blood", "category": "Chemistry"},
        ],
        "hosp.labevents": [],
        "hosp.d_icd_diagnoses": [
            {"icd_code": "J189", "icd_version": 10, "long_title": "Pneumonia, unspecified organism"},
            {"icd_code": "I10", "icd_version": 10, "long_title": "Essential (primary) hypertension"},
            {"icd_code": "N186", "icd_version": 10, "long_title": "End stage renal disease"},
            {"icd_code": "R509", "icd_version": 10, "long_title": "Fever, unspecified"},
        ],
        "hosp.diagnoses_icd": [],
        "ed.edstays": [
            {
                "subject_id": SUBJECT,
                "hadm_id": HADM,
                "stay_id": STAY,
                "intime": ED_IN,
                "outtime": "2150-01-01 13:00:00",
                "gender": "F",
                "race": "WHITE",
                "arrival_transport": "AMBULANCE",
                "disposition": "ADMITTED",
            }
        ],
        "ed.triage": [
            {
                "subject_id": SUBJECT,
                "stay_id": STAY,
                "temperature": 101.2,
                "heartrate": 112,
                "resprate": 24,
                "o2sat": 91,
                "sbp": 104,
                "dbp": 60,
                "pain": "3",
                "acuity": 2,
                "chiefcomplaint": "Cough, fever",
            }
        ],
        "ed.diagnosis": [
            {
                "subject_id": SUBJECT,
                "stay_id": STAY,
                "seq_num": 1,
                "icd_code": "J189",
                "icd_version": 10,
                "icd_title": "Pneumonia, unspecified organism",
            },
            {
                "subject_id": SUBJECT,
                "stay_id": STAY,
                "seq_num": 2,
                "icd_code": "R509",
                "icd_version": 10,
                "icd_title": "Fever, unspecified",
            },
        ],
    }


def lab(
    itemid: int,
    charttime: str,
    value: float,
    *,
    storetime: str | None = None,
    hadm_id: int | None = None,
    labevent_id: int = 1,
    flag: str | None = None,
) -> dict[str, Any]:
    return {
        "labevent_id": labevent_id,
        "subject_id": SUBJECT,
        "hadm_id": hadm_id,
        "specimen_id": labevent_id,
        "itemid": itemid,
        "charttime": charttime,
        "storetime": storetime or charttime,
        "value": str(value),
        "valuenum": value,
        "valueuom": "mg/dL",
        "ref_range_lower": 0.5,
        "ref_range_upper": 1.2,
        "flag": flag,
    }


def write_root(root: Path, tables: dict[str, list[dict[str, Any]]]) -> Path:
    """Write each table as ``<module>/<table>.csv`` with the schema's columns in order."""
    for qualified, rows in tables.items():
        module, table = qualified.split(".")
        schema = schema_for(module, table)
        columns = [c.name for c in schema.columns] if schema else list(rows[0])
        folder = root / module
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / f"{table}.csv").open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(columns)
            for row in rows:
                w.writerow(["" if row.get(c) is None else row.get(c) for c in columns])
    return root


def build(tmp_path: Path, tables: dict[str, list[dict[str, Any]]], **params: Any) -> dict[str, Any]:
    """Write the root, build it with ``params`` into a fresh folder, return its one instance."""
    root = write_root(tmp_path / "mimic", tables)
    out = tmp_path / f"out-{len(list(tmp_path.iterdir()))}"
    build_earlydx(root, out, EarlyDxParams(**params))
    (line,) = (out / "instances.jsonl").read_text().splitlines()
    return json.loads(line)
