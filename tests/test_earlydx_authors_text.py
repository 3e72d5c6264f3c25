"""The options behind ``--reproduce authors`` that the real demo does not exercise (it has no echo,
no ECG, one OMR spelling per kind, no integer-only vital column), each on a hand-written root.

The expected strings are what the authors' builder (github.com/jimmylihui/EarlyDx,
pipeline/build_planA.py at b79ac61) prints for these rows: its f-strings over pandas rows, e.g.
``f"{r.measurement} {r.result}{r.unit}"`` for echo and ``lo('Weight (Lbs)', 'Weight')`` for OMR.
OMR spellings are MIMIC-IV's own ``result_name`` values ("Weight (Lbs)" and "Weight" both occur in
``hosp.omr``, docs/mimic-iv-schema.md §omr); the ECG columns are ``machine_measurements``' documented
ones.
"""

from __future__ import annotations

from typing import Any

from earlydx_roots import ED_IN, STAY, SUBJECT, base_tables, build


def _omr(date: str, name: str, value: str, seq: int = 1) -> dict[str, Any]:
    return {
        "subject_id": SUBJECT,
        "chartdate": date,
        "seq_num": seq,
        "result_name": name,
        "result_value": value,
    }


def test_omr_spelling_the_later_value_or_weight_in_pounds_first(tmp_path) -> None:
    t = base_tables()
    t["hosp.omr"] = [
        _omr("2148-05-01", "Weight (Lbs)", "180"),
        _omr("2149-11-20", "Weight", "175.5"),  # later, the other spelling
        _omr("2149-11-20", "BMI", "27.1"),
    ]
    assert build(tmp_path, t)["sections"]["omr"] == "Wt 175.5, BMI 27.1"
    assert build(tmp_path, t, omr_spelling="listed")["sections"]["omr"] == "Wt 180 lb, BMI 27.1"
    # the authors' line: their spelling preference, no units, "None" for what is missing, values as
    # pandas prints the column: all numbers here, so float64 ("180.0"); with a blood pressure, text
    authors = {"omr_spelling": "listed", "omr_same_day": "pandas", "field_format": "pandas"}
    assert "Baseline (OMR): BP None, Wt 180.0, Ht None, BMI 27.1\n" in build(tmp_path, t, **authors)["text"]
    t["hosp.omr"].append(_omr("2149-11-20", "Blood Pressure", "128/84"))
    assert "Baseline (OMR): BP 128/84, Wt 180, Ht None, BMI 27.1\n" in build(tmp_path, t, **authors)["text"]


def _echo(name: str, result: str | None, unit: str | None) -> dict[str, Any]:
    return {"subject_id": SUBJECT, "measurement_datetime": "2149-09-01 10:00:00", "measurement": name,
            "result": result, "unit": unit}  # fmt: skip


def test_echo_as_pandas_prints_it_and_none_results_read_as_missing(tmp_path) -> None:
    t = base_tables()
    t["echo.structured_measurement"] = [
        _echo("LVEF", "57", "%"),
        _echo("Aortic valve", "None", None),  # pandas reads "None" as missing: dropna drops it
        _echo("Right ventricular size", "Normal", None),
    ]
    rows = {"echo_rows": "source"}
    assert build(tmp_path, t, **rows)["sections"]["echo"] == (
        "LVEF 57 %; Aortic valve None; Right ventricular size Normal"
    )
    pandas = build(tmp_path, t, **rows, field_format="pandas", echo_none="missing")
    assert pandas["sections"]["echo"] == "LVEF 57%; Right ventricular size Normalnan"


def _ecg(**points: int | None) -> dict[str, Any]:
    return {"subject_id": SUBJECT, "study_id": 40000001 + len(points), "ecg_time": ED_IN,
            "report_0": "Sinus rhythm", "report_1": "Normal ECG", **points}  # fmt: skip


def test_ecg_intervals_print_as_their_columns_and_a_missing_rr_as_question_marks(tmp_path) -> None:
    t = base_tables()
    points = {"rr_interval": 740, "p_onset": 40, "qrs_onset": 208, "qrs_end": 315, "t_end": 601}
    t["ecg.machine_measurements"] = [_ecg(**points)]
    assert build(tmp_path, t)["sections"]["ecg"] == "Sinus rhythm; Normal ECG | HR81 PR168 QRS107 QT393ms"
    # integer columns with no gap: int64, "PR168"; the same values with one gap: float64, "PR168.0"
    assert build(tmp_path, t, field_format="pandas")["sections"]["ecg"] == (
        "Sinus rhythm; Normal ECG | HR81 PR168 QRS107 QT393ms"
    )
    t["ecg.machine_measurements"].append(
        {**_ecg(**points), "ecg_time": "2140-01-01 00:00:00", "p_onset": None}
    )
    assert build(tmp_path, t, field_format="pandas")["sections"]["ecg"] == (
        "Sinus rhythm; Normal ECG | HR81 PR168.0 QRS107 QT393ms"
    )
    t["ecg.machine_measurements"] = [_ecg(**{**points, "rr_interval": None})]  # round(nan) raises
    assert (
        build(tmp_path, t, field_format="pandas")["sections"]["ecg"]
        == "Sinus rhythm; Normal ECG | HR? PR? QRS? QT?ms"
    )


def test_triage_from_an_integer_column_and_a_single_vital_reading_printed_twice(tmp_path) -> None:
    t = base_tables()
    t["ed.vitalsign"] = [
        {
            "subject_id": SUBJECT,
            "stay_id": STAY,
            "charttime": "2150-01-01 09:00:00",
            "heartrate": 104,
            "o2sat": 95,
        }
    ]
    assert build(tmp_path, t)["text"].splitlines()[2:4] == [
        "Triage: T101.2 HR112.0 RR24.0 SpO291.0 BP104.0/60.0 acuity2.0",  # appendix I: stored floats
        "ED serial vitals: HR104.0 SpO295.0",
    ]
    authors = {"field_format": "pandas", "single_reading": "twice", "age_format": "joined"}
    lines = build(tmp_path, t, **authors)["text"].splitlines()
    assert lines[0] == "Demographics: F, 62yo, WHITE. From EMERGENCY ROOM, arrival AMBULANCE."
    # every triage column but temperature holds integers only: pandas reads them as int64
    assert lines[2:4] == [
        "Triage: T101.2 HR112 RR24 SpO291 BP104/60 acuity2",
        "ED serial vitals: HR104 SpO295 | HR104 SpO295",
    ]


def test_past_ed_diagnoses_deduplicated_ignoring_case_or_exactly(tmp_path) -> None:
    t = base_tables()
    titles = {30000002: "Sepsis, unspecified organism", 30000003: "SEPSIS, UNSPECIFIED ORGANISM"}
    for year, (stay, title) in enumerate(titles.items(), start=2148):
        times = {"intime": f"{year}-01-01 08:00:00", "outtime": f"{year}-01-01 12:00:00"}
        t["ed.edstays"].append({**t["ed.edstays"][0], "hadm_id": None, "stay_id": stay, **times})
        row = {"subject_id": SUBJECT, "stay_id": stay, "seq_num": 1, "icd_code": "A419", "icd_version": 10}
        t["ed.diagnosis"].append({**row, "icd_title": title})
    history = build(tmp_path, t)["history"]
    assert "Past ED diagnoses: SEPSIS, UNSPECIFIED ORGANISM\n" in history  # the latest stay's spelling
    exact = build(tmp_path, t, dedupe="exact", prior_dx_order="source")["history"]
    assert "Past ED diagnoses: Sepsis, unspecified organism; SEPSIS, UNSPECIFIED ORGANISM\n" in exact
