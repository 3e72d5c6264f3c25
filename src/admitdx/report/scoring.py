"""``admitdx score``: score one or more prediction directories against a dataset, with intervals.

Reads the dataset's evaluated split, each system's ``predictions.jsonl`` and its cached matches
(``matches/<matcher>.jsonl``), scores every encounter (:mod:`admitdx.report.encounter`), and
writes ``results.json`` (every metric, 95 % patient-bootstrap intervals on the headline ones,
paired p-values against the baseline system), ``per_instance.jsonl`` and ``table.md``.

Nothing is dropped silently: an encounter without a prediction is scored as an empty prediction
and counted (``missing``), a failed parse is counted (``parse_errors``), predictions for encounters
outside the evaluated split are counted (``outside_split``). A system with predictions but no
matches for an encounter is an error: the matching step was not run or not finished.
"""

from __future__ import annotations

import gc
import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from admitdx import __version__
from admitdx.contracts import MATCHES_DIR, Instance, Match, Prediction, load_instances, load_predictions
from admitdx.errors import InputError, UsageError
from admitdx.jsonl import read_jsonl, write_jsonl
from admitdx.metrics import bootstrap, clinibench, earlydx, erreason, subgroups, timecritical
from admitdx.metrics.ratios import Ratio, column_matrix, evaluate
from admitdx.report.context import (
    caveat_for,
    find_agreement,
    section_coverage,
    system_description,
    system_entry,
)
from admitdx.report.encounter import EncounterSettings, all_ratios, encounter_columns, headline_names
from admitdx.report.table import write_table
from admitdx.runs import read_manifest, sha256_file, write_manifest

RESULTS_FILE = "results.json"
PER_INSTANCE_FILE = "per_instance.jsonl"
TABLE_FILE = "table.md"


@dataclass(frozen=True)
class ScoreParams:
    """Every protocol choice of a scoring run (recorded in results.json and the manifest)."""

    matcher: str
    split: str = "test"
    n_bootstrap: int = bootstrap.N_BOOTSTRAP
    confidence: float = bootstrap.CONFIDENCE
    seed: int = bootstrap.SEED
    skip_empty: bool = True
    suspected_weight: float = 0.0
    time_critical_track: str = "all"
    top_n: int = clinibench.TOP_N
    min_group_size: int = subgroups.MIN_GROUP_SIZE
    baseline: str | None = None


@dataclass
class SystemInput:
    name: str
    directory: Path
    predictions: dict[str, Prediction]
    matches: dict[str, Match]
    outside_split: int


def _load_system(directory: Path, matcher: str, eval_ids: set[str]) -> SystemInput:
    preds = load_predictions(directory)
    by_id: dict[str, Prediction] = {}
    for p in preds:
        if p.instance_id in by_id:
            raise InputError(
                f"instance {p.instance_id} has two predictions",
                table=str(directory / "predictions.jsonl"),
                hint="a prediction run must predict each instance once; rerun `admitdx predict`",
            )
        by_id[p.instance_id] = p
    path = directory / MATCHES_DIR / f"{matcher}.jsonl"
    if not path.exists():
        raise UsageError(
            f"{directory} has no matches by the {matcher!r} matcher ({path} is missing)",
            hint=f"run `admitdx match --dataset DIR --predictions {directory} --matcher {matcher}` first",
        )
    matches = {m.instance_id: m for m in (Match.from_dict(d) for d in read_jsonl(path))}
    names = {p.system for p in preds}
    name = names.pop() if len(names) == 1 else directory.name
    outside = sum(i not in eval_ids for i in by_id)
    return SystemInput(name, directory, {k: v for k, v in by_id.items() if k in eval_ids}, matches, outside)


def _score_system(
    system: SystemInput,
    instances: Sequence[Instance],
    settings: EncounterSettings,
    advance: Callable[[int, int], None] | None,
) -> tuple[list[dict[str, float]], list[dict[str, Any]]]:
    rows, extras = [], []
    unmatched = [
        i.id
        for i in instances
        if i.id in system.predictions and system.predictions[i.id].items and i.id not in system.matches
    ]
    if unmatched:
        raise UsageError(
            f"{system.directory}: {len(unmatched)} predictions have no match (e.g. {unmatched[0]})",
            hint="the matching run is incomplete; rerun `admitdx match` (it resumes)",
        )
    for n, inst in enumerate(instances, start=1):
        row, extra = encounter_columns(
            inst, system.predictions.get(inst.id), system.matches.get(inst.id), settings
        )
        rows.append(row)
        extras.append(extra)
        if advance and n % 1000 == 0:
            advance(1000, 0)
    if advance:
        advance(len(instances) % 1000, 0)
    return rows, extras


