"""`admitdx demo` end to end: the CLI without the local LLM (every task's baselines through the
shipped study file, scored and reported, one leaderboard path on stdout, a rerun that rebuilds and
refits nothing), how the demo sets its options in that file, then the file's local-model runs on the
same small root in two lanes with the real embedded llama.cpp server: EarlyDx's LLM audit, subset
and LLM judge with its agreement, and each other task's subset (skipped without admitdx[local])."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from admitdx.contracts import MATCHES_DIR, load_instances
from admitdx.demo.params import DemoParams
from admitdx.demo.run import STUDY_FILE, demo_study
from admitdx.embeddings import cache_root
from admitdx.llm.local_server import llama_cpp_available
from admitdx.llm.reasoning import TRUNCATED_PREFIX
from admitdx.study.run import run_study
from admitdx.study.spec import read_study
from admitdx.study.steps import Steps
from admitdx.tasks.registry import get_task

BASELINES = ["frequency", "knn-bm25", "extraction", "tfidf"]
OTHER_TASKS = {  # folder → (suite, baselines)
    "clinibench": ("clinibench", ["tfidf-threshold", "knn-vote"]),
    "er-reason-acuity": ("category", ["majority", "triage-classifier"]),
    "er-reason-disposition": ("category", ["majority", "triage-classifier"]),
}


def _demo(cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run in ``cwd`` with a relative --out, as `make demo` does."""
    cmd = [sys.executable, "-m", "admitdx.cli", "demo", "--out", "demo", "--patients", "150",
           "--test-fraction", "0.2", "--no-llm"]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=cwd)


def _results(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "results.json").read_text())


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    cwd = tmp_path_factory.mktemp("demo")
    first = _demo(cwd)
    assert first.returncode == 0, first.stderr
    return cwd, first


