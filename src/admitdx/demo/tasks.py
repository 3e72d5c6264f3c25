"""The demo's other tasks: CliniBench (hosp, ICD-10) and the MIMIC-IV-ED ER-Reason acuity and
disposition tasks, each built from the demo's synthetic root through its registered task spec.

Per task: the build, its baselines over the whole test split (``<task>/report/``), and — with the
local model — the model on a documented subset of the first test instances, every system scored
on that same subset (``<task>/report-llm-subset/``, titled as a subset), as for EarlyDx.

The local model's settings keep its cost small (see :mod:`admitdx.demo` for the measured figures):
category answers are an enum in the schema, so ``category_max_tokens`` (24) bounds an answer of
at most 11 tokens; CliniBench's few-shot prompt shows ``clinibench_llm_k`` (1) retrieved training
note with its gold titles (≈650 prompt and ≈80 answer tokens), and its descriptions are mapped to
codes by BM25 (§4.2; the run's manifest records the discarded share).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from admitdx.demo.params import DemoParams
from admitdx.demo.steps import Steps, llm_subset, predict_all, score_and_report
from admitdx.scoring.run import ScoreParams
from admitdx.systems.config import SystemChoice
from admitdx.tasks.registry import get_task


@dataclass(frozen=True)
class TaskDemo:
    """One task of the demo: the registered spec, its build options, its systems."""

    task: str  # the registered task name
    title: str
    build: dict[str, Any]
    baselines: tuple[SystemChoice, ...]
    llm: SystemChoice
    llm_subset: int


@dataclass
class TaskOutcome:
    """Where a task's reports are and what they hold (the results dicts)."""

    demo: TaskDemo
    dataset: Path
    counts: str
    report: Path
    results: dict[str, Any]
    subset_report: Path | None = None
    subset_results: dict[str, Any] | None = None


def task_demos(params: DemoParams) -> list[TaskDemo]:
    """CliniBench with TF-IDF (F1-tuned thresholds), knn-vote and the local model few-shot with one
    BM25-retrieved demonstration, its descriptions mapped to codes by BM25 (§4.2; the embedding
    mapping would load a second sentence-embedding model for three answers); the two ER-Reason
    tasks with the majority class, the triage-vitals classifier and the local model zero-shot."""
    local = {"base_url": "local", "max_input_chars": params.llm_max_input_chars}
    clinibench_llm = {"prompt": "few-shot", "k": params.clinibench_llm_k, "retriever": "bm25",
                      "max_tokens": params.llm_max_tokens, "mapping": "bm25"}  # fmt: skip
    # n_jobs=1: the other core is busy with a model server, and worker processes cost more than they save
    clinibench = (
        SystemChoice("tfidf-threshold", "tfidf-threshold", {"n_jobs": 1}),
        SystemChoice("knn-vote", "knn-vote"),
    )
    category = (SystemChoice("majority", "majority"), SystemChoice("triage-classifier", "triage-classifier"))
    category_llm = {"prompt": "zero-shot", "max_tokens": params.category_max_tokens}
    er = {"seed": params.seed}
    cb = {"module": "hosp", "icd_version": 10, "seed": params.seed}
    return [
        TaskDemo("clinibench", "CliniBench hosp ICD-10", cb, clinibench,
                 SystemChoice("smollm2-fewshot-bm25", "llm-codes", {**local, **clinibench_llm}),
                 params.clinibench_llm_subset),
        *(TaskDemo(f"er-reason-{name}", f"ER-Reason {name} (MIMIC-IV-ED)", er, category,
                   SystemChoice("smollm2-zeroshot", "llm", {**local, **category_llm}), params.er_llm_subset)
          for name in ("acuity", "disposition")),
    ]  # fmt: skip


def run_task_demos(
    mimic: Path, out: Path, params: DemoParams, steps: Steps, *, llm: bool
) -> list[TaskOutcome]:
    """Every task of :func:`task_demos`, one after the other, under ``out/<task>/``."""
    return [_run_one(d, mimic, out / d.task, params, steps, llm=llm) for d in task_demos(params)]


def _run_one(
    demo: TaskDemo, mimic: Path, out: Path, params: DemoParams, steps: Steps, *, llm: bool
) -> TaskOutcome:
    spec = get_task(demo.task)
    quiet = steps.buffered  # a background stage draws no progress bars
    with steps.step(f"{demo.title}: build"):
        dataset = out / "dataset"
        outputs = spec.build(mimic, dataset, spec.params(**demo.build), split_file=None, progress=None,
                             memory_limit="1GB", force=False)  # fmt: skip
        counts = _counts_line(outputs["counts"])
        steps.say(f"   {counts}")
    dirs = predict_all(steps, dataset, list(demo.baselines), out / "predictions", show_progress=not quiet)
    score = ScoreParams(seed=params.seed)  # category and CliniBench suites need no matcher
    with steps.step(f"{demo.title}: score and report"):
        results, report = score_and_report(dataset, dirs, out / "report", score)
    outcome = TaskOutcome(demo, dataset, counts, report, results)
    if not llm:
        return outcome
    subset = llm_subset(dataset, out / "dataset-llm-subset", demo.llm_subset)
    choices = [*demo.baselines, demo.llm]
    subset_dirs = predict_all(steps, subset, choices, out / "predictions-llm-subset", show_progress=not quiet)
    with steps.step(f"{demo.title}: score and report on the local model's subset ({demo.llm_subset})"):
        outcome.subset_results, outcome.subset_report = score_and_report(
            subset, subset_dirs, out / "report-llm-subset", score
        )
    return outcome


def _counts_line(c: dict[str, Any]) -> str:
    if "notes_per_split" in c:  # CliniBench
        n = c["notes_per_split"]
        return (
            f"{c['notes']} notes ({n['train']} train / {n['val']} val / {n['test']} test), "
            f"{c['evaluated_labels']} evaluated 3-character codes, {c['codes_per_note']} codes per note"
        )
    return f"{c['ed_stays']} ED stays: {c['train_instances']} train / {c['test_instances']} test"