@dataclass(frozen=True)
class _RunContext:
    """What every system of one run is scored against (shared, so the bootstrap is paired)."""

    instances: Sequence[Instance]
    subjects: Sequence[int]
    order: np.ndarray
    weights: np.ndarray
    labels: Sequence[dict[str, str]]
    train_frequencies: Counter[str] | None
    ratios: Sequence[Ratio]
    headline: Sequence[Ratio]
    settings: EncounterSettings
    params: ScoreParams


def _system_result(
    system: SystemInput, rows: list[dict[str, float]], extras: list[dict[str, Any]], ctx: _RunContext
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """One system's entry of results.json, and its bootstrap replicates (for the paired tests)."""
    params, primary = ctx.params, ctx.settings.graded_track
    names, matrix = column_matrix(rows, set().union(*(r.columns() for r in ctx.ratios)))
    values = evaluate(ctx.ratios, names, matrix.sum(axis=0))
    point = {k: (None if np.isnan(v) else float(v)) for k, v in values.items()}
    head_cols = sorted(set().union(*(r.columns() for r in ctx.headline)))
    idx = [names.index(c) for c in head_cols]
    per_subject = bootstrap.subject_sums(ctx.subjects, matrix[:, idx], ctx.order)
    replicates = bootstrap.replicate_values(ctx.headline, head_cols, per_subject, ctx.weights)
    replicates |= clinibench.macro_replicates(
        [e["gold_codes"] for e in extras],
        [e["ranking"] for e in extras],
        ctx.subjects,
        ctx.order,
        ctx.weights,
        top_n=params.top_n,
    )
    cis = bootstrap.intervals(replicates, params.confidence)
    f1 = next(r for r in ctx.ratios if r.name == f"{primary}.micro_f1")
    description = system_description(system.directory)
    preds = system.predictions.values()
    result = {
        "name": system.name,
        "predictions_dir": str(system.directory),
        "description": description,
        "caveat": caveat_for(description, system_entry(system.directory).get("options")),
        "counts": {
            "instances": len(ctx.instances),
            "predictions": len(preds),
            "missing": len(ctx.instances) - len(preds),
            "parse_errors": sum(1 for p in preds if p.parse_error),
            "outside_split": system.outside_split,
            "predicted_items": sum(len(p.items) for p in preds),
            "suspected_items": sum(1 for p in preds for it in p.items if it.status == "suspected"),
            "unmapped_codes": sum(e["record"]["unmapped_codes"] for e in extras),
        },
        "metrics": {k: {"value": v, "ci": list(cis[k]) if cis.get(k) else None} for k, v in point.items()},
        "subgroups": subgroups.subgroup_scores(
            names,
            matrix,
            ctx.labels,
            f1,
            count_column=f"{primary}.scored",
            min_group_size=params.min_group_size,
        ),
        "clinibench": _with_intervals(
            clinibench.clinibench_scores(
                [e["gold_codes"] for e in extras],
                [e["ranking"] for e in extras],
                top_n=params.top_n,
                train_frequencies=ctx.train_frequencies,
            ),
            cis,
        ),
        "erreason_final_diagnosis": _final_diagnosis([e["final_diagnosis"] for e in extras]),
        "per_condition_f1": timecritical.per_condition_f1(point),
    }
    return result, replicates


def _with_intervals(scores: dict[str, Any], cis: dict[str, tuple[float, float] | None]) -> dict[str, Any]:
    """Attach the bootstrap intervals of the macro scores (``macro_f1_ci`` beside ``macro_f1``)."""
    return scores | {f"{k}_ci": cis.get(f"clinibench.{k}") for k in clinibench.MACRO_KEYS}


def _final_diagnosis(finals: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """ER-Reason's ICD exact / 3-character / CCSR / HCC match of the first coded prediction."""
    coded = [f for f in finals if f["gold"]]
    rates = erreason.icd_match_rates(
        [f["predicted"] for f in coded], [f["gold"] for f in coded], [f["code_system"] for f in coded]
    )
    return {**rates, "n": len(coded)}


def _train_frequencies(instances: Sequence[Instance]) -> Counter[str]:
    return Counter(
        lab
        for inst in instances
        for lab in set(clinibench.ranked_labels([r.code for r in inst.references], 10**9))
    )


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
    with _without_cyclic_gc():
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


def _score_run(
    dataset_dir: Path,
    prediction_dirs: Sequence[Path],
    out_dir: Path,
    params: ScoreParams,
    advance: Callable[[int, int], None] | None,
) -> dict[str, Any]:
    everything = load_instances(dataset_dir)
    instances = [i for i in everything if i.split == params.split]
    if not instances:
        raise UsageError(
            f"{dataset_dir} has no instances in split {params.split!r}",
            hint="choose the split the predictions were made for with --split",
        )
    tracks, tracks_note = earlydx.available_tracks([i.references for i in instances])
    primary = earlydx.PRIMARY_TRACK if earlydx.PRIMARY_TRACK in tracks else "all"
    if params.time_critical_track not in tracks:
        raise UsageError(
            f"time-critical track {params.time_critical_track!r} is not available here",
            hint=f"choose one of: {', '.join(tracks)}" + (f" ({tracks_note})" if tracks_note else ""),
        )
    settings = EncounterSettings(
        tuple(tracks), primary, params.skip_empty, params.time_critical_track, params.top_n
    )
    ratios = all_ratios(settings, params.suspected_weight)
    headline = [r for r in ratios if r.name in set(headline_names(settings))]
    eval_ids = {i.id for i in instances}
    systems = [_load_system(Path(d), params.matcher, eval_ids) for d in prediction_dirs]
    if len({s.name for s in systems}) != len(systems):
        raise UsageError(
            "two prediction directories hold the same system name",
            hint="score each system once, or rename one run's system",
        )
    baseline = params.baseline or systems[0].name
    if baseline not in {s.name for s in systems}:
        raise UsageError(
            f"baseline {baseline!r} is not among the scored systems",
            hint="--baseline takes a system name: " + ", ".join(s.name for s in systems),
        )
    subjects = [i.subject_id for i in instances]
    order = np.unique(subjects)
    weights = bootstrap.resample_weights(len(order), params.n_bootstrap, params.seed)
    labels = [subgroups.subgroup_labels(i.meta) for i in instances]
    train_freq = _train_frequencies([i for i in everything if i.split == "train"]) or None
    if advance:
        advance(0, len(systems) * len(instances))
    results: list[dict[str, Any]] = []
    replicates: dict[str, dict[str, np.ndarray]] = {}
    records: list[dict[str, Any]] = []
    context = _RunContext(
        instances, subjects, order, weights, labels, train_freq, ratios, headline, settings, params
    )
    for system in systems:
        rows, extras = _score_system(system, instances, settings, advance)
        result, replicates[system.name] = _system_result(system, rows, extras, context)
        results.append(result)
        records += [{"system": system.name, **e["record"]} for e in extras]
    base = next(r for r in results if r["name"] == baseline)
    for r in results:
        if r["name"] != baseline:
            r["vs_baseline"] = {
                "baseline": baseline,
                "p_values": bootstrap.paired_p_values(replicates[baseline], replicates[r["name"]]),
                "per_condition_delta": timecritical.per_condition_delta(
                    base["per_condition_f1"], r["per_condition_f1"]
                ),
            }
    out = {
        "admitdx_version": __version__,
        "dataset": str(dataset_dir),
        "params": asdict(params),
        "n_instances": len(instances),
        "n_patients": len(order),
        "tracks": tracks,
        "tracks_note": tracks_note,
        "primary_track": primary,
        "baseline": baseline,
        "headline_metrics": [r.name for r in headline] + [f"clinibench.{k}" for k in clinibench.MACRO_KEYS],
        "coverage": section_coverage(dataset_dir, instances),
        "agreement": find_agreement([s.directory for s in systems]),
        "time_critical_conditions": [c.name for c in timecritical.TIME_CRITICAL],
        "systems": results,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / RESULTS_FILE).write_text(
        json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    write_jsonl(out_dir / PER_INSTANCE_FILE, records)
    write_table(out, out_dir / TABLE_FILE)
    write_manifest(
        out_dir,
        stage="score",
        inputs={
            "dataset": sha256_file(dataset_dir / "instances.jsonl"),
            "params": asdict(params),
            "predictions": {s.name: sha256_file(s.directory / "predictions.jsonl") for s in systems},
            "matches": {
                s.name: sha256_file(s.directory / MATCHES_DIR / f"{params.matcher}.jsonl") for s in systems
            },
        },
        outputs={
            "systems": [s.name for s in systems],
            "instances": len(instances),
            "prediction_manifests": {
                s.name: (read_manifest(s.directory) or {}).get("inputs") for s in systems
            },
        },
    )
    return out
