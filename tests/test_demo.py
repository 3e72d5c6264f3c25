"""`admitdx demo` end to end: the CLI without the local LLM (every task's baselines, scored and
reported), then the other tasks' local-model subsets on the same small root with the real
embedded llama.cpp server (skipped without admitdx[local]; EarlyDx's LLM path is covered by
tests/test_llm_local_e2e.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from admitdx.contracts import load_instances
from admitdx.demo.params import DemoParams
from admitdx.demo.steps import Steps
from admitdx.demo.tasks import run_task_demos
from admitdx.llm.local_server import llama_cpp_available
from admitdx.tasks.registry import get_task

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
    results = _results(tmp_path / "demo" / "report")
    systems = [s["name"] for s in results["systems"]]
    assert systems == ["frequency", "knn-bm25", "extraction", "tfidf"]
    assert "evidence audit (rule-based)" in first.stderr and "skipping the local LLM" in first.stderr
    table = first.stderr[first.stderr.rindex("implicit R") :]  # the headline table printed at the end
    tfidf_row = next(line for line in table.splitlines() if line.strip().startswith("tfidf "))
    f1 = results["systems"][3]["metrics"][f"{results['primary_track']}.micro_f1"]["value"]
    assert f"{f1:.3f}" in tfidf_row  # the terminal table shows the scored value
    html = (tmp_path / "demo" / "report" / "report.html").read_text()
    assert "<svg" in html and "knn-bm25" in html
    predictions = (tmp_path / "demo" / "predictions" / "tfidf" / "predictions.jsonl").read_text()
    second = _demo(tmp_path)  # every stage resumes from its finished output, the other tasks' too
    assert second.returncode == 0, second.stderr
    assert (tmp_path / "demo" / "predictions" / "tfidf" / "predictions.jsonl").read_text() == predictions
    assert "fitted" not in second.stderr  # no system was fitted again


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


@pytest.mark.skipif(not llama_cpp_available(), reason="the local LLM needs admitdx[local] (llama-cpp-python)")
def test_the_local_model_answers_each_other_tasks_subset(
    demo_run: tuple[Path, subprocess.CompletedProcess[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp_path, _ = demo_run
    # the LLM cache ($ADMITDX_CACHE_DIR/llm.sqlite) starts empty: every answer is the server's
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "demo"
    params = DemoParams(out=out, clinibench_llm_subset=2, er_llm_subset=3)
    outcomes = run_task_demos(
        out / "mimic", out, params, Steps(Console(stderr=True), buffered=True), llm=True
    )
    assert [o.demo.task for o in outcomes] == list(OTHER_TASKS)
    for o in outcomes:
        n = o.demo.llm_subset
        assert o.subset_results is not None and o.subset_report is not None and o.subset_report.exists()
        assert o.subset_results["subset"].startswith(f"the first {n} test encounters")
        names = [s["name"] for s in o.subset_results["systems"]]
        assert names == [*OTHER_TASKS[o.demo.task][1], o.demo.llm.name]
        llm_dir = out / o.demo.task / "predictions-llm-subset" / o.demo.llm.name
        records = [json.loads(line) for line in (llm_dir / "predictions.jsonl").read_text().splitlines()]
        assert len(records) == n
        for r in records:  # each answer is read, or kept and counted as unparseable
            if o.demo.task == "clinibench":
                assert r.get("parse_error") or any(item.get("code") for item in r["items"])
            else:
                assert r.get("parse_error") or r["answer"] in get_task(o.demo.task).categories
        counts = o.subset_results["systems"][-1]["counts"]
        assert counts["instances"] == counts["predictions"] == n
        assert counts["parse_errors"] == sum(1 for r in records if r.get("parse_error"))
        manifest = json.loads((llm_dir / "manifest.json").read_text())
        assert manifest["inputs"]["system_inputs"]["local_server"] is True
