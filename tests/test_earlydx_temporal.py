"""Each temporal rule of the EarlyDx builder on a hand-written one-patient root (t0 = 12:00)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx
from earlydx_roots import ED_IN, HADM, STAY, SUBJECT, T0, base_tables, build, lab, write_root


def test_lab_at_t0_kept_one_minute_later_dropped_and_kept_at_w6(tmp_path: Path) -> None:
    t = base_tables()
    t["hosp.labevents"] = [
        lab(50912, T0, 1.3, labevent_id=1),
        lab(50971, "2150-01-01 12:01:00", 6.1, labevent_id=2),
    ]
    w0 = build(tmp_path, t)["sections"]["labs"]
    assert "Creatinine 1.3" in w0 and "Potassium" not in w0
    w6 = build(tmp_path, t, window_hours=6)["sections"]["labs"]
    assert "Creatinine 1.3" in w6 and "Potassium 6.1" in w6
    # a result 6 h and 1 min after t0 stays out even at W = 6
    t["hosp.labevents"].append(lab(50983, "2150-01-01 18:01:00", 131, labevent_id=3))
    assert "Sodium" not in build(tmp_path, t, window_hours=6)["sections"]["labs"]


def test_storetime_drops_a_result_charted_before_but_stored_after_t0(tmp_path: Path) -> None:
    t = base_tables()
    t["hosp.labevents"] = [
        lab(50912, "2150-01-01 10:00:00", 2.4, storetime="2150-01-01 12:30:00", labevent_id=1),
        lab(50971, "2150-01-01 10:00:00", 4.0, storetime="2150-01-01 11:00:00", labevent_id=2),
    ]
    chart = build(tmp_path, t)["sections"]["labs"]
    assert "Creatinine 2.4" in chart and "Potassium 4" in chart
    store = build(tmp_path, t, timestamps="storetime")["sections"]["labs"]
    assert "Creatinine" not in store and "Potassium 4" in store


def test_lab_scope_ed_stay_takes_ed_draws_without_hadm_id_admission_scope_does_not(tmp_path: Path) -> None:
    t = base_tables()
    t["hosp.labevents"] = [
        lab(50912, "2150-01-01 09:00:00", 1.1, labevent_id=1),  # ED draw: empty hadm_id
        lab(50971, "2150-01-01 11:30:00", 4.4, hadm_id=HADM, labevent_id=2),
        lab(50983, "2150-01-01 07:00:00", 139, labevent_id=3),  # before ED arrival: not this visit
    ]
    ed = build(tmp_path, t)["sections"]["labs"]
    assert "Creatinine 1.1" in ed and "Potassium 4.4" in ed and "Sodium" not in ed
    adm = build(tmp_path, t, lab_scope="admission")["sections"]["labs"]
    assert "Creatinine" not in adm and "Potassium 4.4" in adm


def test_abnormal_results_come_first_and_the_budget_cuts_whole_results(tmp_path: Path) -> None:
    t = base_tables()
    t["hosp.labevents"] = [
        lab(50971, "2150-01-01 09:00:00", 4.0, labevent_id=1),
        lab(50912, "2150-01-01 09:30:00", 3.2, labevent_id=2, flag="abnormal"),
    ]
    labs = build(tmp_path, t)["sections"]["labs"]
    assert labs == "(2 results, 1 abnormal) Creatinine 3.2 mg/dL [0.5-1.2]*; Potassium 4.0 mg/dL"
    cut = build(tmp_path, t, lab_char_budget=40)["sections"]["labs"]
    assert cut == "(2 results, 1 abnormal, first 1 shown) Creatinine 3.2 mg/dL [0.5-1.2]*"


def test_prior_admission_starting_after_t0_contributes_nothing(tmp_path: Path) -> None:
    t = base_tables()
    t["hosp.admissions"] += [
        {
            **t["hosp.admissions"][0],
            "hadm_id": 20000000,
            "admittime": "2149-06-01 10:00:00",
            "dischtime": "2149-06-04 10:00:00",
            "edregtime": None,
            "edouttime": None,
        },
        {
            **t["hosp.admissions"][0],
            "hadm_id": 20000002,
            "admittime": "2150-03-01 10:00:00",
            "dischtime": "2150-03-04 10:00:00",
            "edregtime": None,
            "edouttime": None,
        },
    ]
    t["hosp.diagnoses_icd"] = [
        {"subject_id": SUBJECT, "hadm_id": 20000000, "seq_num": 1, "icd_code": "I10", "icd_version": 10},
        {"subject_id": SUBJECT, "hadm_id": 20000002, "seq_num": 1, "icd_code": "N186", "icd_version": 10},
        {"subject_id": SUBJECT, "hadm_id": HADM, "seq_num": 1, "icd_code": "J189", "icd_version": 10},
    ]
    t["note.discharge"] = [
        {
            "note_id": f"{SUBJECT}-DS-1",
            "subject_id": SUBJECT,
            "hadm_id": 20000000,
            "note_type": "DS",
            "note_seq": 1,
            "charttime": "2149-06-04 00:00:00",
            "storetime": "2149-06-04 15:00:00",
            "text": "Chief Complaint:\nHA\n\nPast Medical History:\nHypertension, gout\n\n"
            "Social History:\nnone",
        },
        {
            "note_id": f"{SUBJECT}-DS-2",
            "subject_id": SUBJECT,
            "hadm_id": 20000002,
            "note_type": "DS",
            "note_seq": 2,
            "charttime": "2150-03-04 00:00:00",
            "storetime": "2150-03-04 15:00:00",
            "text": "Past Medical History:\nESRD on dialysis\n\nSocial History:\nnone",
        },
    ]
    inst = build(tmp_path, t)
    history = inst["history"]
    assert "Essential (primary) hypertension" in history
    assert "Hypertension, gout" in history
    assert "End stage renal disease" not in history and "ESRD" not in history
    # the current admission's own codes are never history either
    assert "Pneumonia" not in history
    # history is its own field, not one of the sections; appendix I prints it between the
    # baseline labs and the ECG, the demarcated layout after all acute evidence (appendix N)
    text = inst["text"]
    assert "history" not in inst["sections"]
    assert text.index("Baseline labs (prior)") < text.index("Hypertension, gout") < text.index("ECG:")
    assert "Prior history" not in text
    demarcated = build(tmp_path, t, layout="demarcated")
    assert demarcated["history"] == history
    assert demarcated["text"].index("Hypertension, gout") > demarcated["text"].index("Radiology")


def test_past_ed_diagnoses_come_only_from_earlier_stays_and_pass_the_label_filter(tmp_path: Path) -> None:
    t = base_tables()
    earlier, later = 30000000, 30000002
    t["ed.edstays"] += [
        {
            **t["ed.edstays"][0],
            "stay_id": earlier,
            "hadm_id": None,
            "intime": "2149-01-01 08:00:00",
            "outtime": "2149-01-01 12:00:00",
            "disposition": "HOME",
        },
        {
            **t["ed.edstays"][0],
            "stay_id": later,
            "hadm_id": None,
            "intime": "2150-06-01 08:00:00",
            "outtime": "2150-06-01 12:00:00",
            "disposition": "HOME",
        },
    ]
    t["ed.diagnosis"] += [
        {
            "subject_id": SUBJECT,
            "stay_id": earlier,
            "seq_num": 1,
            "icd_code": "I10",
            "icd_version": 10,
            "icd_title": "Essential (primary) hypertension",
        },
        {
            "subject_id": SUBJECT,
            "stay_id": earlier,
            "seq_num": 2,
            "icd_code": "R509",
            "icd_version": 10,
            "icd_title": "Fever, unspecified",
        },
        {
            "subject_id": SUBJECT,
            "stay_id": later,
            "seq_num": 1,
            "icd_code": "N186",
            "icd_version": 10,
            "icd_title": "End stage renal disease",
        },
    ]
    history = build(tmp_path, t)["history"]
    assert "Past ED diagnoses: Essential (primary) hypertension\n" in history
    assert "Fever" not in history and "End stage renal disease" not in history


def test_radiology_is_windowed_from_ed_arrival_to_cutoff_on_charttime_or_storetime(tmp_path: Path) -> None:
    def report(n: int, charttime: str, storetime: str, finding: str) -> dict[str, Any]:
        return {
            "note_id": f"{SUBJECT}-RR-{n}",
            "subject_id": SUBJECT,
            "hadm_id": None,
            "note_type": "RR",
            "note_seq": n,
            "charttime": charttime,
            "storetime": storetime,
            "text": f"EXAMINATION: CHEST (PA AND LAT)\n\nFINDINGS: {finding}\n\nIMPRESSION: {finding}.",
        }

    t = base_tables()
    t["note.radiology"] = [
        report(1, "2150-01-01 07:00:00", "2150-01-01 07:30:00", "old clear lungs"),  # before ED arrival
        report(2, "2150-01-01 09:00:00", "2150-01-01 10:00:00", "right lower lobe consolidation"),
        report(3, "2150-01-01 11:00:00", "2150-01-01 13:00:00", "small effusion"),  # stored after t0
        report(4, "2150-01-01 15:00:00", "2150-01-01 16:00:00", "worsening consolidation"),  # after t0
    ]
    chart = build(tmp_path, t)["sections"]["radiology"]
    assert chart.startswith("(2)") and "right lower lobe" in chart and "small effusion" in chart
    assert "old clear" not in chart and "worsening" not in chart
    store = build(tmp_path, t, timestamps="storetime")["sections"]["radiology"]
    assert store.startswith("(1)") and "small effusion" not in store


def test_serial_vitals_show_first_and_last_reading_in_window(tmp_path: Path) -> None:
    t = base_tables()
    t["ed.vitalsign"] = [
        {"subject_id": SUBJECT, "stay_id": STAY, "charttime": ts, "heartrate": hr, "o2sat": 95}
        for ts, hr in (
            ("2150-01-01 08:10:00", 120),
            ("2150-01-01 10:00:00", 110),
            ("2150-01-01 11:50:00", 98),
            ("2150-01-01 12:30:00", 80),
        )
    ]
    inst = build(tmp_path, t)
    assert inst["sections"]["ed_vitals"] == "HR120 SpO2 95 | HR98 SpO2 95"
    assert build(tmp_path, t, window_hours=1)["sections"]["ed_vitals"] == "HR120 SpO2 95 | HR80 SpO2 95"
    # appendix I's text: the stored float, SpO2 run together with its value
    assert "\nED serial vitals: HR120.0 SpO295.0 | HR98.0 SpO295.0\n" in inst["text"]


def test_omr_by_chartdate_up_to_the_day_of_t0_and_baseline_labs_before_t0(tmp_path: Path) -> None:
    t = base_tables()
    t["hosp.omr"] = [
        {
            "subject_id": SUBJECT,
            "chartdate": "2149-12-01",
            "seq_num": 1,
            "result_name": "Blood Pressure",
            "result_value": "140/90",
        },
        {
            "subject_id": SUBJECT,
            "chartdate": "2150-01-01",
            "seq_num": 1,
            "result_name": "Weight (Lbs)",
            "result_value": "180",
        },
        {
            "subject_id": SUBJECT,
            "chartdate": "2150-01-02",
            "seq_num": 1,
            "result_name": "Blood Pressure",
            "result_value": "150/95",
        },
    ]
    t["hosp.labevents"] = [
        lab(50912, "2149-12-01 09:00:00", 0.9, labevent_id=1),
        lab(50912, "2150-01-01 09:00:00", 2.0, labevent_id=2),  # the ED draw, before t0
        lab(51222, "2149-12-01 09:00:00", 13.1, labevent_id=3),
    ]
    inst = build(tmp_path, t)
    assert inst["sections"]["omr"] == "BP 140/90, Wt 180 lb"
    assert inst["sections"]["baseline_labs"] == "creatinine 2, hemoglobin 13.1"
    prior = build(tmp_path, t, baseline_labs_before="ed-arrival")
    assert prior["sections"]["baseline_labs"] == "creatinine 0.9, hemoglobin 13.1"
    # appendix I's text: every OMR field named, None where absent, no units; numbers as stored
    assert "\nBaseline (OMR): BP 140/90, Wt 180, Ht None, BMI None\n" in inst["text"]
    assert "\nBaseline labs (prior): creatinine 2.0, hemoglobin 13.1\n" in inst["text"]
    demarcated = build(tmp_path, t, layout="demarcated")["text"]
    assert "\nBaseline (OMR): BP 140/90, Wt 180 lb\n" in demarcated
    (tmp_path / "bare").mkdir()
    bare = build(tmp_path / "bare", base_tables())
    assert bare["sections"]["omr"] is None and bare["sections"]["baseline_labs"] is None
    assert "\nBaseline (OMR): BP None, Wt None, Ht None, BMI None\n" in bare["text"]
    assert "\nBaseline labs (prior): creatinine None, hemoglobin None\n" in bare["text"]
    assert ED_IN < T0  # the fixture's premise


def test_a_root_without_the_ed_diagnosis_table_is_refused_with_its_name(tmp_path: Path) -> None:
    from admitdx.errors import InputError

    t = base_tables()
    del t["ed.diagnosis"]
    root = write_root(tmp_path / "mimic", t)
    with pytest.raises(InputError, match=r"ed\.diagnosis"):
        build_earlydx(root, tmp_path / "out", EarlyDxParams())


def test_unknown_parameters_are_refused() -> None:
    from admitdx.errors import UsageError

    for bad in (
        {"lab_scope": "hospital"},
        {"timestamps": "eventtime"},
        {"drop_sections": ("labz",)},
        {"window_hours": -1},
        {"test_fraction": 1.0},
        {"serial_vital_fields": ("bp",)},
    ):
        with pytest.raises(UsageError):
            EarlyDxParams(**bad)
