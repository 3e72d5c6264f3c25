"""The leak audit (issue 29): each family's rule finds the gold answer where it is planted and
nothing in plain inputs; every build writes ``leak_audit.jsonl`` and counts into its manifest;
``admitdx build`` prints one warning line when anything was found."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa

from admitdx.runs import read_manifest, write_manifest
from admitdx.tasks.dataset_writer import InstanceWriter, instance_schema
from admitdx.tasks.leak_audit import LEAK_AUDIT_FILE, rule_for, warning_line


def _record(task: str, sections: dict[str, str | None], **kw: Any) -> dict[str, Any]:
    return {
        "id": f"{task}-1", "subject_id": 1, "task": task, "split": "test", "sections": sections,
        "text": "", "references": [], "meta": {"age": 60}, "history": None, "hadm_id": None, "stay_id": None,
        "t0": None, **kw,
    }  # fmt: skip


def _found(record: dict[str, Any]) -> list[tuple[str, str, str]]:
    rule = rule_for(record["task"])
    assert rule is not None
    text = {**record["sections"], "history": record.get("history")}
    return [(field, name, text[field][s:e]) for field, name, s, e in rule(record)]


def test_erreason_gold_title_code_and_category() -> None:
    refs = [
        {"text": "NSTEMI", "code": "I21.4", "ed_title": "Non-ST elevation (NSTEMI) myocardial infarction"}
    ]
    hpi = "HPI: chest pain. Troponin up, c/w NON-ST ELEVATION (NSTEMI)  myocardial infarction; code I214."
    found = _found(
        _record(
            "er-reason-release-diagnosis",
            {"ed_presentation": hpi, "chief_complaint": "Chest pain"},
            references=refs,
        )
    )
    assert ("ed_presentation", "gold_code", "I214") in found
    assert ("ed_presentation", "gold_title", "NON-ST ELEVATION (NSTEMI)  myocardial infarction") in found
    assert ("ed_presentation", "gold_title", "NSTEMI") in found  # the reference's text too
    assert (
        _found(
            _record("er-reason-release-diagnosis", {"ed_presentation": "HPI: chest pain."}, references=refs)
        )
        == []
    )
    # MIMIC's digits-only ICD-9 code only in its dotted form: a bare number is a lab value
    icd9 = [{"text": "CHF NOS", "code": "4280", "ed_title": "CHF NOS"}]
    labs = "BNP 4280, see 428.0 in the chart"
    assert [f[2] for f in _found(_record("er-reason-diagnosis", {"labs": labs}, references=icd9))] == [
        "428.0"
    ]
    home = _record("er-reason-disposition", {"ed": "Disposition: home. Home meds: none"}, target="HOME")
    assert [f[2] for f in _found(home)] == ["home", "Home"]
    assert _found(_record("er-reason-disposition", {"arrival": "OTHER"}, target="OTHER")) == []


def test_erreason_disposition_lexicon_spares_the_note_headers() -> None:
    notes = "[Discharge Summary, 2019]\nHe was [redacted] home.\n\n[Progress Note]\nPlan: transfer to SNF"
    record = _record("er-reason-release-disposition", {"previous_notes": notes}, target="Discharge")
    assert [(f, r, s) for f, r, s in _found(record)] == [
        ("previous_notes", "disposition_lexicon", "transfer"),
        ("previous_notes", "disposition_lexicon", "SNF"),
    ]
    diagnosis = _record("er-reason-release-diagnosis", {"previous_notes": notes})
    assert _found(diagnosis) == []  # the lexicon is the disposition task's rule only


def test_clinibench_discharge_headings_in_collapsed_sections() -> None:
    exam = "ADMISSION EXAM: VS 98.1 HR 80. Lungs clear. DISCHARGE PHYSICAL EXAM: VS 98.4, lungs clear"
    hpi = "Came in with cough. Discharge Medications: aspirin 81 mg daily."
    found = _found(_record("clinibench", {"physical_exam": exam, "history_of_present_illness": hpi}))
    assert ("physical_exam", "discharge_heading", "DISCHARGE PHYSICAL EXAM:") in found
    assert ("history_of_present_illness", "discharge_heading", "Discharge Medications:") in found
    plain = _record("clinibench", {"past_medical_history": "HTN, DM2. Prior admission for CHF in 2150."})
    assert _found(plain) == []


def test_earlydx_stamps_after_t0() -> None:
    record = _record(
        "earlydx",
        {"radiology": "CXR 2150-01-01 11:59: clear. CT 2150-01-01 12:30: PE. Echo 2150-01-02."},
        history="Prior visit 2149-12-01; OMR 2150-01-01",
        t0="2150-01-01 12:00:00",
    )
    assert _found(record) == [
        ("radiology", "after_t0", "2150-01-01 12:30"),
        ("radiology", "after_t0", "2150-01-02"),
    ]


def _write(out: Path, records: list[dict[str, Any]]) -> None:
    writer = InstanceWriter(out, instance_schema(("ed_presentation",), (("age", pa.int64()),), target=True))
    for r in records:
        writer.write(r)
    write_manifest(writer.staging, stage="build test", inputs={}, outputs={"files": ["instances.jsonl"]})
    writer.commit()


def test_every_build_writes_the_audit_and_its_counts(tmp_path: Path) -> None:
    leaky = _record(
        "er-reason-release-disposition", {"ed_presentation": "HPI: cough. Dispo: SNF"}, target="Admit"
    )
    clean = {
        **_record("er-reason-release-disposition", {"ed_presentation": "HPI: cough."}, target="Admit"),
        "id": "x-2",
    }
    _write(tmp_path / "a", [leaky, clean])
    lines = [json.loads(line) for line in (tmp_path / "a" / LEAK_AUDIT_FILE).read_text().splitlines()]
    assert lines == [
        {"instance": leaky["id"], "field": "ed_presentation", "rule": "disposition_lexicon", "start": 12,
         "end": 22, "span": "Dispo: SNF"},
    ]  # fmt: skip
    outputs = (read_manifest(tmp_path / "a") or {})["outputs"]
    assert outputs["files"] == ["instances.jsonl", LEAK_AUDIT_FILE]
    assert outputs["leak_audit"] == {
        "instances_audited": 2, "instances_with_findings": 1, "findings": 1,
        "by_rule": {"disposition_lexicon": 1}, "by_field": {"ed_presentation": 1},
    }  # fmt: skip
    line = warning_line(tmp_path / "a")
    assert line is not None and line.startswith("leak audit: 1 possible answer spans in 1 of 2 instances")
    _write(tmp_path / "b", [clean])
    assert (tmp_path / "b" / LEAK_AUDIT_FILE).read_text() == "" and warning_line(tmp_path / "b") is None


def test_the_browser_marks_the_audit_spans(tmp_path: Path) -> None:
    from admitdx.report.leak_marks import leak_spans, marked

    leaky = _record("er-reason-release-disposition", {"ed_presentation": "<b> Dispo: SNF"}, target="Admit")
    _write(tmp_path / "d", [leaky])
    spans = leak_spans(tmp_path / "d")
    assert spans == {leaky["id"]: {"ed_presentation": [(4, 14)]}}
    html = marked("<b> Dispo: SNF", spans[leaky["id"]]["ed_presentation"])
    assert str(html) == '&lt;b&gt; <mark class="leak">Dispo: SNF</mark>'
    assert str(marked("a < b", None)) == "a &lt; b" and leak_spans(tmp_path / "none") == {}


def test_build_warns_once_when_the_audit_finds_the_answer(tmp_path: Path) -> None:
    """A release build: clean by default; with ``--uncut-notes whole`` each note without a cut
    heading is shown whole, its diagnosis too — the audit finds every one and `build` warns once."""
    import csv

    from typer.testing import CliRunner

    from admitdx.cli import app
    from admitdx.synthetic.erreason import generate_release
    from admitdx.synthetic.erreason.generate import TRUTH_DIR, TRUTH_FILE

    release = generate_release(tmp_path / "release", encounters=150, seed=4)
    with (release / TRUTH_DIR / TRUTH_FILE).open(newline="") as f:
        whole = {r["encounterkey"] for r in csv.DictReader(f) if r["note_layout"] == "no_heading"}
    assert whole  # the fixture's premise: some notes have no heading to cut at
    runs = {}
    for name, extra in (("default", []), ("whole", ["--uncut-notes", "whole"])):
        args = ["build", "er-reason-release-diagnosis", "--erreason", str(release)]
        result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / name), *extra])
        assert result.exit_code == 0, result.output
        runs[name] = " ".join(result.output.split())
    assert "leak audit" not in runs["default"]
    assert runs["whole"].count("warning: leak audit:") == 1
    findings = [json.loads(line) for line in (tmp_path / "whole" / LEAK_AUDIT_FILE).read_text().splitlines()]
    assert {f["instance"].rsplit("-", 1)[1] for f in findings} == whole
    assert {(f["field"], f["rule"]) for f in findings} == {("ed_presentation", "gold_title")}
