"""Writes ``earlydx_ties/``: a tiny MIMIC-IV root holding every tie and text case where the EarlyDx
authors' builder (github.com/jimmylihui/EarlyDx, pipeline/build_planA.py at b79ac61) relies on file
order, pandas' unstable sort or pandas' reading of a cell, for ``tests/test_earlydx_ties.py``.

Patient 10000001 (one admitted ED stay; few rows, so pandas' sort is an insertion sort, stable: ties
keep file order, which runs against admitdx's second key everywhere):

* two baseline creatinines and two haemoglobins charted at one time (labevent_id against file order);
* two ECGs at one ``ecg_time`` (study_id against file order);
* two radiology reports at one ``charttime`` (note_id against file order), one of them with runs of
  spaces in its exam line ("EXAMINATION:  CHEST  (PA   AND LAT)");
* two earlier ED stays with one ``intime`` (stay_id against file order), one title with a trailing
  space;
* ED diagnoses sharing a ``seq_num`` (ICD code against file order);
* medication names "None", "NA", "null" (pandas reads them as missing), "   " (blank: kept), one
  with a leading space, and a duplicate;
* two ED vital readings at one time, a lab label with a double space, a lab value "None", an
  admission-scoped lab pair at one time, a chief complaint "NA", an OMR value "NA";
* evidence between t0 and t0 + 6 h / t0 + 24 h, and lab results and a report stored after t0, so that
  W = 6, 24 and the storetime rule each select differently.

Patient 10000002 (the same cases with 18 rows or more, where numpy's introsort partitions and ties
leave in neither file order nor its reverse): 18 creatinines at one time, 18 ECGs at one time, 18
radiology reports at one time, 18 ED diagnoses over three seq_nums, 18 earlier ED stays at one time.

Run ``python tests/data/earlydx_ties_root.py`` to rewrite the folder; then rewrite
``earlydx_ties_authors.json`` as its docstring in tests/test_earlydx_ties.py says.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from admitdx.sources.schema import schema_for

ROOT = Path(__file__).parent / "earlydx_ties"

A, B = 10000001, 10000002
HADM_A, HADM_B = 20000001, 20000002
STAY_A, STAY_B = 30000001, 30000101


def _lab(
    i: int, subject: int, itemid: int, t: str, value: str, num: float | None, **kw: Any
) -> dict[str, Any]:
    return {
        "labevent_id": i,
        "subject_id": subject,
        "specimen_id": i,
        "itemid": itemid,
        "charttime": t,
        "storetime": kw.pop("storetime", t),
        "value": value,
        "valuenum": num,
        "valueuom": "mg/dL",
        **kw,
    }


def _ecg(subject: int, study: int, t: str, statement: str, rr: int) -> dict[str, Any]:
    return {
        "subject_id": subject,
        "study_id": study,
        "cart_id": 1,
        "ecg_time": t,
        "report_0": statement,
        "report_1": "Abnormal ECG",
        "rr_interval": rr,
        "p_onset": 40,
        "p_end": 100,
        "qrs_onset": 200,
        "qrs_end": 290,
        "t_end": 600,
        "p_axis": 50,
        "qrs_axis": 10,
        "t_axis": 40,
    }


def _report(
    note: str, subject: int, t: str, exam: str, finding: str, stored: str | None = None
) -> dict[str, Any]:
    text = f"EXAMINATION:  {exam}\n\nINDICATION: pain\n\nFINDINGS: {finding}\n\nIMPRESSION: {finding}.\n"
    return {
        "note_id": note,
        "subject_id": subject,
        "hadm_id": None,
        "note_type": "RR",
        "note_seq": 1,
        "charttime": t,
        "storetime": stored or t,
        "text": text,
    }


def _dx(subject: int, stay: int, seq: int, code: str, title: str) -> dict[str, Any]:
    return {
        "subject_id": subject,
        "stay_id": stay,
        "seq_num": seq,
        "icd_code": code,
        "icd_version": 10,
        "icd_title": title,
    }


def _stay(subject: int, stay: int, intime: str, outtime: str, hadm: int | None = None) -> dict[str, Any]:
    return {
        "subject_id": subject,
        "hadm_id": hadm,
        "stay_id": stay,
        "intime": intime,
        "outtime": outtime,
        "gender": "F",
        "race": "WHITE",
        "arrival_transport": "WALK IN",
        "disposition": "HOME",
    }


TITLES = {
    "I10": "Essential (primary) hypertension",
    "E119": "Type 2 diabetes mellitus without complications",
    "N179": "Acute kidney failure, unspecified",
    "N186": "End stage renal disease",
    "J189": "Pneumonia, unspecified organism",
    "I4891": "Unspecified atrial fibrillation",
    "K219": "Gastro-esophageal reflux disease without esophagitis",
    "E785": "Hyperlipidemia, unspecified",
    "J449": "Chronic obstructive pulmonary disease, unspecified",
    "I2510": "Atherosclerotic heart disease of native coronary artery without angina pectoris",
    "F329": "Major depressive disorder, single episode, unspecified",
    "E039": "Hypothyroidism, unspecified",
    "N390": "Urinary tract infection, site not specified",
    "A419": "Sepsis, unspecified organism",
    "D649": "Anemia, unspecified",
    "E871": "Hypo-osmolality and hyponatremia",
    "I509": "Heart failure, unspecified",
    "K5900": "Constipation, unspecified",
    "G4733": "Obstructive sleep apnea (adult) (pediatric)",
}
CODES = list(TITLES)


def tables() -> dict[str, list[dict[str, Any]]]:
    t: dict[str, list[dict[str, Any]]] = {
        k: []
        for k in (
            "hosp.patients",
            "hosp.admissions",
            "hosp.transfers",
            "hosp.diagnoses_icd",
            "hosp.d_icd_diagnoses",
            "hosp.labevents",
            "hosp.d_labitems",
            "hosp.omr",
            "ed.edstays",
            "ed.triage",
            "ed.vitalsign",
            "ed.medrecon",
            "ed.pyxis",
            "ed.diagnosis",
            "note.discharge",
            "note.radiology",
            "ecg.machine_measurements",
            "echo.structured_measurement",
        )
    }
    t["hosp.d_icd_diagnoses"] = [
        {"icd_code": c, "icd_version": 10, "long_title": x} for c, x in TITLES.items()
    ]
    t["hosp.d_labitems"] = [
        {"itemid": 50912, "label": "Creatinine", "fluid": "Blood", "category": "Chemistry"},
        {"itemid": 51222, "label": "Hemoglobin", "fluid": "Blood", "category": "Hematology"},
        {"itemid": 50983, "label": "Sodium", "fluid": "Blood", "category": "Chemistry"},
        {"itemid": 50971, "label": "Potassium", "fluid": "Blood", "category": "Chemistry"},
        {"itemid": 50852, "label": "% Hemoglobin  A1c", "fluid": "Blood", "category": "Chemistry"},
    ]
    for subject, age in ((A, 60), (B, 71)):
        t["hosp.patients"].append(
            {
                "subject_id": subject,
                "gender": "F",
                "anchor_age": age,
                "anchor_year": 2149,
                "anchor_year_group": "2014 - 2016",
            }
        )
    adm = {
        "admission_type": "EW EMER.",
        "admission_location": "EMERGENCY ROOM",
        "insurance": "Medicare",
        "language": "English",
        "race": "WHITE",
        "hospital_expire_flag": 0,
    }
    t["hosp.admissions"] += [
        {
            "subject_id": A,
            "hadm_id": HADM_A,
            "admittime": "2150-01-01 12:00:00",
            "dischtime": "2150-01-05 10:00:00",
            "edregtime": "2150-01-01 08:00:00",
            "edouttime": "2150-01-01 13:00:00",
            **adm,
        },
        {
            "subject_id": B,
            "hadm_id": HADM_B,
            "admittime": "2151-03-05 14:00:00",
            "dischtime": "2151-03-09 10:00:00",
            "edregtime": "2151-03-05 10:00:00",
            "edouttime": "2151-03-05 15:00:00",
            **adm,
            "race": "BLACK/AFRICAN  AMERICAN ",
        },
    ]

    # ---- patient A: every case with two rows (stable insertion sort: file order wins) ----
    t["ed.edstays"] += [
        _stay(A, 30000003, "2149-06-01 10:00:00", "2149-06-01 15:00:00"),  # same intime, higher stay_id first
        _stay(A, STAY_A, "2150-01-01 08:00:00", "2150-01-01 13:00:00", HADM_A),
        _stay(A, 30000002, "2149-06-01 10:00:00", "2149-06-01 16:00:00"),
    ]
    t["ed.diagnosis"] += [
        _dx(A, 30000003, 1, "E119", TITLES["E119"] + " "),
        _dx(A, 30000002, 1, "I10", TITLES["I10"]),
        _dx(A, STAY_A, 2, "J189", TITLES["J189"]),
        _dx(A, STAY_A, 1, "N186", TITLES["N186"]),  # seq_num 1 twice: N186 before I10 in the file
        _dx(A, STAY_A, 1, "I10", TITLES["I10"]),
        _dx(A, STAY_A, 3, "R509", "Fever, unspecified"),
    ]
    t["ed.triage"].append(
        {
            "subject_id": A,
            "stay_id": STAY_A,
            "temperature": 98.6,
            "heartrate": 88,
            "resprate": 18,
            "o2sat": 97,
            "sbp": 130,
            "dbp": 80,
            "pain": "2",
            "acuity": 2,
            "chiefcomplaint": "NA",
        }
    )
    t["ed.vitalsign"] += [
        {
            "subject_id": A,
            "stay_id": STAY_A,
            "charttime": "2150-01-01 08:30:00",
            "heartrate": 90,
            "o2sat": 95,
        },
        {
            "subject_id": A,
            "stay_id": STAY_A,
            "charttime": "2150-01-01 08:30:00",
            "heartrate": 91,
            "o2sat": 96,
        },
        {
            "subject_id": A,
            "stay_id": STAY_A,
            "charttime": "2150-01-01 11:00:00",
            "heartrate": 80,
            "o2sat": 98,
        },
        {
            "subject_id": A,
            "stay_id": STAY_A,
            "charttime": "2150-01-01 11:00:00",
            "heartrate": 81,
            "o2sat": 99,
        },
        {
            "subject_id": A,
            "stay_id": STAY_A,
            "charttime": "2150-01-01 15:00:00",
            "heartrate": 70,
            "o2sat": 100,
        },
    ]
    med = {"subject_id": A, "stay_id": STAY_A, "charttime": "2150-01-01 09:00:00"}
    t["ed.medrecon"] += [
        {**med, "name": n}
        for n in ("None", "metoprolol", "NA", "   ", " lisinopril", "null", "metoprolol", "aspirin")
    ]
    t["hosp.omr"] += [
        {
            "subject_id": A,
            "chartdate": "2149-12-01",
            "seq_num": 1,
            "result_name": "Blood Pressure",
            "result_value": "NA",
        },
        {
            "subject_id": A,
            "chartdate": "2149-12-01",
            "seq_num": 1,
            "result_name": "Weight (Lbs)",
            "result_value": "150",
        },
    ]
    t["hosp.labevents"] += [
        _lab(20, A, 50912, "2149-12-01 10:00:00", "1.1", 1.1),  # baseline tie, labevent_id against file order
        _lab(10, A, 50912, "2149-12-01 10:00:00", "1.4", 1.4),
        _lab(21, A, 51222, "2149-12-01 10:00:00", "12.0", 12.0),
        _lab(11, A, 51222, "2149-12-01 10:00:00", "10.5", 10.5),
        _lab(
            30, A, 50912, "2150-01-01 09:00:00", "1.9", 1.9, storetime="2150-01-01 12:30:00"
        ),  # stored after t0
        _lab(41, A, 50983, "2150-01-01 12:30:00", "139", 139.0, hadm_id=HADM_A),  # two sodiums at one time
        _lab(40, A, 50983, "2150-01-01 12:30:00", "131", 131.0, hadm_id=HADM_A, flag="abnormal"),
        _lab(
            42, A, 50971, "2150-01-01 11:00:00", "None", 4.1, hadm_id=HADM_A, storetime="2150-01-01 13:00:00"
        ),
        _lab(43, A, 50852, "2150-01-01 16:00:00", "6.1", 6.1, hadm_id=HADM_A, flag="abnormal"),
        _lab(44, A, 50971, "2150-01-02 08:00:00", "3.2", 3.2, hadm_id=HADM_A, flag="abnormal"),
    ]
    t["ecg.machine_measurements"] += [
        _ecg(
            A, 50000002, "2150-01-01 09:00:00", "Sinus rhythm", 800
        ),  # same ecg_time, study_id against file order
        _ecg(A, 50000001, "2150-01-01 09:00:00", "Sinus tachycardia", 600),
        _ecg(A, 50000003, "2150-01-01 17:00:00", "Atrial fibrillation", 700),
    ]
    t["note.radiology"] += [
        _report(
            "10000001-RR-12", A, "2150-01-01 09:30:00", "CHEST  (PA   AND LAT)", "No focal consolidation"
        ),
        _report("10000001-RR-11", A, "2150-01-01 09:30:00", "CT HEAD W/O CONTRAST", "No hemorrhage"),
        _report(
            "10000001-RR-13", A, "2150-01-01 10:00:00", "CT ABD", "Normal bowel", stored="2150-01-01 12:30:00"
        ),
        _report("10000001-RR-14", A, "2150-01-01 17:00:00", "US RENAL", "Normal kidneys"),
    ]

    # ---- patient B: 18 rows per case (introsort partitions; ties leave in no simple order) ----
    t["ed.edstays"].append(_stay(B, STAY_B, "2151-03-05 10:00:00", "2151-03-05 15:00:00", HADM_B))
    for i in range(18):
        prior = 30000150 - i
        t["ed.edstays"].append(_stay(B, prior, "2150-06-01 10:00:00", "2150-06-01 12:00:00"))
        t["ed.diagnosis"].append(_dx(B, prior, 1, CODES[i], TITLES[CODES[i]]))
        t["ed.diagnosis"].append(_dx(B, STAY_B, 1 + i % 3, CODES[i], TITLES[CODES[i]]))
        t["hosp.labevents"].append(
            _lab(100 - i, B, 50912, "2151-02-01 08:00:00", f"{1 + i / 100:.2f}", 1 + i / 100)
        )
        t["ecg.machine_measurements"].append(
            _ecg(B, 50000100 - i, "2151-03-05 10:30:00", f"Rhythm {i}", 600 + 10 * i)
        )
        t["note.radiology"].append(
            _report(f"10000002-RR-{90 - i}", B, "2151-03-05 11:00:00", f"EXAM {i}", f"Finding {i}")
        )
    t["ed.triage"].append(
        {
            "subject_id": B,
            "stay_id": STAY_B,
            "temperature": 99.1,
            "heartrate": 101,
            "resprate": 20,
            "o2sat": 94,
            "sbp": 150,
            "dbp": 90,
            "pain": "5",
            "acuity": 3,
            "chiefcomplaint": "  Dyspnea",
        }
    )
    return t


def write(root: Path = ROOT) -> Path:
    """Each table as ``<module>/<table>.csv`` with the documented columns in order."""
    for qualified, rows in tables().items():
        module, table = qualified.split(".")
        schema = schema_for(module, table)
        assert schema is not None
        columns = [c.name for c in schema.columns]
        name = "structured-measurement" if table == "structured_measurement" else table
        folder = root / module
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / f"{name}.csv").open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(columns)
            for row in rows:
                w.writerow(["" if row.get(c) is None else row[c] for c in columns])
    return root


if __name__ == "__main__":
    print(write())
