"""Export → the real harness → import → score gives, for every answer kind, the numbers
``admitdx predict`` → score gives on the same model answers (difference 0, metric by metric).

The harnesses run in process with a test model that answers each exported prompt from a table
(right, wrong, thinking first, unreadable: :func:`harness_data.answer_for`): Inspect AI's
``mockllm`` provider with a callable, and an lm-evaluation-harness ``LM`` whose chat requests are
logged as messages, as its chat API models log them. The same answers are served to
``admitdx predict`` from its response cache. The run against the embedded llama.cpp server is in
``test_harness_llm.py``."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from admitdx.cli import app
from admitdx.systems.config import SystemChoice
from harness_data import (
    RUNNER,
    answers_by_messages,
    canned_inspect,
    category_dataset,
    diagnosis_dataset,
    export,
    planning_dataset,
    predict_on_answers,
    scored,
    text_dataset,
)

inspect_ai = pytest.importorskip("inspect_ai", reason="the harness extra: pip install 'admitdx[harness]'")
lm_eval = pytest.importorskip("lm_eval", reason="the harness extra: pip install 'admitdx[harness]'")

#: What a results entry says about where a run came from, not what it scored.
PROVENANCE = {"name", "predictions_dir", "description", "caveat", "tokens", "colour", "pattern"}

# (case, dataset maker, system options as --set, system kind, matcher)
CASES = {
    "earlydx-few-shot": (diagnosis_dataset, ["prompt=few-shot", "k=2"], "llm", "exact"),
    "clinibench-codes": (
        lambda root: diagnosis_dataset(root, "clinibench"),
        ["mapping=exact", "mapping_targets=train", "min_items=1"],
        "llm-codes",
        None,
    ),
    "acuity-category": (category_dataset, [], "llm", None),
    "one-liner-text-few-shot": (text_dataset, ["prompt=few-shot", "k=1"], "llm", None),
}


def _settings(options: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in options:
        key, value = item.split("=", 1)
        out[key] = int(value) if value.isdigit() else value
    return out


def run_inspect(task_file: Path, answers: dict[str, str], log_dir: Path) -> Path:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    model = get_model("mockllm/model", custom_outputs=canned_inspect(answers))
    with contextlib.chdir(task_file.parent):  # Inspect looks a task file up relative to the working directory
        logs = inspect_eval(task_file.name, model=model, log_dir=str(log_dir.resolve()), display="none")
    assert logs[0].status == "success", logs[0].error
    return Path(logs[0].location)


def run_lmeval(folder: Path, answers: dict[str, str], out: Path) -> Path:
    from lm_eval import simple_evaluate
    from lm_eval.api.model import LM
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    class Canned(LM):
        """Answers each chat request from the table; logs requests as messages (as chat API models do)."""

        def apply_chat_template(
            self, chat_history: list[dict[str, str]], add_generation_prompt: bool = True
        ) -> str:
            return json.dumps(chat_history)

        @property
        def tokenizer_name(self) -> str:
            return "canned"

        def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
            return [answers[json.dumps(json.loads(r.args[0]))] for r in requests]

        def loglikelihood(self, requests: list[Any], disable_tqdm: bool = False) -> list[Any]:
            raise NotImplementedError

        def loglikelihood_rolling(self, requests: list[Any], disable_tqdm: bool = False) -> list[Any]:
            raise NotImplementedError

    name = next(folder.glob("*.yaml")).stem
    results = simple_evaluate(
        model=Canned(),
        tasks=[name],
        task_manager=TaskManager(include_path=str(folder), include_defaults=False),
        apply_chat_template=True,
        fewshot_as_multiturn=True,
        log_samples=True,
    )
    tracker = EvaluationTracker(output_path=str(out))
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name=name, samples=samples[name])
    return next(out.rglob(f"samples_{name}_*.jsonl"))


def run_harness(harness: str, folder: Path, tmp: Path) -> Path:
    answers = answers_by_messages(folder)
    if harness == "inspect":
        return run_inspect(next(folder.glob("admitdx_*.py")), answers, tmp / "inspect-logs")
    return run_lmeval(folder, answers, tmp / "lmeval-out")


def same_scores(
    dataset: Path, imported: Path, reference: Path, tmp: Path, matcher: str | None
) -> dict[str, Any]:
    a = scored(dataset, imported, tmp / "score-imported", matcher)
    b = scored(dataset, reference, tmp / "score-predict", matcher)
    ours = {k: v for k, v in a["systems"][0].items() if k not in PROVENANCE}
    theirs = {k: v for k, v in b["systems"][0].items() if k not in PROVENANCE}
    assert ours == theirs
    return ours


#: EarlyDx runs in quick loops; the other kinds (a few seconds each) are marked slow, run by `make test`.
_CASES = [pytest.param(c, marks=() if c.startswith("earlydx") else pytest.mark.slow) for c in CASES]


@pytest.mark.parametrize("harness", ["inspect", "lm-eval"])
@pytest.mark.parametrize("case", _CASES)
def test_export_harness_import_scores_as_predict(harness: str, case: str, tmp_path: Path) -> None:
    make, options, kind, matcher = CASES[case]
    dataset = make(tmp_path / "data")
    folder = tmp_path / "export"
    export(harness, dataset, folder, "--system", kind, *[a for o in options for a in ("--set", o)])
    log = run_harness(harness, folder, tmp_path)
    imported = tmp_path / "imported"
    result = RUNNER.invoke(
        app, ["import", harness, str(log), "--dataset", str(dataset), "--out", str(imported)]
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((imported / "manifest.json").read_text())
    assert manifest["stage"] == "predict" and manifest["outputs"]["complete"] is True
    assert manifest["inputs"]["system"]["kind"] == harness
    assert manifest["inputs"]["system_inputs"]["exported_system"]["kind"] == kind
    if harness == "inspect":  # the model and its token usage, as Inspect reported them
        assert manifest["inputs"]["system_inputs"]["model"] == "mockllm/model"
        assert manifest["outputs"]["fit"]["tokens"]["prompt_tokens"] > 0
    # every fourth answer is unreadable: counted as predict counts it
    n = manifest["outputs"]["predictions"]
    assert manifest["outputs"]["parse_errors"] == sum(1 for i in range(n) if i % 4 == 3)
    choice = SystemChoice(kind, kind, _settings(options))
    reference = predict_on_answers(dataset, choice, lambda m: answers_by_messages(folder)[json.dumps(m)],
                                   tmp_path / "predicted")  # fmt: skip
    metrics = same_scores(dataset, imported, reference, tmp_path, matcher)
    assert metrics["counts"]["parse_errors"] == manifest["outputs"]["parse_errors"] > 0
    samples = [json.loads(x) for x in (imported / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == manifest["outputs"]["predictions"]
    assert sum("reasoning" in s for s in samples) == sum(1 for i in range(n) if i % 4 == 2)


@pytest.mark.slow
@pytest.mark.parametrize("harness", ["inspect", "lm-eval"])
def test_planning_three_calls_an_encounter_round_trip(harness: str, tmp_path: Path) -> None:
    dataset = planning_dataset(tmp_path / "data")
    folder = tmp_path / "export"
    export(harness, dataset, folder)
    header = json.loads((folder / "admitdx_export.json").read_text())
    assert header["parts"] == ["rule_out", "decision_factors", "treatment_plan"]
    assert header["calls"] == 3 * header["instances"]
    log = run_harness(harness, folder, tmp_path)
    imported = tmp_path / "imported"
    result = RUNNER.invoke(
        app, ["import", harness, str(log), "--dataset", str(dataset), "--out", str(imported)]
    )
    assert result.exit_code == 0, result.output
    answers = answers_by_messages(folder)
    reference = predict_on_answers(
        dataset, SystemChoice("llm", "llm"), lambda m: answers[json.dumps(m)], tmp_path / "predicted"
    )
    same_scores(dataset, imported, reference, tmp_path, None)
