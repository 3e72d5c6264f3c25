"""`admitdx export sft` on every task: each task's own predict prompt and answer schema (CliniBench's
appendix-A.1 prompt, each ER-Reason task's), read back by the reader `predict` uses; what cannot
be exported stops with exit 2, never 0 examples with exit 0. EarlyDx's own export:
test_earlydx_export.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import Instance, load_instances
from admitdx.errors import UsageError
from admitdx.synthetic.erreason import generate_release
from admitdx.systems.llm import LLMPredictor
from admitdx.tasks.answers import read_category, read_diagnoses, read_text, text_parts
from admitdx.tasks.registry import get_task

RUNNER = CliRunner()
ER_TASKS = ("acuity", "one-liner", "planning", "diagnosis", "disposition")


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_release(tmp_path_factory.mktemp("sft-release") / "er-reason", encounters=40, seed=3)


def _export(dataset: Path, out: Path, *args: str) -> list[dict]:
    result = RUNNER.invoke(app, ["export", "sft", "--dataset", str(dataset), "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in (out / "train.jsonl").read_text(encoding="utf-8").splitlines()]


def _read_back(task_name: str, content: str) -> object:
    """The assistant turn through the reader `predict --system llm` applies to a model's answer."""
    task, value = get_task(task_name), json.loads(content)
    if task.answer == "diagnoses":
        read = read_diagnoses(value, 20)
        assert read.error is None
        return [it.text for it in read.items]
    read = (
        read_category(value, task.categories)
        if task.answer == "category"
        else read_text(value, text_parts(task.schema))
    )
    assert read.error is None
    return read.answer


def _check_rows(dataset: Path, rows: list[dict], expected: callable) -> None:
    train: dict[str, Instance] = {i.id: i for i in load_instances(dataset) if i.split == "train"}
    task = get_task(next(iter(train.values())).task)
    llm = LLMPredictor(task=task, base_url="http://127.0.0.1:9/v1", model="m")
    assert rows and len(rows) == sum(expected(i) is not None for i in train.values())
    for row in rows:
        inst = train[row["id"]]
        assert row["messages"][:-1] == llm.request(task.without_target(inst)).messages
        assert row["messages"][-1]["role"] == "assistant"
        assert _read_back(task.name, row["messages"][-1]["content"]) == expected(inst)


@pytest.mark.parametrize("name", ER_TASKS)
def test_every_er_reason_task_exports_its_own_prompt_and_answer(
    release: Path, tmp_path: Path, name: str
) -> None:
    dataset = tmp_path / name
    result = RUNNER.invoke(
        app, ["build", "er-reason", "--task", name, "--erreason", str(release), "--out", str(dataset)]
    )
    assert result.exit_code == 0, result.output
    task = get_task(load_instances(dataset)[0].task)
    rows = _export(dataset, tmp_path / "sft")

    def expected(inst: Instance) -> object:
        if task.answer == "diagnoses":
            return [r.text for r in inst.references][:20] or None
        return inst.target or None

    _check_rows(dataset, rows, expected)
    info = json.loads((tmp_path / "sft" / "dataset_info.json").read_text())
    assert list(info) == [f"admitdx_{task.name}_train"]


def test_clinibench_exports_the_appendix_a1_prompt_and_its_category_titles(
    hosp10: Path, tmp_path: Path
) -> None:
    rows = _export(hosp10, tmp_path / "sft")
    _check_rows(hosp10, rows, lambda inst: [r.text for r in inst.references][:20])
    user = rows[0]["messages"][0]
    assert user["role"] == "user" and user["content"].startswith("You are a medical professional.")
    assert "emergency physician" not in json.dumps(rows)  # not EarlyDx's prompt
    # a system prompt of one's own goes first, before the template's user turn
    own = tmp_path / "system.txt"
    own.write_text("Code the admission.", encoding="utf-8")
    first = _export(hosp10, tmp_path / "sft-own", "--system-prompt", str(own))[0]["messages"]
    assert first[0] == {"role": "system", "content": "Code the admission."} and first[1] == user


def test_what_cannot_be_exported_stops_with_exit_2(hosp10: Path, release: Path, tmp_path: Path) -> None:
    refused = RUNNER.invoke(app, ["export", "sft", "--dataset", str(hosp10), "--out", str(tmp_path / "a"),
                                  "--answer-format", "lines"])  # fmt: skip
    assert isinstance(refused.exception, UsageError) and "EarlyDx's direct format" in str(refused.exception)
    acuity = tmp_path / "acuity"
    RUNNER.invoke(
        app, ["build", "er-reason", "--task", "acuity", "--erreason", str(release), "--out", str(acuity)]
    )
    refused = RUNNER.invoke(app, ["export", "sft", "--dataset", str(acuity), "--out", str(tmp_path / "b"),
                                  "--evidence", "supported"])  # fmt: skip
    assert isinstance(refused.exception, UsageError) and "answers with a category" in str(refused.exception)
    # no training note has a usable rationale: nothing to export, as the user runs it: exit 2, no files
    rationales = tmp_path / "rationales.jsonl"
    rationales.write_text(json.dumps({"instance_id": "nobody", "reasoning": "r"}) + "\n", encoding="utf-8")
    out = tmp_path / "c"
    cmd = [sys.executable, "-c", "from admitdx.cli import main; main()", "export", "sft", "--dataset",
           str(hosp10), "--out", str(out), "--rationales", str(rationales)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert done.returncode == 2, done.stderr
    assert "nothing to export" in done.stderr and "skipped_no_rationale" in done.stderr
    assert not out.exists()
