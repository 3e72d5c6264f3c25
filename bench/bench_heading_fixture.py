"""Plant every row of a heading fixture into notes and count what the cutters let through (issue 29).

A fixture row (``tests/data/blind/headings/*.jsonl``) is a heading spelling in a layout, with one
``{BODY}`` placeholder, a task (``clinibench`` | ``erreason``), a role and ``expect``: ``withhold``
(discharge-time / post-presentation: nothing of it may reach the model) or ``keep``
(admission-time / presentation text, or a trap that only looks like a heading). Each row is
planted, with a unique marker as its body, into every host note below at every place its role
allows, and the note is cut by the task's reader:

* CliniBench: :func:`admitdx.tasks.clinibench.note.admission_note` on MIMIC-IV-Note-like
  discharge summaries (:data:`CB_HOSTS`); a discharge section after the HPI, after the past
  history, after the admission medications and after the admission exam; a discharge exam inside
  the physical exam; an admission section as the first of its kind, after the administrative
  fields and after a withheld section (:data:`CB_SECTION_HOSTS`); a trap in
  the HPI, the past history and the exam (run-on traps: at the end of an exam line).
* ER-Reason: :func:`admitdx.tasks.erreason.release_notes.presentation` on Epic-like ED provider
  notes (:data:`ER_HOSTS`), whose decision part holds the gold title; a post-presentation heading
  right after the exam (run-on: on the exam's last line); a presentation section after the HPI
  and after the ROS; a trap in the HPI and in the exam.

Counted: **leaks** (a withhold row's marker in the model's input; ER-Reason also the gold title),
**false cuts** (a keep row's marker lost, or its ER-Reason instance left out), and **admission
characters lost**: of each host section's own text, what the planted note's output no longer
holds (common prefix + suffix against the unplanted host's output), over all plantings.

    python bench/bench_heading_fixture.py tests/data/blind/headings/headings_blind.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from admitdx.tasks.clinibench.note import admission_note
from admitdx.tasks.erreason.release_notes import presentation

GOLD = "Zygomycotic Gold Pneumonitis"

#: Discharge summaries in MIMIC-IV-Note's template, with the slots a row is planted at.
CB_HOSTS = (
    "Name:  ___                 Unit No:   ___\n \nAdmission Date:  ___   Discharge Date:   ___\n \n"
    "Date of Birth:  ___             Sex:   F\n \nService: MEDICINE\n \nAllergies: \nPenicillins\n \n"
    "Attending: ___.\n \nChief Complaint:\nshortness of breath\n \n"
    "Major Surgical or Invasive Procedure:\nnone\n \n\n"
    "History of Present Illness:\nMs. ___ is a 67 yo woman with CHF (EF 35%) and COPD who presents with two"
    " days of worsening dyspnea and orthopnea.\n{HPI}She reports medication adherence and a salty meal on"
    " ___.\nIn the ED, initial VS 98.4 96 142/80 22 91% RA. Given furosemide 40 mg IV.\n{AFTER_HPI}\n"
    "Past Medical History:\n- CHF, EF 35%\n{PMH}- COPD on 2L home O2\n- Hypertension\n{AFTER_PMH}\n"
    "Social History:\n___\nFamily History:\nMother with CAD.\n{AFTER_SH}\n"
    "Physical Exam:\nADMISSION PHYSICAL EXAM:\nVS: 98.4 96 142/80 22 91% RA\nGEN: mild distress\n"
    "{EXAM}Lungs: crackles to mid lung fields bilaterally\nExt: 2+ pitting edema to knees{EXAM_LINE}\n"
    "{IN_EXAM}\n{AFTER_EXAM}\n"
    "Pertinent Results:\nADMISSION LABS:\n___ 07:10PM BLOOD WBC-8.1 proBNP-8123\n \n"
    "Medications on Admission:\nThe Preadmission Medication list is accurate and complete.\n"
    "1. Furosemide 40 mg PO DAILY\n2. Tiotropium 18 mcg IH DAILY\n{AFTER_MEDS}\n"
    "Discharge Medications:\n1. Furosemide 60 mg PO DAILY\n \nDischarge Disposition:\nHome\n \n"
    "Discharge Diagnosis:\n" + GOLD + "\n \nDischarge Condition:\nstable\n \n"
    "Followup Instructions:\n___\n",
    "Name:  ___                 Unit No:   ___\n \nAllergies: \nNo Known Allergies / Adverse Drug Reactions\n"
    " \nChief Complaint:\nabdominal pain\n \nMajor Surgical or Invasive Procedure:\nlaparoscopic"
    " cholecystectomy\n \nHistory of Present Illness:\n45M with RUQ pain for 3 days after fatty meals.\n"
    "{HPI}Seen at urgent care, then sent in; US showed gallstones.\n{AFTER_HPI}\n"
    "Past Medical History:\nObesity, GERD\n{PMH}Past Surgical History:\nappendectomy\n{AFTER_PMH}\n"
    "Social History:\n___\nFamily History:\nnoncontributory\n{AFTER_SH}\n"
    "Physical Exam:\nVitals: T 100.9 HR 104 BP 130/85\nGeneral: uncomfortable\n{EXAM}"
    "Abdomen: RUQ tenderness, + Murphy sign{EXAM_LINE}\n{IN_EXAM}\n{AFTER_EXAM}\n"
    "Medications on Admission:\nomeprazole 20 mg daily\n{AFTER_MEDS}\n"
    "Brief Hospital Course:\nUnderwent lap chole on HD2 for " + GOLD + ".\n \n"
    "Discharge Medications:\n1. oxycodone\n \nDischarge Disposition:\nHome\n \nDischarge Diagnosis:\n"
    + GOLD
    + "\n \nDischarge Condition:\ngood\n \nDischarge Instructions:\ncall if fever\n",
)

#: Epic ED provider notes; the decision part (after the exam) names the gold title.
ER_HOSTS = (
    "ED Provider Note\nChief Complaint: chest pain\nHistory of Present Illness: 58M with substernal"
    " chest pain since this morning, radiating to the left arm.\n{HPI}Took aspirin at home.\n{AFTER_HPI}\n"
    "Review of Systems:\nNegative except as in HPI.\n{AFTER_ROS}\n"
    "Past Medical History: hypertension, hyperlipidemia\nAllergies: NKDA\n\n"
    "ED Triage Vitals\nBP: 160/95 | Pulse: 102 | Temp: 37.0 °C (98.6 °F) | Resp: 18 | SpO2: 97 %\n\n"
    "Physical Exam:\nConstitutional: anxious.\nCardiovascular: tachycardic, regular rhythm.\n{EXAM}"
    "Abdomen: soft, nontender.{EXAM_LINE}\n{AFTER_EXAM}\n"
    "Medical Decision Making:\nConcern for " + GOLD + ". Troponin pending.\n\nED Course:\nReassessed.\n\n"
    "Final Disposition\nClinical Impression:\n1. " + GOLD + "\nED Disposition: Admit\n",
    "ED Provider Note\nChief Complaint: fever\nHistory of Present Illness: 30F with fever and dysuria for"
    " two days.\n{HPI}No vomiting.\n{AFTER_HPI}\nReview of Systems:\nPositive for fever.\n{AFTER_ROS}\n"
    "Triage Vitals: T 101.2 F, HR 110, RR 20, BP 110/70, SpO2 98%\n\n"
    "Physical Exam: Gen: ill appearing. {EXAM}Back: CVA tenderness on the right.{EXAM_LINE}\n"
    "{AFTER_EXAM}\nAssessment and Plan: " + GOLD + ", start ceftriaxone.\n"
    "Final Disposition and ED Course: improved. Disposition: Admit.\n",
)

#: Hosts for an admission section: the first of its kind (a repeated section is dropped as the
#: discharge exam's second "Physical Exam:" would be), after the administrative fields and after a
#: withheld section.
CB_SECTION_HOSTS = (
    "Name:  ___   Unit No:  ___\n \nAdmission Date:  ___\n \n{AFTER_HPI}\n \nBrief Hospital Course:\n"
    + GOLD
    + "\n",
    "Name:  ___\n \nPertinent Results:\nWBC 8.1\n \n{AFTER_HPI}\n \nDischarge Medications:\n1. aspirin\n",
)
SLOTS = ("{HPI}", "{AFTER_HPI}", "{PMH}", "{AFTER_PMH}", "{AFTER_SH}", "{EXAM}", "{EXAM_LINE}",
         "{IN_EXAM}", "{AFTER_EXAM}", "{AFTER_MEDS}", "{AFTER_ROS}")  # fmt: skip
#: Where each role is planted, by layout kind (run-on rows go on the end of a line).
CB_PLACES = {
    "discharge_section": ("{AFTER_HPI}", "{AFTER_PMH}", "{AFTER_MEDS}", "{AFTER_EXAM}"),
    "discharge_exam": ("{IN_EXAM}",),
    "admission_section": ("{AFTER_HPI}",),
    "admission_trap": ("{HPI}", "{PMH}", "{EXAM}"),
}
ER_PLACES = {
    "post_presentation": ("{AFTER_EXAM}",),
    "presentation_section": ("{AFTER_HPI}", "{AFTER_ROS}"),
    "presentation_trap": ("{HPI}", "{EXAM}"),
}


def _fill(host: str, slot: str, block: str) -> str:
    """The host with ``block`` at ``slot`` (a line of its own, or run on at the end of a line)."""
    text = host.replace(slot, block if slot == "{EXAM_LINE}" else block + "\n")
    for s in SLOTS:
        text = text.replace(s, "")
    return text


def _places(row: dict[str, str], table: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    if row["layout"] == "run_on":
        return ("{EXAM_LINE}",)
    return table[row["role"]]


def _lost(base: str | None, planted: str | None) -> int:
    """Characters of ``base`` that ``planted`` no longer holds (common prefix + suffix)."""
    if not base:
        return 0
    planted = planted or ""
    pre = 0
    while pre < min(len(base), len(planted)) and base[pre] == planted[pre]:
        pre += 1
    suf = 0
    while suf < min(len(base), len(planted)) - pre and base[-1 - suf] == planted[-1 - suf]:
        suf += 1
    return max(0, len(base) - pre - suf)


def _plantings(
    rows: list[dict[str, str]], hosts: tuple[str, ...], places: dict[str, tuple[str, ...]]
) -> Iterator[tuple[dict[str, str], str, str, str, str]]:
    """Every (row, host, slot, planted note, marker)."""
    n = 0
    for row in rows:
        for host in CB_SECTION_HOSTS if row["role"] == "admission_section" else hosts:
            for slot in _places(row, places):
                n += 1
                marker = f"Zqxmark{n}q"
                yield (
                    row,
                    host,
                    slot,
                    _fill(host, slot, row["text"].replace("{BODY}", f"{marker} noted")),
                    marker,
                )


def measure(rows: list[dict[str, str]], task: str) -> dict[str, object]:
    """The leak, false-cut and lost-character counts of one task's rows (module docstring)."""
    rows = [r for r in rows if r["task"] == task]
    hosts, places = (CB_HOSTS, CB_PLACES) if task == "clinibench" else (ER_HOSTS, ER_PLACES)
    cut: Callable[[str], dict[str, str | None]]
    if task == "clinibench":

        def cut(text: str) -> dict[str, str | None]:
            return dict(admission_note(text).sections)
    else:

        def cut(text: str) -> dict[str, str | None]:
            return {"presentation": presentation(text)}

    base = {host: cut(_fill(host, "{NONE}", "")) for host in (*hosts, *CB_SECTION_HOSTS)}
    leaked_rows: Counter[str] = Counter()
    false_rows: Counter[str] = Counter()
    plantings = leaks = false_cuts = gold = left_out = lost = total = 0
    for row, host, _slot, text, marker in _plantings(rows, hosts, places):
        plantings += 1
        out = cut(text)
        shown = "\n".join(v for v in out.values() if v)
        if task == "erreason" and out["presentation"] is None:
            left_out += 1
        if GOLD in shown:
            gold += 1
        if row["expect"] == "withhold" and marker in shown:
            leaks += 1
            leaked_rows[row["id"]] += 1
        if row["expect"] == "keep" and marker not in shown:
            false_cuts += 1
            false_rows[row["id"]] += 1
        for name, body in base[host].items():
            total += len(body or "")
            lost += _lost(body, out.get(name))
    withhold = sum(r["expect"] == "withhold" for r in rows)
    keep = len(rows) - withhold
    return {
        "task": task,
        "rows": len(rows),
        "plantings": plantings,
        "withhold_rows_leaking": f"{len(leaked_rows)}/{withhold}",
        "leaked_plantings": leaks,
        "keep_rows_cut": f"{len(false_rows)}/{keep}",
        "false_cut_plantings": false_cuts,
        "inputs_with_gold": gold,
        "left_out": left_out,
        "admission_chars_lost": f"{lost}/{total} ({100 * lost / max(total, 1):.2f} %)",
        "leaking_rows": sorted(leaked_rows),
        "cut_rows": sorted(false_rows),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fixture", type=Path, nargs="+", help="heading fixture(s), JSON lines")
    parser.add_argument("--rows", action="store_true", help="also print the ids of leaking and cut rows")
    args = parser.parse_args(argv)
    for path in args.fixture:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        for task in ("clinibench", "erreason"):
            result = measure(rows, task)
            ids = {k: result.pop(k) for k in ("leaking_rows", "cut_rows")}
            print(path.name, json.dumps(result, ensure_ascii=False))
            if args.rows:
                print("  leaking:", " ".join(ids["leaking_rows"]) or "-")
                print("  cut:    ", " ".join(ids["cut_rows"]) or "-")
    return 0


if __name__ == "__main__":
    sys.exit(main())
