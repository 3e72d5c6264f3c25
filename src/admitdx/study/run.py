"""``run_study``: every stage of every task of a study, in order, through the stages' own resumable,
provenance-checked functions — there is no second pipeline here.

Per task, under ``<out>/<task run>/``: ``dataset/`` (the build; skipped when its manifest matches),
``audited/`` (with ``audit: rules``), ``subset/`` (with ``subset: N``), ``predictions/<system>/``
(each appended to and resumed: a killed study loses only the calls in flight and makes none twice,
since answered LLM calls are also in the response cache), ``matches`` inside each predictions
directory (content-cached), and ``report/``: results.json, table.md, report.html and the
per-encounter browser encounters.html. Scoring reruns every time (seconds, deterministic: the
same inputs write the same results.json bytes). Last, the leaderboard over every task.

A run ``from:`` another predicts on that run's dataset (``subset/`` when it cuts one) and waits for
it when the two are in different lanes (``lanes:``, :mod:`admitdx.study.lanes`). ``llm_audit:``
writes ``llm-audit-sample/`` and ``llm-audit/`` beside the build; ``judge:`` adds its matches and
``matches/agreement_<judge>_vs_<matcher>.json`` to the judged systems' prediction directories.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from admitdx.auditing.dataset import audit_dataset
from admitdx.auditing.llm_auditor import LLMAuditor
from admitdx.auditing.rules import RuleAuditor
from admitdx.contracts import INSTANCES_FILE, load_instances
from admitdx.jsonl import write_jsonl
from admitdx.llm.open import LLM_OPTIONS, open_llm_client
from admitdx.matching import create_matcher
from admitdx.matching.agreement import write_agreement
from admitdx.matching.runner import run_matcher
from admitdx.report.leaderboard_files import LEADERBOARD
from admitdx.runs import exclusive
from admitdx.study.identity import claim
from admitdx.study.lanes import Datasets, run_in_lanes
from admitdx.study.leaderboard import write_leaderboard
from admitdx.study.names import under
from admitdx.study.scored import Scored
from admitdx.study.spec import LLMAudit, Study, TaskRun
from admitdx.study.steps import Steps, score_and_report
from admitdx.study.subset import llm_subset
from admitdx.systems.runner import run_predictions

DATASET_DIR = "dataset"
REPORT_DIR = "report"
MEMORY_LIMIT = "3GB"  # DuckDB's cap for a build, as `admitdx build`'s default
#: One lane scores at a time: it takes seconds, so the lanes lose nothing. (While lanes run, scoring
#: stays in this process, :mod:`admitdx.concurrency`; with one lane it forks its workers through one
#: slot per process, :func:`admitdx.scoring.parallel.fork_map`.)
_SCORING = threading.Lock()


def prepare_dataset(run: TaskRun, out: Path, steps: Steps, datasets: Datasets) -> Path:
    """Build (or reuse) the task's dataset and audit it — or, with ``from:``, wait for that run's —
    then cut its subset as the study asks; the dataset directory every system of the task predicts
    on. The built (audited) dataset is handed to ``datasets`` for the runs ``from:`` this one.
    Makes no model call."""
    if run.base is not None:
        dataset = datasets.get(run.base)
    else:
        try:
            dataset = _build_and_audit(run, out, steps)
        except BaseException as e:
            datasets.fail(run.name, e)
            raise
        datasets.put(run.name, dataset)
    if run.subset is not None:
        dataset = llm_subset(dataset, under(out, "subset"), run.subset)
        steps.say(f"   {run.name}: the first {run.subset} test instances only (subset/)")
    return dataset


def _build_and_audit(run: TaskRun, out: Path, steps: Steps) -> Path:
    spec = run.spec
    with steps.step(f"{run.name}: build {spec.name}"):
        dataset = under(out, DATASET_DIR)
        with exclusive(dataset, f"build {spec.name}"):
            built = spec.build(run.source, dataset, run.params, split_file=None, progress=None,
                               memory_limit=MEMORY_LIMIT, force=False)  # fmt: skip
        if built.get("skipped"):
            steps.say("   already built (same inputs and parameters)")
    if run.audit == "rules":
        with steps.step(f"{run.name}: evidence audit (rule-based)"):
            audited = under(out, "audited")
            outputs = audit_dataset(dataset, audited, RuleAuditor(), truth_root=_truth(run.source))
            steps.say(f"   {audit_line(outputs)}")
            return audited
    return dataset


def llm_audit(
    run: TaskRun, audit: LLMAudit, out: Path, steps: Steps, allow_hosts: list[Any]
) -> dict[str, Any]:
    """The LLM auditor over the first test encounters of the task's build (``llm-audit/``), compared
    with a synthetic root's ``_truth/`` where there is one; resumes like every audit."""
    sample_dir, audit_dir = under(out, "llm-audit-sample"), under(out, "llm-audit")
    sample = load_instances(out / DATASET_DIR, split="test")[: audit.instances]
    write_jsonl(sample_dir / INSTANCES_FILE, (i.to_dict() for i in sample))
    options = {k: v for k, v in audit.system.options.items() if k in LLM_OPTIONS}
    with steps.step(
        f"{run.name}: evidence audit (LLM, {audit.system.name}) of {audit.instances} test encounters"
    ):
        with open_llm_client(options, allow_hosts, audit_dir) as client:
            outputs = audit_dataset(sample_dir, audit_dir, LLMAuditor(client), truth_root=_truth(run.source))
        steps.say(f"   {audit_line(outputs)}")
    return outputs


