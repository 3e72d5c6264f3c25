"""``admitdx score``: score one or more prediction directories against a dataset, with intervals.

Reads the dataset's evaluated split and its task (:mod:`admitdx.tasks.registry`), each system's
``predictions.jsonl`` (and, for matched tasks, its cached ``matches/<matcher>.jsonl``), scores
them with the task's metric suite, and writes ``results.json`` (the task and suite, every metric,
95 % patient-bootstrap intervals on the headline ones, paired p-values against the baseline
system) and ``per_instance.jsonl``.

Nothing is dropped silently: an encounter without a prediction is scored as an empty prediction
and counted (``missing``), a failed parse is counted (``parse_errors``), and so is an output the
token budget cut before it could be read (``truncated_in_thinking``, ``truncated_in_answer``, present
when any occur: :mod:`admitdx.llm.reasoning`), predictions for encounters
outside the evaluated split are counted (``outside_split``). A system with predictions but no
matches for an encounter is an error: the matching step was not run or not finished.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from admitdx import __version__
from admitdx.colours import assign
from admitdx.contracts import (
    INSTANCES_FILE,
    MATCHES_DIR,
    PREDICTIONS_FILE,
    RESULTS_FILE,
    Instance,
    load_instances,
)
from admitdx.errors import AdmitdxError, UsageError
from admitdx.jsonl import encode_jsonl
from admitdx.llm.reasoning import TRUNCATED_PREFIX, truncated_counts
from admitdx.matching.quality import matcher_quality
from admitdx.metrics import bootstrap
from admitdx.provenance import check_predictions_dataset
from admitdx.runs import exclusive, read_manifest, sha256_file, write_aside, write_manifest
from admitdx.scoring import parallel
from admitdx.scoring.context import (
    absent_sections,
    caveat_for,
    find_agreement,
    section_coverage,
    system_description,
    system_entry,
)
from admitdx.scoring.differences import differences, write_differences
from admitdx.scoring.inputs import SystemInput, load_system
from admitdx.scoring.layout import check_layout
from admitdx.scoring.params import ScoreParams
from admitdx.scoring.suites import get_suite
from admitdx.scoring.suites.base import RunContext, Suite, SystemScore
from admitdx.systems.labels import benchmark_set
from admitdx.tasks.registry import task_of
from admitdx.tasks.spec import TaskSpec

PER_INSTANCE_FILE = "per_instance.jsonl"


def score_run(
    dataset_dir: Path,
    prediction_dirs: Sequence[Path],
    out_dir: Path,
    params: ScoreParams,
    *,
    advance: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Score every prediction directory and write the run directory; returns the results dict.

    ``advance(done, total)`` is called as encounters are scored (``total`` once, first, else 0).
    """
    with exclusive(Path(out_dir), "score"), _without_cyclic_gc():
        return _score_run(Path(dataset_dir), prediction_dirs, Path(out_dir), params, advance)


@contextmanager
def _without_cyclic_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while scoring.

    Scoring builds hundreds of thousands of small dicts and lists that all stay alive until the
    results are written; the generational collector rescans them again and again and finds no
    garbage (a third of the CPU time of 10k encounters × 5 systems). Reference counting still
    frees everything as usual; the collector is restored on exit, also on error.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _matcher(task: TaskSpec, params: ScoreParams, needs_matcher: bool) -> str | None:
    if not needs_matcher:
        if params.matcher is not None:
            raise UsageError(
                f"task {task.name} is scored by the {task.suite} suite without a matcher",
                hint="leave out --matcher",
            )
        return None
    matcher = params.matcher or task.matcher
    if matcher is None:
        raise UsageError(f"task {task.name} needs --matcher (it has no default matcher)")
    return matcher


