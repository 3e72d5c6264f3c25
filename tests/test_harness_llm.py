"""End to end on the open MIMIC-IV demo with a real model: EarlyDx and ER-Reason acuity exported,
run by Inspect AI (its ``llama-cpp-python`` provider, an OpenAI-compatible client) and by
lm-evaluation-harness's command line (``local-chat-completions``) against the embedded llama.cpp
server, imported, and scored — equal, metric by metric, to ``admitdx predict`` → score on the same
model answers (served from its response cache). Inspect's own log reader reads the log back.

Marked ``llm`` and ``slow``: it runs once in the full suite (`make test`), not in quick loops."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from admitdx.cli import app
from admitdx.harness.logs import read_log
from admitdx.llm.local_server import LocalServer
from admitdx.study.subset import llm_subset
from admitdx.systems.config import SystemChoice
from harness_data import RUNNER, export, predict_on_answers
from test_harness_roundtrip import same_scores

pytest.importorskip("inspect_ai", reason="the harness extra: pip install 'admitdx[harness]'")
pytest.importorskip("lm_eval", reason="the harness extra: pip install 'admitdx[harness]'")
pytest.importorskip("openai", reason="the harness extra: pip install 'admitdx[harness]'")
pytestmark = [pytest.mark.llm, pytest.mark.slow]

#: A short budget: SmolLM2 answers unconstrained when a harness sends no schema.
MAX_TOKENS = 160
TASKS = {"earlydx": ("build", "earlydx"), "acuity": ("build", "er-reason", "--task", "acuity")}


@pytest.fixture(scope="module")
def demo_datasets(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """EarlyDx and ER-Reason acuity built on the demo, each cut to its first two test encounters."""
    base = tmp_path_factory.mktemp("harness-demo")
    out = {}
    for name, command in TASKS.items():
        built = base / name
        result = RUNNER.invoke(app, [*command, "--mimic", str(demo_dir), "--out", str(built)])
        assert result.exit_code == 0, result.output
        out[name] = llm_subset(built, base / f"{name}-2", 2)
    return out


def _inspect(task_file: Path, server: LocalServer, log_dir: Path) -> Path:
    from inspect_ai import eval as inspect_eval

    logs = inspect_eval(
        f"{task_file}@{task_file.stem}",  # Inspect takes an absolute path in its FILE@TASK form
        model=f"llama-cpp-python/{server.alias}",
        model_base_url=server.base_url,
        task_args={"structured": False},  # llama-cpp-python's server refuses response_format json_schema
        max_retries=1,
        log_dir=str(log_dir),
        display="none",
        max_connections=1,
    )
    assert logs[0].status == "success", logs[0].error
    return Path(logs[0].location)


def _lmeval(folders: dict[str, Path], server: LocalServer, out: Path) -> dict[str, Path]:
    """One ``lm_eval`` command for every exported task (its start-up, about 20 s, is paid once):
    each task's folder sits under one include path; each task's samples file, by task."""
    names = {task: next(folder.glob("*.yaml")).stem for task, folder in folders.items()}
    include = {folder.parent for folder in folders.values()}
    assert len(include) == 1
    args = [
        sys.executable, "-m", "lm_eval", "--model", "local-chat-completions",
        "--model_args", f"model={server.alias},base_url={server.base_url}/chat/completions,num_concurrent=1,"
        "max_retries=1,tokenized_requests=False",
        "--include_path", str(include.pop()), "--tasks", ",".join(names.values()), "--apply_chat_template",
        "--fewshot_as_multiturn", "--log_samples", "--output_path", str(out),
    ]  # fmt: skip
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "local"}
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return {task: next(out.rglob(f"samples_{name}_*.jsonl")) for task, name in names.items()}


@pytest.fixture(scope="module")
def lmeval_runs(
    demo_datasets: dict[str, Path], local_llm: LocalServer, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, tuple[Path, Path]]:
    """Each task exported for lm-eval and run by one lm-eval command: (export folder, samples log)."""
    base = tmp_path_factory.mktemp("lmeval")
    folders = {task: base / "export" / task for task in demo_datasets}
    for task, dataset in demo_datasets.items():
        export("lm-eval", dataset, folders[task], "--set", f"max_tokens={MAX_TOKENS}")
    logs = _lmeval(folders, local_llm, base / "out")
    return {task: (folders[task], logs[task]) for task in folders}


@pytest.mark.parametrize("harness", ["inspect", "lm-eval"])
@pytest.mark.parametrize("task", list(TASKS))
def test_real_model_through_the_harness_scores_as_predict(
    harness: str,
    task: str,
    demo_datasets: dict[str, Path],
    local_llm: LocalServer,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    dataset = demo_datasets[task]
    if harness == "inspect":
        folder = tmp_path / "export"
        export(harness, dataset, folder, "--set", f"max_tokens={MAX_TOKENS}")
        log = _inspect(next(folder.glob("admitdx_*.py")), local_llm, tmp_path / "logs")
        from inspect_ai.log import read_eval_log  # Inspect's own reader (what Inspect View shows)

        assert len(read_eval_log(str(log)).samples or []) == 2
    else:
        folder, log = request.getfixturevalue("lmeval_runs")[task]
    imported = tmp_path / "imported"
    result = RUNNER.invoke(
        app, ["import", harness, str(log), "--dataset", str(dataset), "--out", str(imported)]
    )
    assert result.exit_code == 0, result.output
    answers: dict[str, Any] = {}
    logged = read_log(harness, log)
    for line in (folder / "calls.jsonl").read_text().splitlines():
        call = json.loads(line)
        said = logged.answers[call["id"]]  # the text and how it ended (a cut answer is read as cut)
        answers[json.dumps(call["messages"])] = (said.text, said.finish_reason or "stop")
    reference = predict_on_answers(dataset, SystemChoice("llm", "llm", {"max_tokens": MAX_TOKENS}),
                                   lambda m: answers[json.dumps(m)], tmp_path / "predicted")  # fmt: skip
    same_scores(dataset, imported, reference, tmp_path, "exact" if task == "earlydx" else None)
    manifest = json.loads((imported / "manifest.json").read_text())
    assert manifest["inputs"]["system_inputs"]["model"]
    if harness == "inspect":  # Inspect reports the server's token usage; lm-eval records none
        assert manifest["outputs"]["fit"]["tokens"]["prompt_tokens"] > 0
