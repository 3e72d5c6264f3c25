"""Which files the generator writes, where, and with which header.

Headers come from the project's schema catalogue (``admitdx.sources.schema``), which follows
MIMIC's DDL and the demo's CSV headers, so the generator and ``data check`` cannot drift apart. File
names are PhysioNet's (``echo-study-list`` with dashes, as released).
"""

from __future__ import annotations

from admitdx.sources.schema import SCHEMAS

# table key (module.table as DuckDB views name it) → path under the root
FILES: dict[str, str] = {
    "hosp.patients": "hosp/patients.csv.gz",
    "hosp.admissions": "hosp/admissions.csv.gz",
    "hosp.transfers": "hosp/transfers.csv.gz",
    "hosp.diagnoses_icd": "hosp/diagnoses_icd.csv.gz",
    "hosp.d_icd_diagnoses": "hosp/d_icd_diagnoses.csv.gz",
    "hosp.labevents": "hosp/labevents.csv.gz",
    "hosp.d_labitems": "hosp/d_labitems.csv.gz",
    "hosp.omr": "hosp/omr.csv.gz",
    "ed.edstays": "ed/edstays.csv.gz",
    "ed.triage": "ed/triage.csv.gz",
    "ed.vitalsign": "ed/vitalsign.csv.gz",
    "ed.medrecon": "ed/medrecon.csv.gz",
    "ed.pyxis": "ed/pyxis.csv.gz",
    "ed.diagnosis": "ed/diagnosis.csv.gz",
    "note.discharge": "note/discharge.csv.gz",
    "note.discharge_detail": "note/discharge_detail.csv.gz",
    "note.radiology": "note/radiology.csv.gz",
    "note.radiology_detail": "note/radiology_detail.csv.gz",
    "ecg.record_list": "ecg/record_list.csv.gz",
    "ecg.machine_measurements": "ecg/machine_measurements.csv.gz",
    "echo.echo_study_list": "echo/echo-study-list.csv.gz",
    "echo.echo_record_list": "echo/echo-record-list.csv.gz",
    "echo.structured_measurement": "echo/structured-measurement.csv.gz",
    "icu.icustays": "icu/icustays.csv.gz",
}
# Dictionaries written once by the parent process; every other table is written per patient chunk.
DICTIONARIES = ("hosp.d_icd_diagnoses", "hosp.d_labitems")
PER_PATIENT = tuple(t for t in FILES if t not in DICTIONARIES)


def header(table: str) -> tuple[str, ...]:
    return tuple(c.name for c in SCHEMAS[table].columns)
