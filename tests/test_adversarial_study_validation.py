"""Issue 30, checked before any work: every system (used or not), every option of every system and
task, every matcher and judge, every score option and ``from:`` of a study file is checked when the
file is read, through the same typed options as the command line. Each mistake is exit 2 naming the
file, the key path and the value, before anything is built (``--dry-run`` too), never a traceback
after the builds and predictions before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from admitdx.demo.params import DemoParams
from admitdx.demo.run import STUDY_FILE, demo_study
from admitdx.study.spec import read_study
from data_roots import run_cli
from study_cases import STUDY, refused, write_study

GPT = "  gpt: {kind: llm, base_url: 'http://127.0.0.1:9/v1', model: m%s}\n"
UNSET = "ADMITDX_TEST_NEVER_SET_30"


def with_gpt(options: str = "") -> str:
    return STUDY + GPT % options


def in_earlydx(lines: str, study: str = STUDY) -> str:
    assert study.count("  earlydx:\n") == 1
    return study.replace("  earlydx:\n", f"  earlydx:\n{lines}")


CASES = {
    "a typo in a system no task uses": (
        STUDY + "  unused: {kind: frequency, top_kk: 3}\n",
        "systems.unused.top_kk",
    ),
    "an LLM option of the wrong type": (with_gpt(", temperature: hot"), "systems.gpt.temperature='hot'"),
    "a typo in an LLM option": (with_gpt(", temprature: 0"), "systems.gpt.temprature"),
    "an unknown server": (with_gpt(", server: vlm"), "systems.gpt: unknown server 'vlm'"),
    "a bad thinking": (with_gpt(", thinking: loud"), "systems.gpt: thinking must be"),
    "an unset api_key_env": (
        with_gpt(f", api_key_env: {UNSET}"),
        f"systems.gpt: environment variable {UNSET}",
    ),
    "a concurrency of 0": (with_gpt(", concurrency: 0"), "systems.gpt: concurrency must be at least 1"),
    "an unknown matcher": (
        STUDY.replace("matcher: exact", "matcher: exactly"),
        "tasks.earlydx.matcher: 'exactly'",
    ),
    "a typo in matcher_set": (
        in_earlydx(
            "    matcher_set: {threshhold: 0.5}\n", STUDY.replace("matcher: exact", "matcher: embedding")
        ),
        "tasks.earlydx.matcher_set.threshhold",
    ),
    "an unknown judge matcher": (
        in_earlydx("    judge: {matcher: llm_jugde}\n"),
        "tasks.earlydx.judge.matcher: 'llm_jugde'",
    ),
    "a typo in the judge's LLM options": (
        in_earlydx("    judge: {matcher: llm_judge, matcher_set: {local: true, llm: {max_tokenz: 9}}}\n"),
        "tasks.earlydx.judge.matcher_set.llm: unknown LLM option(s): max_tokenz",
    ),
    "a seed that is not a number": (
        STUDY.replace("tasks:\n", "score: {seed: abc}\ntasks:\n", 1),
        "score.seed='abc'",
    ),
    "a negative seed": (
        STUDY.replace("tasks:\n", "score: {seed: -1}\ntasks:\n", 1),
        "score: seed must be from 0 to",
    ),
    "a negative n_bootstrap": (
        in_earlydx("    score: {n_bootstrap: -5}\n"),
        "tasks.earlydx.score: n-bootstrap must be at least 0, got -5",
    ),
    "a confidence of 2": (
        in_earlydx("    score: {confidence: 2}\n"),
        "tasks.earlydx.score: confidence must lie between 0 and 1",
    ),
    "a missing ccsr_table": (
        STUDY.replace(
            "    systems: [majority]\n",
            "    task: er-reason-acuity\n    systems: [majority]\n    score: {ccsr_table: no-such.csv}\n",
        ),
        "tasks.er-reason-acuity.score.ccsr_table",
    ),
    "llm_audit with a system that calls no model": (
        in_earlydx("    llm_audit: {system: frequency, instances: 4}\n"),
        "tasks.earlydx.llm_audit needs",
    ),
    "lanes: true": (
        STUDY.replace("out: out\n", "out: out\nlanes: true\n"),
        "lanes: True is not a positive whole number",
    ),
    "systems: NAME as a string": (
        STUDY.replace("systems: [frequency]", "systems: frequency"),
        "tasks.earlydx.systems: 'frequency' is not a list",
    ),
    "set: {window_hours: abc}": (
        in_earlydx("    set: {window_hours: abc}\n"),
        "tasks.earlydx.set.window_hours='abc'",
    ),
    "matcher: exact on a category task": (
        STUDY.replace("    systems: [majority]\n", "    matcher: exact\n    systems: [majority]\n"),
        "tasks.er-reason-acuity.matcher: task er-reason-acuity is scored without a matcher",
    ),
    "subset: true": (in_earlydx("    subset: true\n"), "tasks.earlydx.subset: True is not a positive number"),
    "a from: naming a later run": (
        STUDY.replace("tasks:\n", "tasks:\n  early-sub:\n    from: earlydx\n    systems: [frequency]\n", 1),
        "tasks.early-sub.from must name an earlier task run",
    ),
}


@pytest.mark.parametrize("dry_run", [False, True], ids=["run", "dry-run"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_mistake_is_refused_before_any_work_naming_key_and_value(
    case: str,
    dry_run: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(UNSET, raising=False)
    text, message = CASES[case]
    path = write_study(tmp_path, text)
    err = refused(path, capsys, monkeypatch, *(["--dry-run"] if dry_run else []))
    assert f"{path}: {message}" in err


def test_ccsr_table_on_a_task_that_does_not_read_it_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "DXCCSR.csv").write_text("x\n", encoding="utf-8")
    ccsr = str(tmp_path / "DXCCSR.csv")
    path = write_study(tmp_path, in_earlydx(f"    score: {{ccsr_table: {ccsr}}}\n"))
    err = refused(path, capsys, monkeypatch)
    assert "tasks.earlydx.score.ccsr_table: task earlydx does not read it" in err


def test_score_seed_minus_one_on_the_command_line_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["score", "--dataset", str(tmp_path), "--predictions", str(tmp_path), "--out", str(tmp_path / "s")]
    code, _, err = run_cli([*args, "--seed", "-1"], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in err
    assert "seed must be from 0 to 4294967295, got -1" in " ".join(err.split())


def test_the_shipped_demo_study_passes_the_checks(tmp_path: Path) -> None:
    """No false alarm: the demo's study (local models, a judge, llm_audit, subsets) is accepted."""
    (tmp_path / "mimic").mkdir()
    params = DemoParams(out=str(tmp_path / "demo"))
    study = read_study(demo_study(params, tmp_path / "mimic", llm=True), STUDY_FILE)
    assert [t.name for t in study.tasks][:2] == ["earlydx", "earlydx-llm-subset"]
    assert study.tasks[0].llm_audit is not None and study.tasks[1].judge is not None
