"""``generate_release(out_dir, encounters, seed)``: a synthetic ER-Reason release.

One encounter per patient draw (a patient may return: about one in ten encounters reuses an
earlier patient's durable key). Every encounter has a current ED provider note whose HPI opens
with the one-liner (``One_Sentence_Extracted`` is that sentence, as in the release); previous
notes exist for about 80 % (a discharge summary) and at random for the other types; the physician
rationales (``Rule_Out``, ``Decision_Factors``, ``Treatment_Plan``) exist for ``rationale_share``
of encounters (the release has 72 of 3,984). ``_truth/truth.csv`` records the ESI, disposition,
main code and triage vitals each encounter was generated with. Same seed → identical files.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path
from typing import Any

from admitdx.sources.erreason import (
    ACUITY_LEVELS,
    CODE_COLUMNS,
    CODES_FILE,
    ENCOUNTER_COLUMNS,
    ENCOUNTERS_FILE,
    PREVIOUS_NOTE_TYPES,
    note_key_column,
)
from admitdx.synthetic.erreason.notes import discharge_summary, provider_note, short_note, triage_line
from admitdx.synthetic.erreason.presentations import HISTORY, LANGUAGES, PRESENTATIONS, RACES

TRUTH_DIR = "_truth"
TRUTH_FILE = "truth.csv"
TRUTH_COLUMNS = (
    "encounterkey", "presentation", "esi", "disposition", "main_code",
    "temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp", "has_rationale",
)  # fmt: skip


def _encounter(rng: random.Random, key: int, patient: int, rationale_share: float) -> tuple[dict, list, dict]:
    p = rng.choice(PRESENTATIONS)
    age = rng.randint(18, 95)
    sex = rng.choice(("Male", "Female"))
    history = rng.sample(HISTORY, rng.randint(0, 3))
    t, hr, rr, spo2, sbp, dbp = p.vitals
    v = (round(t + rng.uniform(-0.6, 0.6), 1), round(hr + rng.uniform(-8, 8)), round(rr + rng.uniform(-2, 2)),
         min(100, round(spo2 + rng.uniform(-2, 2))), round(sbp + rng.uniform(-10, 10)),
         round(dbp + rng.uniform(-6, 6)))  # fmt: skip
    esi = rng.choice(p.esi)
    disposition = rng.choice(p.dispositions)
    pmh = f"h/o {', '.join(history)}" if history else "no significant past medical history"
    one_liner = f"{age} y.o. {sex.lower()} with {pmh} presenting with {p.complaint.lower()}."
    note = provider_note(
        one_liner=one_liner, complaint=p.complaint, vitals=triage_line(*v), exam=p.exam,
        assessment=p.assessment, course=p.course, disposition=disposition,
    )  # fmt: skip
    row: dict[str, Any] = dict.fromkeys(ENCOUNTER_COLUMNS, "")
    row.update(
        patientdurablekey=str(patient), encounterkey=str(key), primarychiefcomplaintname=p.complaint,
        primaryeddiagnosisname=p.codes[0][1], sex=sex, firstrace=rng.choice(RACES),
        preferredlanguage=rng.choice(LANGUAGES), Age=str(age), acuitylevel=ACUITY_LEVELS[esi - 1],
        eddisposition=disposition, highestlevelofeducation=rng.choice(("High School", "College", "")),
        maritalstatus=rng.choice(("Single", "Married", "Widowed")), birthYear=str(2023 - age),
        arrivalYearKey="2023", departureYearKey="2023", dispositionYearKey="2023",
        ED_Provider_Notes_Text=note, ED_Provider_Notes_Year="2023", ED_Provider_Notes_Key=f"N{key}E",
        One_Sentence_Extracted=one_liner,
    )  # fmt: skip
    count = 1
    for kind in PREVIOUS_NOTE_TYPES:
        share = 0.8 if kind == "Discharge_Summary" else 0.3
        if rng.random() < share:
            count += 1
            text = (
                discharge_summary(age=age - 1, sex=sex.lower(), history=history, reason=rng.choice(HISTORY))
                if kind == "Discharge_Summary"
                else short_note(kind.replace("_", " "), history)
            )
            row[f"{kind}_Text"], row[f"{kind}_Year"] = text, "2022"
            row[note_key_column(kind)] = f"N{key}{kind[:2]}"
    row["note_count"] = str(count)
    rationale = rng.random() < rationale_share
    if rationale:
        row.update(Rule_Out=p.rule_out, Decision_Factors=p.decision_factors, Treatment_Plan=p.treatment_plan)
    codes = [(str(patient), str(key), code, name) for code, name in p.codes]
    truth = dict(
        zip(TRUTH_COLUMNS, (key, p.key, esi, disposition, p.codes[0][0], *v, int(rationale)), strict=True)
    )
    return row, codes, truth


def generate_release(
    out_dir: Path, encounters: int = 400, seed: int = 0, rationale_share: float = 0.1
) -> Path:
    """Write a synthetic release of ``encounters`` encounters under ``out_dir``; return it."""
    out = Path(out_dir)
    (out / TRUTH_DIR).mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    patients: list[int] = []
    with (
        (out / ENCOUNTERS_FILE).open("w", newline="", encoding="utf-8") as enc_f,
        (out / CODES_FILE).open("w", newline="", encoding="utf-8") as codes_f,
        (out / TRUTH_DIR / TRUTH_FILE).open("w", newline="", encoding="utf-8") as truth_f,
    ):
        enc = csv.DictWriter(enc_f, fieldnames=list(ENCOUNTER_COLUMNS), lineterminator="\n")
        codes = csv.writer(codes_f, lineterminator="\n")
        truth = csv.DictWriter(truth_f, fieldnames=list(TRUTH_COLUMNS), lineterminator="\n")
        enc.writeheader()
        codes.writerow(CODE_COLUMNS)
        truth.writeheader()
        for i in range(encounters):
            returning = patients and rng.random() < 0.1
            patient = rng.choice(patients) if returning else 5_000_000 + i
            patients.append(patient)
            row, code_rows, truth_row = _encounter(rng, 9_000_000 + i, patient, rationale_share)
            enc.writerow(row)
            codes.writerows(code_rows)
            truth.writerow(truth_row)
    return out
