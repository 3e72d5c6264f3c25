"""The generator's variants reach the readers: each reader, run through the public CLI on synthetic
data, meets the real layouts and spellings and must handle them (issue 21, "must hold").

Each test asserts the behaviour the issues ask for, not what today's reader happens to do:

- CliniBench's section detector cuts every discharge-exam spelling (the generator draws from the
  38 of ``synthetic.headings``, e.g. ``PE on discharge:``, ``*DISCHARGE EXAM*``, ``DISCHARGE PHYSICAL
  EXAMINATION:``; issue 20 found 15 of 30 such spellings left in the admission note);
- the ER-Reason MIMIC inputs print no ``TNone``/``HRNone`` for the vitals MIMIC-IV-ED leaves empty
  (the demo's gaps: 15 of 222 triage rows without vitals, 44 % of vitalsign rows without a temperature);
- the ER-Reason release written by ``admitdx data synth --erreason-release`` has the data card's
  columns (AlaaLab/ER-Reason, ``ER-Reason_Column_Descriptions.md``) and every task builds from it,
  its notes cut before ``Medical Decision Making`` / ``ED Course`` / ``Final Disposition``, its
  triage vitals parsed from every layout;
- EarlyDx keeps the admitted stays only, now that a third end otherwise, and its OMR reader finds the
  weight under "Weight" as under "Weight (Lbs)" (MIMIC-IV omr docs).
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import load_instances
from admitdx.sources.mimic import open_mimic
from admitdx.synthetic.truth import read_note_sections

CLINIBENCH = ("hosp-icd9", "hosp-icd10", "icu-icd9", "icu-icd10")
#: The columns of the release's encounter table, as ER-Reason_Column_Descriptions.md lists them
#: (github.com/AlaaLab/ER-Reason).
CARD_COLUMNS = (
    "patientdurablekey", "encounterkey", "primarychiefcomplaintname", "primaryeddiagnosisname", "sex",
    "firstrace", "preferredlanguage", "highestlevelofeducation", "maritalstatus", "Age",
    "Discharge_Summary_Note_Key", "Progress_Note_Key", "HP_Note_Key", "Echo_Key", "Imaging_Key",
    "Consult_Key", "ED_Provider_Notes_Key", "ECG_Key", "Discharge_Summary_Text", "Progress_Note_Text",
    "HP_Note_Text", "Echo_Text", "Imaging_Text", "Consult_Text", "ECG_Text", "ED_Provider_Notes_Text",
    "One_Sentence_Extracted", "note_count", "acuitylevel", "eddisposition", "ArrivalYearKey",
    "DepartureYearKeyValue", "DepartureYearKey", "DispositionYearKeyValue", "birthYear",
    "Discharge_Summary_Year", "Progress_Note_Year", "HP_Note_Year", "Echo_Year", "Imaging_Year",
    "Consult_Year", "ED_Provider_Notes_Year", "ECG_Year", "Rule_Out", "Decision_Factors", "Treatment_Plan",
)  # fmt: skip
#: Epic ED provider-note sections written after the decision (they give the answer away).
AFTER_DECISION = re.compile(
    r"medical decision making|ed course|final disposition|clinical impression|ed disposition", re.I
)


#: A vital printed with Python's None for its value ("TNone", "SpO2 None", "BPNone/None").
MISSING_VITAL = re.compile(r"\b(?:T|HR|RR|SpO2|SBP|DBP|BP|Pain)\s?None\b")


def _invoke(*args: str) -> None:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output


def test_clinibench_cuts_every_discharge_exam_spelling(synthetic_root: Path, tmp_path: Path) -> None:
    """No line of any discharge exam reaches an admission note, whatever heading it came under."""
    _invoke("build", "clinibench", "--mimic", str(synthetic_root), "--out", str(tmp_path))
    truth = {rec["hadm_id"]: rec for rec in read_note_sections(synthetic_root)}
    leaked: Counter[str] = Counter()
    seen: set[str] = set()
    for name in CLINIBENCH:
        for inst in load_instances(tmp_path / name):
            rec = truth[inst.hadm_id]
            heading = rec["headings"]["physical_exam_discharge"]
            seen.add(heading)
            lines = [" ".join(x.split()) for x in rec["sections"]["physical_exam_discharge"].splitlines()]
            if any(len(line) >= 12 and line in inst.text for line in lines):
                leaked[heading] += 1
    assert len(seen) >= 30
    assert not leaked, f"{len(leaked)} of {len(seen)} discharge-exam spellings leak: {sorted(leaked)}"


@pytest.fixture(scope="module")
def mimic_tasks(synthetic_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("er-mimic")
    for task in ("acuity", "disposition"):
        _invoke(
            "build", "er-reason", "--task", task, "--mimic", str(synthetic_root), "--out", str(out / task)
        )
    return {task: out / task for task in ("acuity", "disposition")}


def test_er_reason_mimic_tasks_are_not_trivial(mimic_tasks: dict[str, Path]) -> None:
    """Issue 21: the majority disposition stays at most 0.75, and acuity has all five ESI levels."""
    dispositions = Counter(i.target for i in load_instances(mimic_tasks["disposition"]))
    assert max(dispositions.values()) / sum(dispositions.values()) <= 0.75 and len(dispositions) == 7
    assert len({i.target for i in load_instances(mimic_tasks["acuity"]) if i.target}) == 5


def test_er_reason_mimic_inputs_print_no_missing_vital(mimic_tasks: dict[str, Path]) -> None:
    """An empty MIMIC-IV-ED vital is left out, never printed as "TNone" or "SpO2 None"."""
    for task, path in mimic_tasks.items():
        shown = [i.text for i in load_instances(path)]
        assert not [t for t in shown if MISSING_VITAL.search(t)], task


@pytest.fixture(scope="module")
def earlydx(synthetic_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("earlydx")
    _invoke("build", "earlydx", "--mimic", str(synthetic_root), "--out", str(out))
    return out


def test_earlydx_keeps_admitted_stays_only(synthetic_root: Path, earlydx: Path) -> None:
    """A third of the ED stays now end without an admission (no hadm_id); EarlyDx's cohort is the
    admitted ones."""
    with open_mimic(synthetic_root) as src:
        ends = dict(src.execute("SELECT stay_id, disposition FROM ed.edstays").fetchall())
    stays = {i.stay_id for i in load_instances(earlydx)}
    assert stays and {ends[s] for s in stays} == {"ADMITTED"}
    assert sum(d != "ADMITTED" for d in ends.values()) > len(ends) // 4


def test_earlydx_reads_omr_weight_under_either_spelling(synthetic_root: Path, earlydx: Path) -> None:
    with open_mimic(synthetic_root) as src:
        rows = src.execute("""
            SELECT subject_id, CAST(chartdate AS DATE), result_name, result_value FROM hosp.omr
            WHERE result_name IN ('Weight', 'Weight (Lbs)')
        """).fetchall()
    weights: dict[int, list] = {}
    for subject, day, name, value in rows:
        weights.setdefault(subject, []).append((day, name, value))
    checked: Counter[str] = Counter()
    for inst in load_instances(earlydx):
        prior = [w for w in weights.get(inst.subject_id, []) if str(w[0]) <= str(inst.t0)[:10]]
        if prior:
            _, name, value = max(prior)
            assert re.search(rf"\bWt {re.escape(value)}\b", inst.text), (inst.id, name, value)
            checked[name] += 1
    assert checked["Weight"] > 0 and checked["Weight (Lbs)"] > 0


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("er-release") / "release"
    # issue 21's `data synth --erreason-release OUT`, as issue 19 named it; size left at its default
    _invoke("data", "synth", "--erreason", "--out", str(out), "--seed", "7")
    return out


def test_er_reason_release_follows_the_data_card(release: Path, tmp_path: Path) -> None:
    tables = {p: next(csv.reader(p.open(encoding="utf-8"))) for p in release.glob("*.csv")}
    encounters = [cols for cols in tables.values() if "encounterkey" in cols and "Age" in cols]
    assert encounters and set(CARD_COLUMNS) <= set(encounters[0])
    for task in ("acuity", "one-liner", "planning", "diagnosis", "disposition"):
        _invoke(
            "build", "er-reason", "--task", task, "--erreason", str(release), "--out", str(tmp_path / task)
        )


def test_er_reason_release_notes_are_cut_before_the_decision(release: Path, tmp_path: Path) -> None:
    for task in ("diagnosis", "disposition"):
        _invoke(
            "build", "er-reason", "--task", task, "--erreason", str(release), "--out", str(tmp_path / task)
        )
        leaks = [i.id for i in load_instances(tmp_path / task) if AFTER_DECISION.search(i.text)]
        assert not leaks, (task, leaks[:3])


def test_er_reason_release_vitals_are_read_from_every_layout(release: Path, tmp_path: Path) -> None:
    """The triage heart rate the generator wrote (its _truth) is what the acuity task parsed, whatever
    layout the note gave the vitals in (one line, Epic "(!)" flags, one per line, a flowsheet)."""
    _invoke("build", "er-reason", "--task", "acuity", "--erreason", str(release), "--out", str(tmp_path))
    with (release / "_truth" / "truth.csv").open(encoding="utf-8") as f:
        heart = {
            row["encounterkey"]: float(row["heartrate"]) for row in csv.DictReader(f) if row["heartrate"]
        }
    parsed = {str(i.meta["encounterkey"]): i.meta.get("triage_heartrate") for i in load_instances(tmp_path)}
    wrong = {key: (hr, parsed.get(key)) for key, hr in heart.items() if parsed.get(key) != hr}
    assert heart and not wrong, list(wrong.items())[:5]