def _score_run(
    dataset_dir: Path,
    prediction_dirs: Sequence[Path],
    out_dir: Path,
    params: ScoreParams,
    advance: Callable[[int, int], None] | None,
) -> dict[str, Any]:
    everything = load_instances(dataset_dir)
    # EarlyDx §4.1: encounters the audit left with unsupported labels only are not evaluated
    split = [i for i in everything if i.split == params.split]
    instances = benchmark_set(split, keep_unsupported_only=params.keep_unsupported_only)
    if not instances:
        raise UsageError(
            f"{dataset_dir} has no instances in split {params.split!r}",
            hint="choose the split the predictions were made for with --split",
        )
    task = task_of(dataset_dir, everything)
    suite = get_suite(task.suite)
    params = replace(params, matcher=_matcher(task, params, suite.needs_matcher))
    if params.unparseable != "wrong" and not getattr(suite, "excludes_unparseable", False):
        raise UsageError(
            f"--unparseable {params.unparseable} applies to the category and text suites, not {suite.name}",
            hint="leave out --unparseable",
        )
    run = _Run(dataset_dir, everything, instances, task, suite, params, [Path(d) for d in prediction_dirs])
    workers = parallel.worker_count(params.jobs, len(run.dirs))
    if workers > 1 and not params.common and getattr(suite, "forkable", False):
        done = _score_forked(run, workers, advance)
    else:
        done = None
    ctx, prepared, scored, set_aside = done or _score_serial(run, advance)
    baseline = params.baseline or scored[0].name
    results = [s.entry for s in scored]
    replicates = {s.name: s.replicates for s in scored}
    base = next(r for r in results if r["name"] == baseline)
    styles = assign([*params.palette, *(r["name"] for r in results)])  # the study's order first
    for r in results:  # every page and figure of the run draws it so
        r["colour"], r["pattern"] = styles[r["name"]].colour, styles[r["name"]].pattern
    for r in results:
        if r["name"] != baseline:
            r["vs_baseline"] = {
                "baseline": baseline,
                "p_values": bootstrap.paired_p_values(replicates[baseline], replicates[r["name"]]),
                **(suite.compare(base, r) if hasattr(suite, "compare") else {}),
            }
    cut = (read_manifest(dataset_dir) or {}).get("outputs") or {}
    out = {
        "admitdx_version": __version__,
        "dataset": str(dataset_dir),
        "task": task.name,
        "answer": task.answer,
        "suite": suite.name,
        "params": params.recorded(),
        "n_instances": len(ctx.instances),
        "n_patients": len(ctx.order),
        **set_aside,
        "baseline": baseline,
        # a dataset cut from another (the demo's LLM subset) says so in its manifest, and how
        # many of how many test instances it kept (the report marks it: n scored of N in the benchmark set)
        "subset": cut.get("subset"),
        "subset_trial": cut.get("trial"),
        **{k: v for k, v in prepared.items() if not k.startswith("_")},
        "coverage": section_coverage(dataset_dir, ctx.instances),
        "coverage_absent": absent_sections(dataset_dir),
        "agreement": find_agreement([s.directory for s in scored]),
        # the matcher's precision and recall on the adjudicated pair set, and its accepted
        # non-identical pairs per system, for every report to state (issue 33)
        **(
            {"matcher_quality": matcher_quality(params.matcher, [s.directory for s in scored])}
            if params.matcher
            else {}
        ),
        "systems": results,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    write_aside(out_dir / RESULTS_FILE, json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    write_aside(out_dir / PER_INSTANCE_FILE, b"".join(s.lines for s in scored))
    gaps = differences(results, replicates, out.get("headline_metrics", []), params.confidence)
    write_differences(out_dir, gaps, params.n_bootstrap, params.confidence)
    write_manifest(out_dir, stage="score", inputs=_manifest_inputs(dataset_dir, params, scored), outputs={
        "systems": [s.name for s in scored],
        "instances": len(ctx.instances),
        "prediction_manifests": {s.name: (read_manifest(s.directory) or {}).get("inputs") for s in scored},
    })  # fmt: skip
    return out


@dataclass(frozen=True)
class _Run:
    """What a run scores: read and checked before any system is."""

    dataset_dir: Path
    everything: list[Instance]  # the whole dataset (provenance checks, the training split)
    instances: list[Instance]  # the evaluated encounters
    task: TaskSpec
    suite: Suite
    params: ScoreParams  # the matcher resolved
    dirs: list[Path]

    def context(self, instances: list[Instance]) -> RunContext:
        subjects = [i.subject_id for i in instances]
        order = np.unique(subjects)
        return RunContext(
            task=self.task,
            instances=instances,
            train=[i for i in self.everything if i.split == "train"],
            subjects=subjects,
            order=order,
            weights=bootstrap.resample_weights(len(order), self.params.n_bootstrap, self.params.seed),
            params=self.params,
        )


@dataclass(frozen=True)
class _Scored:
    """One system's part of the run's files: its results entry, the replicates of its headline
    metrics (paired tests), its per_instance.jsonl lines (encoded)."""

    name: str
    directory: Path
    entry: dict[str, Any]
    replicates: dict[str, np.ndarray]
    lines: bytes


_Done = tuple[RunContext, dict[str, Any], list[_Scored], dict[str, int]]


def _score_serial(run: _Run, advance: Callable[[int, int], None] | None) -> _Done:
    """Every system in this process: all are read and checked before any is scored, so the first
    problem in that order is the one reported."""
    params = run.params
    eval_ids = {i.id for i in run.instances}
    # predictions of another dataset (another task) are refused before their matches are looked for
    origins = [_origin(run, d) for d in run.dirs]
    systems = [load_system(d, params.matcher, eval_ids) for d in run.dirs]
    provenance = {s.name: _checked_run(s, origin, params) for s, origin in zip(systems, origins, strict=True)}
    instances = run.instances
    set_aside = {"unsupported_only_encounters": _unsupported_only(run)}
    if params.common:
        instances, systems = _common(instances, systems)
        set_aside["common_encounters"] = len(instances)
    _check_names(params, [(s.name, s.directory) for s in systems])
    ctx = run.context(instances)
    prepared = run.suite.prepare(ctx)
    if advance:
        advance(0, len(systems) * len(instances))
    scored = [
        _scored(s, provenance[s.name], run.suite.score_system(ctx, prepared, s, advance), len(instances))
        for s in systems
    ]
    return ctx, prepared, scored, set_aside


def _score_forked(run: _Run, workers: int, advance: Callable[[int, int], None] | None) -> _Done | None:
    """Each system read, checked and scored in a forked worker (:mod:`admitdx.scoring.parallel`),
    against the run prepared once here. Results and errors are those of :func:`_score_serial`:
    the first error raised is the one the serial order meets first (every system's origin, then
    every system's reading, then every system's checks, then the names, then scoring). None where
    the suite refuses the run's settings: the serial path then reports that, after any input error
    it finds first."""
    params, n = run.params, len(run.instances)
    ctx = run.context(run.instances)
    try:
        prepared = run.suite.prepare(ctx)
    except AdmitdxError:
        return None
    eval_ids = {i.id for i in run.instances}

    def score_one(k: int) -> tuple[str | None, _Scored | parallel.Failure]:
        stage, name = "origin", None
        try:
            origin = _origin(run, run.dirs[k])
            stage = "load"
            system = load_system(run.dirs[k], params.matcher, eval_ids)
            stage, name = "check", system.name
            provenance = _checked_run(system, origin, params)
            stage = "score"
            return name, _scored(system, provenance, run.suite.score_system(ctx, prepared, system, None), n)
        except AdmitdxError as e:
            return name, parallel.Failure.of(stage, e)

    if advance:
        advance(0, len(run.dirs) * n)
    outcomes = []
    for name, outcome in parallel.fork_map(score_one, len(run.dirs), workers):
        if advance and isinstance(outcome, _Scored):
            advance(n, 0)
        outcomes.append((name, outcome))
    failures = [f for _, f in outcomes if isinstance(f, parallel.Failure)]
    for stage in ("origin", "load", "check"):
        for failure in failures:
            if failure.stage == stage:
                raise failure.error()
    _check_names(
        params, [(name, d) for (name, _), d in zip(outcomes, run.dirs, strict=True) if name is not None]
    )
    if failures:
        raise failures[0].error()
    scored = [s for _, s in outcomes if isinstance(s, _Scored)]
    return ctx, prepared, scored, {"unsupported_only_encounters": _unsupported_only(run)}


def _unsupported_only(run: _Run) -> int:
    return sum(i.split == run.params.split for i in run.everything) - len(run.instances)


def _check_names(params: ScoreParams, named: list[tuple[str, Path]]) -> None:
    """Each system once, and the baseline among them."""
    names = [name for name, _ in named]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        folders = ", ".join(str(d) for name, d in named if name == twice)
        raise UsageError(
            f"two prediction directories hold the same system name {twice!r}: {folders}",
            hint="score each folder once (a folder given twice counts twice), or give one run another "
            "name: rerun its `admitdx predict` with --name NAME into a new --out",
        )
    baseline = params.baseline or names[0]
    if baseline not in names:
        raise UsageError(
            f"baseline {baseline!r} is not among the scored systems",
            hint="--baseline takes a system name: " + ", ".join(names),
        )


def _scored(
    system: SystemInput, provenance: dict[str, Any], scored: SystemScore, n_instances: int
) -> _Scored:
    header = {**_system_header(system, n_instances), "provenance": provenance}
    counts = {**header["counts"], **scored.fields.get("counts", {})}
    entry = {**header, **scored.fields, "counts": counts}
    lines = encode_jsonl([{"system": system.name, **r} for r in scored.records])
    return _Scored(system.name, system.directory, entry, scored.replicates, lines)


def _common(
    instances: list[Instance], systems: list[SystemInput]
) -> tuple[list[Instance], list[SystemInput]]:
    """``--common``: the encounters every system predicted, and each system's predictions of them
    (one shared set, so paired tests and rankings compare like with like when runs are partial)."""
    covered = [i for i in instances if all(i.id in s.records for s in systems)]
    if not covered:
        raise UsageError(
            "no encounter was predicted by every system: --common leaves nothing to score",
            hint="finish the prediction runs, or score without --common",
        )
    ids = {i.id for i in covered}
    kept = [replace(s, records={k: r for k, r in s.records.items() if k in ids}) for s in systems]
    return covered, kept


def _origin(run: _Run, directory: Path) -> dict[str, Any]:
    """Refuse predictions made on another dataset (or another layout, or other labels without the
    flags): read from the manifest alone, before the predictions and matches are read, so they
    are not sent to `admitdx match` for matches that would score another benchmark."""
    params = run.params
    return check_layout(
        run.everything, directory, allow_other_layout=params.allow_other_layout
    ) or check_predictions_dataset(
        run.dataset_dir,
        run.everything,
        directory,
        allow_label_change=params.allow_label_change,
        allow_no_manifest=params.allow_no_manifest,
    )


def _checked_run(system: SystemInput, record: dict[str, Any], params: ScoreParams) -> dict[str, Any]:
    """Refuse predictions that cannot be scored here: for another split, unfinished (without the
    flag), or empty; ``record`` is what :func:`_origin` found."""
    manifest = read_manifest(system.directory) or {}
    predicted_split = (manifest.get("inputs") or {}).get("split")
    if predicted_split not in (None, params.split):
        raise UsageError(
            f"{system.directory} holds predictions of the {predicted_split!r} split, not {params.split!r}",
            hint=f"score with --split {predicted_split}, or predict the {params.split} split",
        )
    if (manifest.get("outputs") or {}).get("complete") is False:
        if not params.allow_incomplete:
            raise UsageError(
                f"{system.directory} is an unfinished prediction run (its manifest says complete: false)",
                hint="rerun the same `admitdx predict` command to finish it, or pass --allow-incomplete "
                "to score what is there (recorded in the results)",
            )
        record["incomplete"] = "allowed by --allow-incomplete"
    if not system.records:
        raise UsageError(
            f"{system.directory} has no prediction for any instance of the {params.split!r} split",
            hint="check --predictions and --split, or run `admitdx predict` first",
        )
    return record


def _system_header(system: SystemInput, n_instances: int) -> dict[str, Any]:
    """The part of a system's results entry every suite shares: who it is and what was counted."""
    description = system_description(system.directory)
    preds = system.records.values()
    errors = [p["parse_error"] for p in preds if p.get("parse_error")]
    # an LLM run's token counts (and cost) from its manifest: admitdx.llm.usage; absent for other systems
    tokens = (((read_manifest(system.directory) or {}).get("outputs") or {}).get("fit") or {}).get("tokens")
    return {
        "name": system.name,
        "predictions_dir": str(system.directory),
        "description": description,
        "caveat": caveat_for(system.directory),
        "counts": {
            "instances": n_instances,
            "predictions": len(preds),
            "missing": n_instances - len(preds),
            "parse_errors": sum(1 for e in errors if not e.startswith(TRUNCATED_PREFIX)),
            "outside_split": system.outside_split,
            **truncated_counts(errors),
        },
        **({"tokens": tokens} if tokens else {}),
    }


def _manifest_inputs(dataset_dir: Path, params: ScoreParams, systems: list[_Scored]) -> dict[str, Any]:
    inputs: dict[str, Any] = {
        "dataset": sha256_file(dataset_dir / INSTANCES_FILE),
        "params": params.recorded(),
        "predictions": {s.name: sha256_file(s.directory / PREDICTIONS_FILE) for s in systems},
    }
    if params.matcher is not None:
        inputs["matches"] = {
            s.name: sha256_file(s.directory / MATCHES_DIR / f"{params.matcher}.jsonl") for s in systems
        }
    return inputs


__all__ = ["PER_INSTANCE_FILE", "RESULTS_FILE", "ScoreParams", "score_run", "system_entry"]
