"""``admitdx export inspect|lm-eval``: every exported model input is the prompt ``admitdx predict``
renders from the instance after the runner's redaction — no gold answer, no leaky meta field —
with the instance id and the dataset's fingerprint recorded; and the exports and imports that must
be refused are (exit 2, naming both sides)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from admitdx.contracts import load_instances
from admitdx.provenance import dataset_fingerprints
from admitdx.systems.config import SystemChoice
from admitdx.systems.labels import training_view
from admitdx.systems.runner import build_system
from admitdx.tasks.registry import task_of
from data_roots import run_cli
from harness_data import (
    GOLD_MARK,
    LEAK_MARK,
    answers_by_messages,
    category_dataset,
    diagnosis_dataset,
    export,
    text_dataset,
)

CASES = {
    "earlydx-few-shot": (diagnosis_dataset, "llm", {"prompt": "few-shot", "k": 2}),
    "clinibench-codes": (
        lambda r: diagnosis_dataset(r, "clinibench"),
        "llm-codes",
        {"mapping": "exact", "mapping_targets": "train"},
    ),
    "acuity-category": (category_dataset, "llm", {"prompt": "cot"}),
    "one-liner-text": (text_dataset, "llm", {"prompt": "few-shot", "k": 1}),
}


def _args(kind: str, options: dict[str, object]) -> list[str]:
    return ["--system", kind, *[a for k, v in options.items() for a in ("--set", f"{k}={v}")]]


@pytest.mark.parametrize("harness", ["inspect", "lm-eval"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_exported_input_is_predicts_prompt_after_redaction(
    harness: str, case: str, tmp_path: Path
) -> None:
    make, kind, options = CASES[case]
    dataset = make(tmp_path / "data")
    out = tmp_path / "export"
    result = export(harness, dataset, out, *_args(kind, options))
    assert "the data stays here" in result.output
    instances = load_instances(dataset)
    task = task_of(dataset, instances)
    test = [i for i in instances if i.split == "test"]
    # the runner's redaction, then the predictor's own rendering, independently of the export
    system = build_system(SystemChoice(kind, kind, options), [], task)
    system.fit(training_view([i for i in instances if i.split == "train"]))
    calls = [json.loads(x) for x in (out / "calls.jsonl").read_text().splitlines()]
    assert [c["instance_id"] for c in calls] == [i.id for i in test] == [c["id"] for c in calls]
    for call, inst in zip(calls, test, strict=True):
        seen = task.without_target(inst)
        assert call["messages"] == system.request(seen).messages
        assert inst.text in call["messages"][-1]["content"]
        sent = json.dumps(call["messages"])
        assert GOLD_MARK not in sent and LEAK_MARK not in sent
    header = json.loads((out / "admitdx_export.json").read_text())
    assert header["dataset"] == dataset_fingerprints(dataset, instances)
    assert header["system"] == {"name": kind, "kind": kind, "options": options}
    assert "stay on this disk" in header["data"] and "not the paper's metric" in header["native_score"]
    if harness == "lm-eval":  # what lm-eval puts into the request: system, turns, user — never the target
        for line in (out / "lmeval_docs.jsonl").read_text().splitlines():
            doc = json.loads(line)
            shown = doc["system"] + doc["turns"] + doc["user"]
            assert GOLD_MARK not in shown and LEAK_MARK not in shown
        assert "process_results: !function" in next(out.glob("*.yaml")).read_text()
    else:
        task_file = next(out.glob("admitdx_*.py")).read_text()
        assert "@task" in task_file and "not the paper's metric" in task_file


def test_few_shot_demonstrations_are_training_encounters_with_their_labels(tmp_path: Path) -> None:
    dataset = diagnosis_dataset(tmp_path / "data")
    train = {i.text: i for i in load_instances(dataset, split="train")}
    out = tmp_path / "export"
    export("inspect", dataset, out, "--set", "prompt=few-shot", "--set", "k=2")
    for line in (out / "calls.jsonl").read_text().splitlines():
        messages = json.loads(line)["messages"]
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
        for shown, answer in ((messages[1], messages[2]), (messages[3], messages[4])):
            exemplar = train[shown["content"]]  # a training record, shown whole
            assert json.loads(answer["content"]) == {"diagnoses": [r.text for r in exemplar.references]}


def refused(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The message of a command that must stop with exit code 2 (through the real entry point)."""
    code, _, err = run_cli(args, capsys, monkeypatch)
    assert code == 2, err
    return " ".join(err.split())


def test_a_system_without_prompts_cannot_be_exported(tmp_path: Path, capsys, monkeypatch) -> None:
    dataset = diagnosis_dataset(tmp_path / "data")
    args = [
        "export",
        "inspect",
        "--dataset",
        str(dataset),
        "--out",
        str(tmp_path / "x"),
        "--system",
        "frequency",
    ]
    assert "sends no prompt" in refused(args, capsys, monkeypatch)


