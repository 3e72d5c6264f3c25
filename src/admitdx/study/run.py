"""``run_study``: every stage of every task of a study, in order, through the stages' own resumable,
provenance-checked functions — there is no second pipeline here.

Per task, under ``<out>/<task run>/``: ``dataset/`` (the build; skipped when its manifest matches),
``audited/`` (with ``audit: rules``), ``subset/`` (with ``subset: N``), ``predictions/<system>/``
(each appended to and resumed: a killed study loses only the calls in flight and makes none twice,
since answered LLM calls are also in the response cache), ``matches`` inside each predictions
directory (content-cached), and ``report/``: results.json, table.md, report.html and the
per-encounter browser encounters.html. Scoring reruns every time (seconds, deterministic: the
same inputs write the same results.json bytes). Last, the leaderboard over every task.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from admitdx.auditing.dataset import audit_dataset
from admitdx.auditing.rules import RuleAuditor
from admitdx.demo.steps import Steps, llm_subset, score_and_report
from admitdx.matching import create_matcher
from admitdx.matching.runner import run_matcher
from admitdx.runs import exclusive
from admitdx.study.leaderboard import Scored, write_leaderboard
from admitdx.study.spec import Study, TaskRun
from admitdx.systems.runner import run_predictions

DATASET_DIR = "dataset"
REPORT_DIR = "report"
MEMORY_LIMIT = "3GB"  # DuckDB's cap for a build, as `admitdx build`'s default


def prepare_dataset(run: TaskRun, out: Path, steps: Steps) -> Path:
    """Build (or reuse) the task's dataset, audit it and cut its subset as the study asks; the
    dataset directory every system of the task predicts on. Makes no model call."""
    spec = run.spec
    with steps.step(f"{run.name}: build {spec.name}"):
        dataset = out / DATASET_DIR
        with exclusive(dataset, f"build {spec.name}"):
            built = spec.build(run.source, dataset, run.params, split_file=None, progress=None,
                               memory_limit=MEMORY_LIMIT, force=False)  # fmt: skip
        if built.get("skipped"):
            steps.say("   already built (same inputs and parameters)")
    if run.audit == "rules":
        with steps.step(f"{run.name}: evidence audit (rule-based)"):
            audited = out / "audited"
            audit_dataset(dataset, audited, RuleAuditor())
            dataset = audited
    if run.subset is not None:
        dataset = llm_subset(dataset, out / "subset", run.subset)
        steps.say(f"   {run.name}: the first {run.subset} test instances only (subset/)")
    return dataset


def run_task(run: TaskRun, out: Path, steps: Steps, allow_hosts: list[Any]) -> Scored:
    """Build, predict, match, score and report one task under ``out``."""
    dataset = prepare_dataset(run, out, steps)
    dirs = []
    for choice in run.systems:
        with steps.step(f"{run.name}: predict {choice.name}"):
            done = run_predictions(
                dataset, choice, out / "predictions" / choice.name, allow_hosts=allow_hosts
            )
            steps.say(
                f"   {done.predicted} predicted now, {done.resumed} earlier, {done.parse_errors} unparseable"
            )
            dirs.append(done.out_dir)
    matcher = run.matcher or run.spec.matcher
    if run.spec.needs_matcher and matcher:
        with steps.step(f"{run.name}: match ({matcher})"):
            m = create_matcher(matcher, **run.matcher_options)  # loaded once for every system
            try:
                for d in dirs:
                    run_matcher(m, dataset, d)
            finally:
                m.close()
    params = replace(run.score, matcher=matcher if run.spec.needs_matcher else None)
    with steps.step(f"{run.name}: score and report"):
        report_dir = out / REPORT_DIR
        results, _ = score_and_report(dataset, dirs, report_dir, params)
    return Scored(run.name, run.spec.name, run.params, report_dir, results)


def run_study(study: Study, steps: Steps) -> Path:
    """Every task in the study's order, then the leaderboard; returns leaderboard.html's path."""
    scored = [run_task(t, study.out / t.name, steps, study.config.allow_hosts) for t in study.tasks]
    return write_leaderboard(study.out, study.path.stem, scored, study.system_names)
