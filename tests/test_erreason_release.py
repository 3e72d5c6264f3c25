"""ER-Reason on its release, tested on a synthetic release of the same shape (credentials not
needed): the loader's validation through `admitdx build` (exit 2 naming the culprit), the five
tasks' targets against the generator's truth, and that no target reaches a system."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import load_instances
from admitdx.sources.erreason import ACUITY_LEVELS, DISPOSITIONS, ENCOUNTERS_FILE, load_release
from admitdx.synthetic.erreason import generate_release
from admitdx.synthetic.erreason.generate import TRUTH_DIR, TRUTH_FILE
from test_erreason_mimic import _received  # the recording system through the real runner

RUNNER = CliRunner()
TASKS = ("acuity", "one-liner", "planning", "diagnosis", "disposition")


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_release(tmp_path_factory.mktemp("release") / "er-reason", encounters=400, seed=3)


@pytest.fixture(scope="module")
def truth(release: Path) -> dict[str, dict[str, str]]:
    with (release / TRUTH_DIR / TRUTH_FILE).open(newline="") as f:
        return {row["encounterkey"]: row for row in csv.DictReader(f)}


@pytest.fixture(scope="module")
def built(release: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("release-built")
    out = {}
    for task in TASKS:
        args = ["build", f"er-reason-release-{task}", "--erreason", str(release), "--out", str(base / task)]
        result = RUNNER.invoke(app, args)
        assert result.exit_code == 0, result.output
        out[task] = base / task
    return out


def _build_error(root: Path, tmp_path: Path) -> str:
    """`admitdx build` as a user runs it: exit 2, the culprit on stderr, no traceback."""
    args = ["build", "er-reason-release-acuity", "--erreason", str(root), "--out", str(tmp_path / "out")]
    cmd = [sys.executable, "-c", "from admitdx.cli import main; main()", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    return " ".join(done.stderr.split())


def _rewrite(release: Path, tmp_path: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad"
    bad.mkdir()
    for name in ("er_reason.csv", "icd_10_codes.csv"):
        (bad / name).write_bytes((release / name).read_bytes())
    with (release / ENCOUNTERS_FILE).open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    fields = edit(rows)
    with (bad / ENCOUNTERS_FILE).open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return bad


def test_missing_file_is_named(release: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "er_reason.csv").write_bytes((release / "er_reason.csv").read_bytes())
    assert "lacks icd_10_codes.csv" in _build_error(bad, tmp_path)


def test_missing_column_is_named(release: Path, tmp_path: Path) -> None:
    def drop(rows: list[dict[str, str]]) -> list[str]:
        for r in rows:
            del r["acuitylevel"]
        return list(rows[0])

    assert "lacks the column(s) acuitylevel" in _build_error(_rewrite(release, tmp_path, drop), tmp_path)


@pytest.mark.parametrize(("column", "value"), [("acuitylevel", "Urgentish"), ("eddisposition", "Home")])
def test_bad_value_is_named(release: Path, tmp_path: Path, column: str, value: str) -> None:
    def spoil(rows: list[dict[str, str]]) -> list[str]:
        rows[2][column] = value
        return list(rows[0])

    message = _build_error(_rewrite(release, tmp_path, spoil), tmp_path)
    assert f"{column} '{value}' is not one of" in message and f"column {column}, row 3" in message


def test_targets_match_the_generators_truth(built: dict[str, Path], truth: dict[str, dict[str, str]]) -> None:
    acuity = load_instances(built["acuity"])
    assert len(acuity) == 400
    for inst in acuity:
        t = truth[inst.meta["encounterkey"]]
        assert inst.target == ACUITY_LEVELS[int(t["esi"]) - 1]
        for name in ("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp"):
            assert inst.meta[f"triage_{name}"] == pytest.approx(float(t[name]))  # parsed from the note
    disposition = load_instances(built["disposition"])
    assert Counter(i.target for i in disposition) == Counter(t["disposition"] for t in truth.values())
    diagnosis = load_instances(built["diagnosis"])
    assert all(i.references[0].code == truth[i.meta["encounterkey"]]["main_code"] for i in diagnosis)
    planning = load_instances(built["planning"])
    assert len(planning) == sum(t["has_rationale"] == "1" for t in truth.values()) > 0
    assert all(set(i.target) == {"rule_out", "decision_factors", "treatment_plan"} for i in planning)  # type: ignore[arg-type]
    one_liner = load_instances(built["one-liner"])
    assert 0 < len(one_liner) < 400  # only encounters with a previous discharge summary


def test_no_target_reaches_a_system(built: dict[str, Path], release: Path, tmp_path: Path) -> None:
    rows = {r["encounterkey"]: r for r in load_release(release).encounters}
    for task in TASKS:
        gold = {i.id: i for i in load_instances(built[task])}
        _, test = _received(built[task], tmp_path / task)
        assert test
        for inst in test:
            assert inst.target is None and inst.references == []
            row, g = rows[inst.meta["encounterkey"]], gold[inst.id]
            assert row["primaryeddiagnosisname"] not in inst.text
            if task == "acuity":
                assert not any(re.search(rf"\b{re.escape(level)}\b", inst.text) for level in ACUITY_LEVELS)
            if task == "one-liner":
                assert row["One_Sentence_Extracted"] not in inst.text and "ED Provider Note" not in inst.text
            if task == "planning":
                assert not any(part in inst.text for part in g.target.values())  # type: ignore[union-attr]
                assert "Assessment and Plan" not in inst.text
            if task == "diagnosis":
                assert not any(r.code in inst.text or (r.ed_title or "") in inst.text for r in g.references)
            if task == "disposition":
                assert "Final Disposition" not in inst.text
                shown = [d for d in DISPOSITIONS if re.search(rf"\b{re.escape(d)}\b", inst.text)]
                assert not shown, inst.text
    disposition_text = (built["disposition"] / "instances.jsonl").read_text()
    assert "Final Disposition" not in disposition_text  # nor in the dataset itself, train split included


def test_planning_knn_scored_per_part(built: dict[str, Path], tmp_path: Path) -> None:
    run = tmp_path / "knn"
    result = RUNNER.invoke(
        app, ["predict", "--dataset", str(built["planning"]), "--system", "knn-text", "--out", str(run)]
    )
    assert result.exit_code == 0, result.output
    out = tmp_path / "score"
    args = ["score", "--dataset", str(built["planning"]), "--predictions", str(run), "--out", str(out)]
    result = RUNNER.invoke(app, [*args, "--n-bootstrap", "50"])
    assert result.exit_code == 0, result.output
    metrics = json.loads((out / "results.json").read_text())["systems"][0]["metrics"]
    for part in ("rule_out", "decision_factors", "treatment_plan"):
        # eight presentations with fixed rationales: a neighbour with the same complaint copies them exactly
        assert 0.5 < metrics[f"{part}.rouge1_f1"]["value"] <= 1.0


def test_note_cuts_redaction_and_vitals_parse() -> None:
    from admitdx.tasks.erreason.release_notes import (
        REDACTED,
        before_disposition,
        presentation,
        triage_vitals,
    )

    note = (
        "HPI: 70 yo F, Transfer to Another Facility was discussed; prior AMA discharge.\n"
        "Vitals: Temp 99.1 Pulse 110 Resp 22 BP 90/60 O2 sat 93%\n"
        "Assessment & Plan: sepsis, plan Admit\n"
        "Final disposition and ED course: admitted to ICU. Disposition: Admit\n"
    )
    cut = before_disposition(note)
    assert cut is not None and "Final disposition" not in cut and "ICU" not in cut
    # every disposition name, in any case, whichever this encounter's disposition was
    assert cut.count(REDACTED) == 4 and not re.search(r"\b(AMA|admit|discharge)\b", cut, re.I)
    assert "admitted" not in cut  # cut away with the ED course, not redacted (a different word)
    assert presentation(note) == note.split("Assessment")[0].strip()
    assert triage_vitals(note) == {
        "temperature": 99.1, "heartrate": 110.0, "resprate": 22.0, "o2sat": 93.0, "sbp": 90.0, "dbp": 60.0,
    }  # fmt: skip
    assert triage_vitals("no vitals here")["sbp"] is None