def test_an_export_folder_of_another_dataset_is_not_overwritten(tmp_path: Path, capsys, monkeypatch) -> None:
    out = tmp_path / "export"
    export("inspect", diagnosis_dataset(tmp_path / "a"), out)
    other = diagnosis_dataset(tmp_path / "b", n_test=5)
    message = refused(["export", "inspect", "--dataset", str(other), "--out", str(out)], capsys, monkeypatch)
    a = json.loads((out / "admitdx_export.json").read_text())["dataset"]["inputs_sha256"]
    assert a[:12] in message and "new --out" in message


# ---------------------------------------------------------------------------- refused imports
@pytest.fixture(scope="module")
def lmeval_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the dataset, lm-eval's samples file of its export answered by the test model)."""
    pytest.importorskip("lm_eval", reason="the harness extra: pip install 'admitdx[harness]'")
    from test_harness_roundtrip import run_lmeval

    tmp = tmp_path_factory.mktemp("harness-log")
    dataset = diagnosis_dataset(tmp / "data")
    export("lm-eval", dataset, tmp / "export")
    return dataset, run_lmeval(tmp / "export", answers_by_messages(tmp / "export"), tmp / "out")


def _import(log: Path, dataset: Path, out: Path) -> list[str]:
    return ["import", "lm-eval", str(log), "--dataset", str(dataset), "--out", str(out)]


def _edited(log: Path, tmp: Path, edit: object) -> Path:
    lines = log.read_text().splitlines()
    path = tmp / log.name
    path.write_text("\n".join(edit(lines)) + "\n")  # type: ignore[operator]
    return path


def test_a_log_of_another_dataset_is_refused_naming_both(
    lmeval_log, tmp_path: Path, capsys, monkeypatch
) -> None:
    dataset, log = lmeval_log
    other = diagnosis_dataset(tmp_path / "other", n_test=7)
    message = refused(_import(log, other, tmp_path / "run"), capsys, monkeypatch)
    recorded = json.loads((dataset.parent / "export" / "admitdx_export.json").read_text())["dataset"]
    now = dataset_fingerprints(other, load_instances(other))
    assert recorded["inputs_sha256"][:12] in message and now["inputs_sha256"][:12] in message
    assert not (tmp_path / "run" / "predictions.jsonl").exists()


def test_missing_and_extra_instances_are_refused_naming_them(
    lmeval_log, tmp_path: Path, capsys, monkeypatch
) -> None:
    dataset, log = lmeval_log
    short = _edited(log, tmp_path, lambda lines: lines[1:])
    first = json.loads(log.read_text().splitlines()[0])["doc"]["id"]
    assert "missing from the log: " + first in refused(
        _import(short, dataset, tmp_path / "a"), capsys, monkeypatch
    )

    def extra(lines: list[str]) -> list[str]:
        row = json.loads(lines[0])
        row["doc"]["id"] = "test-99"
        return [*lines, json.dumps(row)]

    message = refused(_import(_edited(log, tmp_path, extra), dataset, tmp_path / "b"), capsys, monkeypatch)
    assert "in the log only: test-99" in message


def test_a_log_that_sent_another_prompt_is_refused(lmeval_log, tmp_path: Path, capsys, monkeypatch) -> None:
    dataset, log = lmeval_log

    def merged(lines: list[str]) -> list[str]:  # as a run with --system_instruction sends it
        row = json.loads(lines[0])
        context = row["arguments"]["gen_args_0"]["arg_0"]  # a chat API model's JsonChatStr: [messages JSON]
        raw = context[0] if isinstance(context, list) else context
        messages = json.loads(raw)
        messages[0]["content"] = "You are helpful. " + messages[0]["content"]
        row["arguments"]["gen_args_0"]["arg_0"] = json.dumps(messages)
        return [json.dumps(row), *lines[1:]]

    message = refused(_import(_edited(log, tmp_path, merged), dataset, tmp_path / "run"), capsys, monkeypatch)
    assert "another prompt" in message and "message 1 (system) differs" in message


def test_a_file_that_is_no_harness_log_is_refused(tmp_path: Path, capsys, monkeypatch) -> None:
    dataset = diagnosis_dataset(tmp_path / "data")
    log = tmp_path / "samples.jsonl"
    log.write_text('{"doc": {"question": "q"}, "resps": [["a"]]}\n')
    message = refused(_import(log, dataset, tmp_path / "run"), capsys, monkeypatch)
    assert "not a sample of an admitdx export" in message and str(log) in message
