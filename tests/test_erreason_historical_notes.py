"""ER-Reason's previous notes (issue 29): the data card calls them historical and dates each by
year, so a note dated after the visit is refused (left out, counted; `data check` reports it) and
a note of the visit's year is kept; the disposition task redacts them too, their headers kept."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import load_instances
from admitdx.sources.erreason import ENCOUNTERS_FILE, PREVIOUS_NOTE_TYPES, note_dating, year_of
from admitdx.synthetic.erreason import generate_release
from admitdx.tasks.erreason.disposition_lexicon import disposition_spans

RUNNER = CliRunner()


@pytest.fixture(scope="module")
def dated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A synthetic release whose first discharge summaries are dated after the visit (refused),
    the next ones in the visit's year (kept); the rest a year before, as generated."""
    root = generate_release(tmp_path_factory.mktemp("dated") / "er-reason", encounters=120, seed=11)
    path = root / ENCOUNTERS_FILE
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        fields, rows = list(reader.fieldnames or []), list(reader)
    edits: dict[str, str] = {}
    for row in (r for r in rows if r["Discharge_Summary_Text"].strip()):
        visit = int(row["ArrivalYearKey"])
        if len(edits) < 6:
            row["Discharge_Summary_Year"], edits[row["encounterkey"]] = str(visit + 1), "after"
        elif len(edits) < 9:
            row["Discharge_Summary_Year"], edits[row["encounterkey"]] = f"{visit}.0", "same"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return root, edits


def _build(root: Path, out: Path, task: str) -> Path:
    args = ["build", f"er-reason-release-{task}", "--erreason", str(root), "--out", str(out)]
    result = RUNNER.invoke(app, [*args, "--test-fraction", "1.0"])
    assert result.exit_code == 0, result.output
    return out


def test_years_are_read_as_the_release_writes_them() -> None:
    assert [year_of(v) for v in ("2019", "2019.0", "20190314", " 2019 ", "", None, "19", "n/a")] == [
        2019, 2019, 2019, 2019, None, None, None, None,
    ]  # fmt: skip
    row = {"ArrivalYearKey": "2019", "Echo_Year": "2020", "ECG_Year": "2019", "Imaging_Year": ""}
    assert [note_dating(row, t) for t in ("Echo", "ECG", "Imaging")] == ["after_visit", "kept", "unknown"]


def test_a_note_after_the_visit_is_refused_and_counted(
    dated: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    root, edits = dated
    out = _build(root, tmp_path / "dx", "diagnosis")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["outputs"]["counts"]["previous_notes_refused_after_visit"] == 6
    for inst in load_instances(out):
        notes = inst.sections.get("previous_notes") or ""
        edit = edits.get(inst.meta["encounterkey"])
        if edit == "after":
            assert "[Discharge Summary" not in notes, inst.id
        if edit == "same":  # kept, its year shown without pandas' ".0"
            assert re.search(r"^\[Discharge Summary, \d{4}\]$", notes, re.M), inst.id
    one_liner = _build(root, tmp_path / "ol", "one-liner")
    keys = {i.meta["encounterkey"] for i in load_instances(one_liner)}
    assert not keys & {k for k, e in edits.items() if e == "after"}  # its only note was refused
    assert {k for k, e in edits.items() if e == "same"} <= keys


def test_data_check_reports_notes_after_the_visit(dated: tuple[Path, dict[str, str]]) -> None:
    result = RUNNER.invoke(app, ["data", "check", "--erreason", str(dated[0]), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["previous_notes_after_visit"] == 6 and summary["previous_notes_year_unknown"] == 0


def test_disposition_redacts_previous_notes_and_keeps_their_headers(
    dated: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    out = _build(dated[0], tmp_path / "dispo", "disposition")
    headers = [f"[{t.replace('_', ' ')}" for t in PREVIOUS_NOTE_TYPES]
    seen_redacted = 0
    for inst in load_instances(out):
        notes = inst.sections.get("previous_notes") or ""
        body = "\n".join(line for line in notes.splitlines() if not any(line.startswith(h) for h in headers))
        assert disposition_spans(body) == [], inst.id
        seen_redacted += "[redacted]" in notes
    assert seen_redacted > 0  # the synthetic summaries do say "discharged"
    audit = json.loads((out / "manifest.json").read_text())["outputs"]["leak_audit"]
    assert audit["by_rule"].get("disposition_lexicon", 0) == 0