def test_demo_writes_a_report_scoring_every_baseline_and_reruns_from_its_outputs(
    demo_run: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    tmp_path, first = demo_run
    assert first.stdout.splitlines() == [str((tmp_path / "demo" / "leaderboard.html").resolve())]
    results = _results(tmp_path / "demo" / "earlydx" / "report")
    systems = [s["name"] for s in results["systems"]]
    assert systems == BASELINES
    assert "evidence audit (rule-based)" in first.stderr and "skipping the local LLM" in first.stderr
    table = first.stderr[first.stderr.rindex("implicit R") :]  # EarlyDx's headline table, printed last
    tfidf_row = next(line for line in table.splitlines() if line.strip().startswith("tfidf "))
    f1 = results["systems"][3]["metrics"][f"{results['primary_track']}.micro_f1"]["value"]
    assert f"{f1:.3f}" in tfidf_row  # the terminal table shows the scored value
    html = (tmp_path / "demo" / "earlydx" / "report" / "report.html").read_text()
    assert "<svg" in html and "knn-bm25" in html
    board = json.loads((tmp_path / "demo" / "leaderboard.json").read_text())
    assert [c["task"] for c in board["columns"]][:1] == ["earlydx"]
    assert {c["task"] for c in board["columns"]} == {"earlydx", *OTHER_TASKS}
    predictions = (tmp_path / "demo" / "earlydx" / "predictions" / "tfidf" / "predictions.jsonl").read_text()
    second = _demo(tmp_path)  # every stage resumes from its finished output, the other tasks' too
    assert second.returncode == 0, second.stderr
    path = tmp_path / "demo" / "earlydx" / "predictions" / "tfidf" / "predictions.jsonl"
    assert path.read_text() == predictions
    assert "fitted" not in second.stderr  # no system was fitted again
    assert second.stderr.count("already built") == 4  # no dataset was built again, ER-Reason's neither


def test_the_demo_sets_its_options_in_the_shipped_study_file(tmp_path: Path) -> None:
    """--seed replaces every seed, --test-fraction EarlyDx's; without the local model its runs and the
    LLM audit are left out; --earlydx-only keeps EarlyDx's runs."""
    root = tmp_path / "mimic"
    root.mkdir()
    params = DemoParams(out=tmp_path / "out", seed=11, test_fraction=0.3)
    full = read_study(demo_study(params, root, llm=True), STUDY_FILE)
    assert (full.out, full.lanes) == (tmp_path / "out", 2)
    assert [t.name for t in full.tasks] == [
        "earlydx", "earlydx-llm-subset", "clinibench", "clinibench-llm-subset", "er-reason-acuity",
        "er-reason-acuity-llm-subset", "er-reason-disposition", "er-reason-disposition-llm-subset",
    ]  # fmt: skip
    assert all(t.params.seed == 11 and t.score.seed == 11 and t.source == root for t in full.tasks)
    ed, ed_llm = full.tasks[:2]
    assert ed.params.test_fraction == 0.3 and ed_llm.base == "earlydx" and ed_llm.subset == 20
    assert ed.llm_audit is not None and ed.llm_audit.instances == 8
    assert ed_llm.judge is not None and ed_llm.judge.systems == ("smollm2-zeroshot",)
    plain = read_study(demo_study(params, root, llm=False), STUDY_FILE)
    assert [t.name for t in plain.tasks] == ["earlydx", *OTHER_TASKS]
    assert plain.tasks[0].llm_audit is None
    only = read_study(demo_study(DemoParams(other_tasks=False), root, llm=True), STUDY_FILE)
    assert [t.name for t in only.tasks] == ["earlydx", "earlydx-llm-subset"]


def test_demo_scores_and_reports_clinibench_and_the_er_reason_tasks(
    demo_run: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    tmp_path, first = demo_run
    for folder, (suite, baselines) in OTHER_TASKS.items():
        task_dir = tmp_path / "demo" / folder
        test = load_instances(task_dir / "dataset", split="test")
        assert len(test) >= 15 and {i.task for i in test} == {folder}
        results = _results(task_dir / "report")
        assert (results["task"], results["suite"]) == (folder, suite)
        assert [s["name"] for s in results["systems"]] == baselines
        for s in results["systems"]:  # every test instance predicted and scored
            assert s["counts"]["predictions"] == s["counts"]["instances"] == len(test)
            assert s["counts"]["missing"] == 0
        html = (task_dir / "report" / "report.html").read_text()
        # CliniBench's section is its table; a category task's has the confusion heatmaps
        assert '<section id="clinibench">' in html if suite == "clinibench" else "<svg" in html
        # the summary lists where each task's report is
        assert str((task_dir / "report" / "report.html").resolve()) in first.stderr
    cb = _results(tmp_path / "demo" / "clinibench" / "report")
    assert all(s["metrics"]["clinibench.macro_f1"]["value"] > 0 for s in cb["systems"])
    acuity = _results(tmp_path / "demo" / "er-reason-acuity" / "report")
    majority = acuity["systems"][0]
    accuracy = majority["metrics"]["accuracy"]["value"]
    test = load_instances(tmp_path / "demo" / "er-reason-acuity" / "dataset", split="test")
    train = load_instances(tmp_path / "demo" / "er-reason-acuity" / "dataset", split="train")
    most_common = max({i.target for i in train}, key=lambda c: sum(i.target == c for i in train))
    assert accuracy == pytest.approx(sum(i.target == most_common for i in test) / len(test))


@pytest.mark.slow
@pytest.mark.llm
@pytest.mark.skipif(not llama_cpp_available(), reason="the local LLM needs admitdx[local] (llama-cpp-python)")
def test_the_local_model_runs_of_the_demo_study(
    demo_run: tuple[Path, subprocess.CompletedProcess[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped file's local-model runs, their subsets cut small, over the --no-llm demo's
    finished baselines (resumed, not redone), two lanes each with its own llama.cpp server."""
    tmp_path, _ = demo_run
    # the LLM cache ($ADMITDX_CACHE_DIR/llm.sqlite) starts empty: every answer is the server's; the
    # content-addressed caches beside it (embeddings, the ICD wording index) are the suite's own,
    # linked in so that only the LLM part runs cold
    cache = tmp_path / "cache"
    cache.mkdir()
    shared = cache_root()
    for entry in shared.glob("*") if shared.is_dir() else ():
        if not entry.name.startswith(("llm", "logs")):
            (cache / entry.name).symlink_to(entry)
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(cache))
    out = tmp_path / "demo"
    data = demo_study(DemoParams(out=out, test_fraction=0.2), out / "mimic", llm=True)
    small = {"earlydx-llm-subset": 1, "clinibench-llm-subset": 2}
    for name, block in data["tasks"].items():
        if "subset" in block:
            block["subset"] = small.get(name, 3)
    data["tasks"]["earlydx"]["llm_audit"]["instances"] = 1
    _, scored = run_study(read_study(data, STUDY_FILE), Steps(Console(stderr=True)))
    audit = json.loads((out / "earlydx" / "llm-audit" / "manifest.json").read_text())["outputs"]
    assert audit["references"] == len(load_instances(out / "earlydx" / "llm-audit-sample")[0].references)
    agreement = out / "earlydx-llm-subset" / "predictions" / "smollm2-zeroshot" / MATCHES_DIR
    assert json.loads((agreement / "agreement_llm_judge_vs_guarded.json").read_text())["a"] == "llm_judge"
    runs = {s.name: s for s in scored}
    for task, (_, baselines) in {"earlydx": ("", BASELINES), **OTHER_TASKS}.items():
        s = runs[f"{task}-llm-subset"]
        llm = s.results["systems"][-1]["name"]
        n = small.get(s.name, 3)
        assert s.results["subset"].startswith(f"the first {n} benchmark-set encounters")
        assert [x["name"] for x in s.results["systems"]] == [*baselines, llm]
        records = [
            json.loads(line) for line in (out / s.name / "predictions" / llm / "predictions.jsonl").open()
        ]
        assert len(records) == n
        for r in records:  # each answer is read, or kept and counted as unparseable
            if task == "clinibench":
                assert r.get("parse_error") or any(item.get("code") for item in r["items"])
            elif task != "earlydx":
                assert r.get("parse_error") or r["answer"] in get_task(task).categories
        counts = s.results["systems"][-1]["counts"]
        assert counts["instances"] == counts["predictions"] == n
        # kept and counted: an answer cut at max_tokens under its own key, any other failure as unparseable
        truncated = sum(1 for r in records if (r.get("parse_error") or "").startswith(TRUNCATED_PREFIX))
        assert counts.get("truncated_in_answer", 0) == truncated
        assert counts["parse_errors"] == sum(1 for r in records if r.get("parse_error")) - truncated
        manifest = json.loads((out / s.name / "predictions" / llm / "manifest.json").read_text())
        assert manifest["inputs"]["system_inputs"]["local_server"] is True
    assert (out / "leaderboard.html").exists()
