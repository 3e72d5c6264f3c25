"""A release folder written by hand to the ER-Reason data card builds every task.

The data card is ``ER-Reason_Column_Descriptions.md`` in github.com/AlaaLab/ER-Reason (46 columns
of ``er_reason.csv``); the repository's README lists ``icd_10_codes.csv`` with
``patientdurablekey, encounterkey, value, displaystring``. The columns below are copied from the
card in its order and spelling — not from admitdx's generator — so a loader that spells one
differently (``arrivalYearKey`` for ``ArrivalYearKey``) fails here. Keys, ages, counts and years
are written as integers, a missing note as an empty field, as a CSV export of the release would.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import load_instances
from admitdx.errors import UsageError
from admitdx.sources.erreason import DATA_CARD_COLUMNS

RUNNER = CliRunner()
CARD = [
    "patientdurablekey",
    "encounterkey",
    "primarychiefcomplaintname",
    "primaryeddiagnosisname",
    "sex",
    "firstrace",
    "preferredlanguage",
    "highestlevelofeducation",
    "maritalstatus",
    "Age",
    "Discharge_Summary_Note_Key",
    "Progress_Note_Key",
    "HP_Note_Key",
    "Echo_Key",
    "Imaging_Key",
    "Consult_Key",
    "ED_Provider_Notes_Key",
    "ECG_Key",
    "Discharge_Summary_Text",
    "Progress_Note_Text",
    "HP_Note_Text",
    "Echo_Text",
    "Imaging_Text",
    "Consult_Text",
    "ECG_Text",
    "ED_Provider_Notes_Text",
    "One_Sentence_Extracted",
    "note_count",
    "acuitylevel",
    "eddisposition",
    "ArrivalYearKey",
    "DepartureYearKeyValue",
    "DepartureYearKey",
    "DispositionYearKeyValue",
    "birthYear",
    "Discharge_Summary_Year",
    "Progress_Note_Year",
    "HP_Note_Year",
    "Echo_Year",
    "Imaging_Year",
    "Consult_Year",
    "ED_Provider_Notes_Year",
    "ECG_Year",
    "Rule_Out",
    "Decision_Factors",
    "Treatment_Plan",
]

ED_NOTE = """ED Provider Notes
Chief Complaint: Syncope
HPI: {one_liner} Passed out at church, no prodrome.
ED Triage Vitals
BP: (!) 88/54 | Pulse: (!) 48 | Temp: 36.6 °C (97.9 °F) (Oral) | Resp: 16 | SpO2: 97 %

Physical Exam: bradycardic, no injuries.

