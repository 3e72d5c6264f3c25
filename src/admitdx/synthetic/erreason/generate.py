"""``generate_release(out_dir, encounters, seed)``: a synthetic ER-Reason release written to the
data card — ``er_reason.csv`` with the card's 46 columns in its order and spelling (integers
written as integers, a missing value as an empty field) and ``icd_10_codes.csv`` with the README's
four columns — so every ER-Reason task can be built and tested without credentials.

One encounter per patient draw (about one in ten reuses an earlier patient's durable key). Every
encounter has a current ED provider note, in one of the layouts of :mod:`.facts` with its triage
vitals in one of four layouts; its HPI opens with the one-liner (``One_Sentence_Extracted`` is that
sentence, as in the release). Previous notes, rationales and the order of the code rows follow
:mod:`.facts`. ``_truth/truth.csv`` records what each encounter was generated with (ESI,
disposition, main code, vitals, layouts). Same seed → identical files.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path
from typing import Any

from admitdx.runs import staged_dir
from admitdx.sources.erreason import (
    ACUITY_LEVELS,
    CODE_COLUMNS,
    CODES_FILE,
    DATA_CARD_COLUMNS,
    ENCOUNTERS_FILE,
    PREVIOUS_NOTE_TYPES,
    note_key_column,
)
from admitdx.synthetic.erreason import facts
from admitdx.synthetic.erreason.notes import (
    NoteFacts,
    Vitals,
    discharge_summary,
    provider_note,
    short_note,
    triage_vitals,
)
from admitdx.synthetic.erreason.presentations import HISTORY, LANGUAGES, PRESENTATIONS, RACES, Presentation

EDUCATION = ("High School", "College", "")
MARITAL = ("Single", "Married", "Widowed")
TRUTH_DIR = "_truth"
TRUTH_FILE = "truth.csv"
TRUTH_COLUMNS = (
    "encounterkey", "presentation", "esi", "disposition", "main_code", "main_first",
    "temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp", "has_rationale",
    "note_layout", "vitals_layout",
)  # fmt: skip


def _pick(rng: random.Random, shares: dict[str, float]) -> str:
    return rng.choices(list(shares), weights=list(shares.values()))[0]


def _vitals(rng: random.Random, p: Presentation) -> Vitals:
    t, hr, rr, spo2, sbp, dbp = p.vitals
    return Vitals(
        round(t + rng.uniform(-0.6, 0.6), 1), round(hr + rng.uniform(-8, 8)), round(rr + rng.uniform(-2, 2)),
        min(100, round(spo2 + rng.uniform(-2, 2))), round(sbp + rng.uniform(-10, 10)),
        round(dbp + rng.uniform(-6, 6)),
    )  # fmt: skip


def _previous_notes(
    rng: random.Random, row: dict[str, Any], key: int, age: int, sex: str, history: list[str]
) -> int:
    count = 1
    for kind in PREVIOUS_NOTE_TYPES:
        share = (
            facts.DISCHARGE_SUMMARY_SHARE if kind == "Discharge_Summary" else facts.OTHER_PREVIOUS_NOTE_SHARE
        )
        if rng.random() < share:
            count += 1
            text = (
                discharge_summary(age=age - 1, sex=sex.lower(), history=history, reason=rng.choice(HISTORY))
                if kind == "Discharge_Summary"
                else short_note(kind.replace("_", " "), history)
            )
            row[f"{kind}_Text"], row[f"{kind}_Year"] = text, facts.YEAR - 1
            row[note_key_column(kind)] = key * 10 + count
    return count


def _encounter(rng: random.Random, key: int, patient: int, rationale_share: float) -> tuple[dict, list, dict]:
    p = rng.choice(PRESENTATIONS)
    age, sex = rng.randint(18, 95), rng.choice(("Male", "Female"))
    history = rng.sample(HISTORY, rng.randint(0, 3))
    v = _vitals(rng, p)
    esi, disposition = rng.choice(p.esi), rng.choice(p.dispositions)
    pmh = f"h/o {', '.join(history)}" if history else "no significant past medical history"
    one_liner = f"{age} y.o. {sex.lower()} with {pmh} presenting with {p.complaint.lower()}."
    layout, vitals_layout = _pick(rng, facts.NOTE_LAYOUTS), _pick(rng, facts.VITALS_LAYOUTS)
    note = provider_note(
        NoteFacts(
            one_liner=one_liner, complaint=p.complaint, vitals=triage_vitals(v, vitals_layout), exam=p.exam,
            assessment=p.assessment, course=p.course, diagnosis_title=p.codes[0][1], disposition=disposition,
            mdm_heading=rng.choice(facts.MDM_HEADINGS),
        ),
        layout,
    )  # fmt: skip
    row: dict[str, Any] = dict.fromkeys(DATA_CARD_COLUMNS, "")
    row.update(
        patientdurablekey=patient, encounterkey=key, primarychiefcomplaintname=p.complaint,
        primaryeddiagnosisname=p.codes[0][1], sex=sex, firstrace=rng.choice(RACES),
        preferredlanguage=rng.choice(LANGUAGES), highestlevelofeducation=rng.choice(EDUCATION),
        maritalstatus=rng.choice(MARITAL), Age=age, acuitylevel=ACUITY_LEVELS[esi - 1],
        eddisposition=disposition, ArrivalYearKey=facts.YEAR, DepartureYearKeyValue=facts.YEAR,
        DepartureYearKey=facts.YEAR, DispositionYearKeyValue=facts.YEAR, birthYear=facts.YEAR - age,
        ED_Provider_Notes_Text=note, ED_Provider_Notes_Year=facts.YEAR, ED_Provider_Notes_Key=key * 10,
        One_Sentence_Extracted=one_liner,
    )  # fmt: skip
    row["note_count"] = _previous_notes(rng, row, key, age, sex, history)
    rationale = rng.random() < rationale_share
    if rationale:
        row.update(Rule_Out=p.rule_out, Decision_Factors=p.decision_factors, Treatment_Plan=p.treatment_plan)
    codes = [(patient, key, code, name) for code, name in p.codes]
    main_first = len(codes) == 1 or rng.random() >= facts.MAIN_NOT_FIRST_SHARE
    if not main_first:
        codes = [*codes[1:], codes[0]]
    values = (key, p.key, esi, disposition, p.codes[0][0], int(main_first), v.temperature, v.heartrate,
              v.resprate, v.o2sat, v.sbp, v.dbp, int(rationale), layout, vitals_layout)  # fmt: skip
    return row, codes, dict(zip(TRUTH_COLUMNS, values, strict=True))


def generate_release(
    out_dir: Path,
    encounters: int = 400,
    seed: int = 0,
    rationale_share: float = facts.RATIONALE_SHARE_DEFAULT,
) -> Path:
    """Write a synthetic release of ``encounters`` encounters as ``out_dir``; return it. The release
    is written aside and its folder renamed into place whole (it has no manifest a reader could
    check it against, so a killed run must not leave a short one that ``data check`` and ``build``
    accept); the folder it replaces, if any, goes with it."""
    with staged_dir(Path(out_dir)) as staged:
        _write_release(staged, encounters, seed, rationale_share)
    return Path(out_dir)


def _write_release(out: Path, encounters: int, seed: int, rationale_share: float) -> None:
    (out / TRUTH_DIR).mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    patients: list[int] = []
    with (
        (out / ENCOUNTERS_FILE).open("w", newline="", encoding="utf-8") as enc_f,
        (out / CODES_FILE).open("w", newline="", encoding="utf-8") as codes_f,
        (out / TRUTH_DIR / TRUTH_FILE).open("w", newline="", encoding="utf-8") as truth_f,
    ):
        enc = csv.DictWriter(enc_f, fieldnames=list(DATA_CARD_COLUMNS), lineterminator="\n")
        codes = csv.writer(codes_f, lineterminator="\n")
        truth = csv.DictWriter(truth_f, fieldnames=list(TRUTH_COLUMNS), lineterminator="\n")
        enc.writeheader()
        codes.writerow(CODE_COLUMNS)
        truth.writeheader()
        for i in range(encounters):
            returning = patients and rng.random() < facts.RETURNING_SHARE
            patient = rng.choice(patients) if returning else 5_000_000 + i
            patients.append(patient)
            row, code_rows, truth_row = _encounter(rng, 9_000_000 + i, patient, rationale_share)
            enc.writerow(row)
            codes.writerows(code_rows)
            truth.writerow(truth_row)
