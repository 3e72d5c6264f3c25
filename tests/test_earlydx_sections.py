"""ECG, echo and home-medication sections on hand-written roots (t0 = 2150-01-01 12:00)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from earlydx_roots import STAY, SUBJECT, base_tables, build


def ecg(study: int, time: str, statements: list[str], **points: float) -> dict[str, Any]:
    row: dict[str, Any] = {"subject_id": SUBJECT, "study_id": study, "cart_id": 1, "ecg_time": time}
    row.update({f"report_{i}": s for i, s in enumerate(statements)})
    row.update(
        {"rr_interval": 750, "p_onset": 40, "p_end": 140, "qrs_onset": 200, "qrs_end": 290, "t_end": 600}
    )
    row.update(points)
    return row


def test_ecg_is_the_latest_before_the_cutoff_with_derived_intervals(tmp_path: Path) -> None:
    t = base_tables()
    t["ecg.machine_measurements"] = [
        ecg(1, "2149-05-01 10:00:00", ["Sinus rhythm", "Normal ECG"]),
        ecg(
            2,
            "2150-01-01 08:30:00",
            ["Sinus tachycardia", "ST elevation, consider inferior injury"],
            rr_interval=500,
        ),
        ecg(3, "2150-01-01 13:00:00", ["Atrial fibrillation"]),
    ]
    assert build(tmp_path, t)["sections"]["ecg"] == (
        "Sinus tachycardia; ST elevation, consider inferior injury | HR120 PR160 QRS90 QT400ms"
    )
    # after t0 at W = 6: the atrial fibrillation tracing, whose PR is meaningless
    assert (
        build(tmp_path, t, window_hours=6)["sections"]["ecg"]
        == "Atrial fibrillation | HR80 PRn/a QRS90 QT400ms"
    )
    # MIMIC-IV-ECG writes 29999 for a point the machine could not place
    t["ecg.machine_measurements"][1]["t_end"] = 29999
    assert build(tmp_path, t)["sections"]["ecg"].endswith("HR120 PR160 QRS90 QTn/ams")
    # with a lookback limit the year-old tracing is not "the ECG" of this visit
    t["ecg.machine_measurements"] = t["ecg.machine_measurements"][:1]
    assert build(tmp_path, t)["sections"]["ecg"].startswith("Sinus rhythm; Normal ECG")
    assert build(tmp_path, t, ecg_lookback_hours=24)["sections"]["ecg"] is None


def test_echo_shows_only_the_latest_study_before_the_cutoff(tmp_path: Path) -> None:
    t = base_tables()

    def m(time: str, name: str, result: str, unit: str | None) -> dict[str, Any]:
        return {
            "subject_id": SUBJECT,
            "measurement_datetime": time,
            "measurement": name,
            "result": result,
            "unit": unit,
        }

    t["echo.structured_measurement"] = [
        m("2148-03-01 10:00:00", "LVEF", "60", "%"),
        m("2148-03-01 10:00:00", "TAPSE", "2.4", "cm"),
        m("2149-09-01 10:00:00", "LVEF", "35", "%"),
        m("2149-09-01 10:00:00", "Right ventricular size", "Dilated", None),
        m("2150-01-01 15:00:00", "LVEF", "20", "%"),
    ]
    assert build(tmp_path, t)["sections"]["echo"] == "LVEF 35 %; Right ventricular size Dilated"
    assert build(tmp_path, t, echo_max_measurements=1)["sections"]["echo"] == "LVEF 35 %"
    assert build(tmp_path, t, window_hours=6)["sections"]["echo"] == "LVEF 20 %"


def test_home_meds_are_distinct_alphabetical_and_capped(tmp_path: Path) -> None:
    t = base_tables()
    names = ["metoprolol", "apixaban", "metoprolol", "furosemide", "atorvastatin"]
    t["ed.medrecon"] = [
        {
            "subject_id": SUBJECT,
            "stay_id": STAY,
            "charttime": "2150-01-01 08:20:00",
            "name": n,
            "gsn": "0",
            "ndc": "0",
            "etc_rn": 1,
            "etccode": "1",
            "etcdescription": "x",
        }
        for n in names
    ]
    assert build(tmp_path, t)["sections"]["home_meds"] == "apixaban; atorvastatin; furosemide; metoprolol"
    assert build(tmp_path, t, home_meds_max=2)["sections"]["home_meds"] == "apixaban; atorvastatin (+2 more)"