Medical Decision Making
ECG with complete heart block. {title}.
ED Course
Pads placed, cardiology consulted, plan to admit.
Final Disposition
Clinical Impression:
1. {title}
ED Disposition: {disposition}
"""


def _encounter(n: int, title: str, disposition: str, acuity: str, rationale: bool) -> dict[str, object]:
    one_liner = f"7{n} y.o. male with h/o hypertension presenting with syncope."
    row: dict[str, object] = dict.fromkeys(CARD, "")
    row.update(
        patientdurablekey=100 + n, encounterkey=2000 + n, primarychiefcomplaintname="Syncope",
        primaryeddiagnosisname=title, sex="Male", firstrace="White", preferredlanguage="English",
        maritalstatus="Married", Age=70 + n, ED_Provider_Notes_Key=50 + n, Discharge_Summary_Note_Key=60 + n,
        Discharge_Summary_Text="Discharge Summary\nAdmitted for pneumonia; discharged on amoxicillin.",
        ED_Provider_Notes_Text=ED_NOTE.format(one_liner=one_liner, title=title, disposition=disposition),
        One_Sentence_Extracted=one_liner, note_count=2, acuitylevel=acuity, eddisposition=disposition,
        ArrivalYearKey=2021, DepartureYearKeyValue=2021, DepartureYearKey=2021, DispositionYearKeyValue=2021,
        birthYear=1951 - n, Discharge_Summary_Year=2020, ED_Provider_Notes_Year=2021,
    )  # fmt: skip
    if rationale:
        row.update(
            Rule_Out="Arrhythmia, vasovagal syncope, aortic stenosis",
            Decision_Factors="ECG, telemetry, troponin, orthostatic vitals",
            Treatment_Plan="Transcutaneous pacing, cardiology, admit to CCU",
        )
    return row


@pytest.fixture(scope="module")
def card_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("card") / "er-reason"
    root.mkdir()
    block = "Third degree atrioventricular block"
    rows = [
        _encounter(1, block, "Admit", "Emergent", True),
        _encounter(2, "Syncope and collapse", "Discharge", "Urgent", False),
        _encounter(3, block, "Observation", "Emergent", False),
    ]
    with (root / "er_reason.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CARD)
        w.writeheader()
        w.writerows(rows)
    codes = [  # no order column: encounter 2001's main code is the file's second row
        (101, 2001, "I10", "Essential (primary) hypertension"),
        (101, 2001, "I44.2", block),
        (102, 2002, "R55", "Syncope and collapse"),
        (103, 2003, "I44.2", block),
    ]
    with (root / "icd_10_codes.csv").open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("patientdurablekey", "encounterkey", "value", "displaystring"), *codes])
    return root


def test_the_loader_spells_the_columns_as_the_card(card_release: Path) -> None:
    assert tuple(CARD) == DATA_CARD_COLUMNS and len(CARD) == 46
    result = RUNNER.invoke(app, ["data", "check", "--erreason", str(card_release), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["absent_card_columns"] == 0 and summary["encounters"] == 3 and summary["code_rows"] == 4


@pytest.mark.parametrize(
    ("task", "instances"),
    [("acuity", 3), ("one-liner", 3), ("planning", 1), ("diagnosis", 3), ("disposition", 3)],
)
def test_a_release_written_to_the_card_builds_every_task(
    card_release: Path, tmp_path: Path, task: str, instances: int
) -> None:
    out = tmp_path / task
    args = ["build", "er-reason", "--task", task, "--erreason", str(card_release), "--out", str(out)]
    result = RUNNER.invoke(app, [*args, "--test-fraction", "1.0"])
    assert result.exit_code == 0, result.output
    built = load_instances(out)
    assert len(built) == instances
    for inst in built:
        assert (
            "Third degree" not in inst.text and "I44" not in inst.text and "ED Disposition" not in inst.text
        )
    if task == "acuity":
        assert built[0].meta["triage_heartrate"] == 48 and built[0].meta["triage_temperature"] == 97.9
    if task == "diagnosis":
        assert [r.code for r in built[0].references] == ["I44.2", "I10"]  # primaryeddiagnosisname's row
        counts = json.loads((out / "manifest.json").read_text())["outputs"]["counts"]
        assert counts["main_dx_other_row"] == 1 and counts["main_dx_first_row"] == 2
        assert counts["cut_at_medical_decision_making"] == 3
    if task == "disposition":
        text = built[0].text
        assert "PAST medical notes" in text and "plan to admit" not in text


def test_data_synth_writes_a_release_to_the_card(tmp_path: Path) -> None:
    out = tmp_path / "synth"
    args = ["data", "synth", "--erreason", "--out", str(out), "--encounters", "12", "--seed", "1"]
    result = RUNNER.invoke(app, args)
    assert result.exit_code == 0, result.output
    with (out / "er_reason.csv").open(newline="", encoding="utf-8") as f:
        assert next(csv.reader(f)) == CARD
    with (out / "icd_10_codes.csv").open(newline="", encoding="utf-8") as f:
        assert next(csv.reader(f)) == ["patientdurablekey", "encounterkey", "value", "displaystring"]
    again = RUNNER.invoke(app, args)  # not empty: refused without --force (exit 2 from main)
    assert isinstance(again.exception, UsageError) and again.exception.exit_code == 2
