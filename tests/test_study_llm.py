"""A study with the real local model (the embedded llama.cpp server, SmolLM2): the dry run counts the
calls still to make and their prompt tokens; a study killed (SIGKILL) after its first answer and
rerun predicts each instance once and calls the model only for what was not answered; a second
study over the same response cache makes no call and writes the same leaderboard bytes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import pytest
from rich.console import Console

from admitdx.llm.local_server import LocalServer
from admitdx.study.dry_run import CHARS_PER_TOKEN, dry_run
from admitdx.study.run import run_study
from admitdx.study.spec import load_study
from admitdx.study.steps import Steps

SUBSET = 3


def write_study(folder: Path, root: Path, server: LocalServer, cache: Path) -> Path:
    """ER-Reason acuity on its first SUBSET test stays, the local model answering (JSON is YAML)."""
    config = asdict(server.config(cache_path=cache, max_tokens=24))
    llm = {k: str(v) if isinstance(v, Path) else v for k, v in config.items() if v is not None}
    study = {
        "out": "out",
        "data": {"mimic": str(root)},
        "score": {"n_bootstrap": 20},
        "tasks": {"er-reason-acuity": {"subset": SUBSET}},
        "systems": {"smollm2": {"kind": "llm", "prompt": "zero-shot", **llm}},
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "llm-study.yaml"
    path.write_text(json.dumps(study), encoding="utf-8")
    return path


def killed_after_first_answer(path: Path, predictions: Path) -> int:
    """Run ``admitdx study`` as its own process and SIGKILL it once an answer is on disk; the lines
    that were written by then."""
    cmd = [sys.executable, "-m", "admitdx.cli", "study", str(path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if predictions.exists() and predictions.read_text().count("\n") >= 1:
                break
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return predictions.read_text().count("\n")


def test_dry_run_then_a_killed_study_resumes_without_calling_twice(
    synthetic_root: Path, local_llm: LocalServer, tmp_path: Path
) -> None:
    cache = tmp_path / "llm.sqlite"
    path = write_study(tmp_path / "a", synthetic_root, local_llm, cache)
    steps = Steps(Console(stderr=True))
    (estimate,) = dry_run(load_study(path), steps)
    assert (estimate.instances, estimate.done, estimate.calls, estimate.cache_hits) == (SUBSET, 0, SUBSET, 0)
    assert estimate.tokens_by in (f"chars/{CHARS_PER_TOKEN:g}", f"tokenizer {local_llm.alias}")
    assert estimate.prompt_tokens > 100 * SUBSET  # the acuity prompt is some 157 tokens

    predictions = path.parent / "out/er-reason-acuity/predictions/smollm2/predictions.jsonl"
    before = killed_after_first_answer(path, predictions)
    assert 1 <= before < SUBSET
    (resumed,) = dry_run(load_study(path), steps)
    assert resumed.done == before and resumed.calls + resumed.cache_hits == SUBSET - before

    leaderboard, _ = run_study(load_study(path), steps)
    ids = [json.loads(line)["instance_id"] for line in predictions.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == SUBSET  # each instance predicted exactly once
    summary = json.loads((predictions.parent / "manifest.json").read_text())["outputs"]["fit"]
    assert summary["model_calls"] + summary["cache_hits"] == SUBSET - before  # none answered was asked again

    # the same study elsewhere, over the same cache: no model call, the same leaderboard bytes
    again = write_study(tmp_path / "b", synthetic_root, local_llm, cache)
    (fresh,) = dry_run(load_study(again), steps)
    assert (fresh.calls, fresh.cache_hits) == (0, SUBSET)
    second, _ = run_study(load_study(again), steps)
    assert second.with_suffix(".json").read_bytes() == leaderboard.with_suffix(".json").read_bytes()
    assert second.with_suffix(".md").read_bytes() == leaderboard.with_suffix(".md").read_bytes()


@pytest.fixture(autouse=True)
def _offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The killed study runs as its own process: it must import this tree's sources."""
    src = str(Path(__file__).resolve().parents[1] / "src")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p))


def test_the_local_models_prompts_are_counted_with_its_own_vocabulary(local_llm: LocalServer) -> None:
    """SmolLM2's GGUF vocabulary: a common word is one token, and the count is not the character rule."""
    from admitdx.study.dry_run import token_counter
    from admitdx.systems.config import SystemChoice
    from admitdx.systems.runner import build_system
    from admitdx.tasks.registry import get_task

    choice = SystemChoice("smollm2", "llm", {"base_url": "local"})
    system = build_system(choice, [], get_task("er-reason-acuity"))  # starts no server
    count, by = token_counter(system)
    assert by == f"tokenizer {local_llm.alias}"
    assert count("the") == 1
    text = "Chief complaint: chest pain radiating to the left arm, onset 2 hours ago."
    assert 10 < count(text) != round(len(text) / CHARS_PER_TOKEN)