def _truth(root: Path) -> Path | None:
    """A synthetic root (it has ``_truth/``): audits report their agreement with its true classes."""
    return root if (root / "_truth").is_dir() else None


def run_task(run: TaskRun, out: Path, steps: Steps, allow_hosts: list[Any], datasets: Datasets) -> Scored:
    """Build, predict, match, score and report one task under ``out``. Progress bars are drawn in
    the foreground lane only (a buffered lane draws none)."""
    dataset = prepare_dataset(run, out, steps, datasets)
    if run.llm_audit is not None:
        llm_audit(run, run.llm_audit, out, steps, allow_hosts)
    dirs = []
    for choice in run.systems:
        with steps.step(f"{run.name}: predict {choice.name}"):
            done = run_predictions(dataset, choice, under(out, "predictions", choice.name),
                                   allow_hosts=allow_hosts, show_progress=not steps.buffered)  # fmt: skip
            steps.say(f"   {done.predicted} predicted now, {done.resumed} earlier, {done.outcome()}")
            dirs.append(done.out_dir)
    matcher = run.matcher or run.spec.matcher
    if run.spec.needs_matcher and matcher:
        with steps.step(f"{run.name}: match ({matcher})"):
            _match(matcher, run.matcher_options, dataset, dirs)
        if run.judge is not None:
            judged = [d for c, d in zip(run.systems, dirs, strict=True) if c.name in run.judge.systems]
            with steps.step(f"{run.name}: judge ({run.judge.matcher}) and its agreement with {matcher}"):
                _match(run.judge.matcher, run.judge.options, dataset, judged)
                for d in judged:
                    result, _ = write_agreement(dataset, d, run.judge.matcher, matcher)
                    steps.say(f"   {d.name}: {_agreement_line(result.to_dict())}")
    params = replace(run.score, matcher=matcher if run.spec.needs_matcher else None)
    with steps.step(f"{run.name}: score and report"), _SCORING:
        report_dir = under(out, REPORT_DIR)
        results, _ = score_and_report(dataset, dirs, report_dir, params)
    return Scored(run.name, run.spec.name, run.params, report_dir, results)


def _match(name: str, options: dict[str, Any], dataset: Path, dirs: list[Path]) -> None:
    """The matcher ``name`` over every prediction directory, loaded once for all of them."""
    m = create_matcher(name, **options)
    try:
        for d in dirs:
            run_matcher(m, dataset, d)
    finally:
        m.close()


def run_study(study: Study, steps: Steps, take_over: bool = False) -> tuple[Path, list[Scored]]:
    """Every task run in the study's order, ``study.lanes`` at a time, then the leaderboard;
    (leaderboard.html's path, every scored run). First ``out:`` is claimed for this study
    (:func:`admitdx.study.identity.claim`: another study's folder is refused unless ``take_over``)."""
    claim(study, take_over)
    for suffix in (".json", ".md", ".tex", ".html"):  # a leaderboard file linked elsewhere: refused
        under(study.out, LEADERBOARD + suffix)
    datasets = Datasets()
    jobs = [(t.name, partial(_job, t, study, datasets)) for t in study.tasks]
    scored = run_in_lanes(jobs, study.lanes, steps)
    repeats = {t.name: (t.repeat_of, t.score.seed) for t in study.tasks if t.repeat_of}
    return write_leaderboard(study.out, study.title, scored, study.system_names, study.path, repeats), scored


def _job(run: TaskRun, study: Study, datasets: Datasets, steps: Steps) -> Scored:
    palette = replace(run.score, palette=tuple(study.system_names))  # one colour per system, study-wide
    return run_task(
        replace(run, score=palette), under(study.out, run.name), steps, study.config.allow_hosts, datasets
    )


def audit_line(outputs: dict[str, Any]) -> str:
    """An audit's evidence classes, unparseable labels and agreement with ``_truth`` in one line."""
    line = (
        f"{outputs['references']} labels: {outputs['evidence_class']}, {outputs['unparseable']} unparseable"
    )
    if "agreement" in outputs:
        a = outputs["agreement"]
        line += f"; agreement with _truth {a['accuracy']:.2f} (kappa {_num(a['cohen_kappa'])})"
    return line


def _agreement_line(result: dict[str, Any]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {_num(v)}" for k, v in result.items() if k not in ("a", "b"))


def _num(value: Any) -> str:
    return "n/a" if value is None else f"{value:.2f}" if isinstance(value, float) else str(value)
