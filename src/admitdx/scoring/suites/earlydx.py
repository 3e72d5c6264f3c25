"""The EarlyDx suite: one encounter of one system scored into a row of additive counts (evidence
tracks, time-critical and per-condition flags, graded predictions), then every ratio metric with
patient-bootstrap intervals on the headline ones, subgroups (appendix F) and per-condition F1.

Only matched diagnosis lists are scored here; the ranking metrics over codes are the CliniBench
suite's, and the final-diagnosis code match is ER-Reason's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import repeat
from operator import itemgetter
from typing import Any

import numpy as np

from admitdx.contracts import Instance
from admitdx.errors import UsageError
from admitdx.metrics import bootstrap, earlydx, graded, subgroups, timecritical
from admitdx.metrics.batch import AnswerBatch, LabelBatch
from admitdx.metrics.ratios import Ratio, evaluate, stack_columns
from admitdx.scoring.inputs import Record, SystemInput, require_matches
from admitdx.scoring.sample_size import track_sample_sizes
from admitdx.scoring.suites.base import Advance, RunContext, SystemScore


@dataclass(frozen=True)
class EncounterSettings:
    """Protocol settings of one scoring run (each documented in its metric module)."""

    tracks: tuple[str, ...]
    graded_track: str
    skip_empty: bool = True
    time_critical_track: str = "all"


def count_columns(answers: AnswerBatch, settings: EncounterSettings) -> dict[str, np.ndarray]:
    """Every additive count of every encounter of one system: column name → (encounters,) array."""
    columns: dict[str, np.ndarray] = {}
    for track in settings.tracks:
        columns.update(earlydx.track_counts(answers, track, skip_empty=settings.skip_empty))
    columns.update(timecritical.condition_counts(answers, track=settings.time_critical_track))
    columns.update(timecritical.per_condition_counts(answers, settings.time_critical_track))
    columns.update(
        graded.graded_counts(
            answers,
            settings.graded_track,
            time_critical_track=settings.time_critical_track,
            skip_empty=settings.skip_empty,
        )
    )
    return columns


def instance_records(
    encounters: Encounters,
    predictions: Sequence[Record | None],
    pairs: Sequence[list[list[int]] | None],
    columns: dict[str, np.ndarray],
    settings: EncounterSettings,
) -> list[dict[str, Any]]:
    """One short record per encounter for ``per_instance.jsonl`` (``predictions`` and ``pairs``
    as read, None where an encounter has none)."""
    keys = _record_keys(settings.tracks)
    n = len(encounters.ids)
    fields = (
        encounters.ids,
        encounters.subjects,
        [len(p["items"]) if p is not None else 0 for p in predictions],
        encounters.n_references,
        [ps or [] for ps in pairs],
        [p is None for p in predictions],
        [p is not None and bool(p.get("parse_error")) for p in predictions],
        *(columns[k].tolist() for k in keys),
        *(_condition_names(columns, kind, n) for kind in ("recorded", "flagged")),
    )
    names = (*_RECORD_FIELDS, *keys, "time_critical_recorded", "time_critical_flagged")
    return list(map(dict, map(zip, repeat(names), zip(*fields, strict=True))))


@dataclass(frozen=True)
class Encounters:
    """What the per-encounter records need of the evaluated instances, read once per run (not
    once per system: a forked worker that never touches the instance objects never copies
    their memory)."""

    ids: list[str]
    subjects: list[int]
    n_references: list[int]

    @classmethod
    def of(cls, instances: Sequence[Instance]) -> Encounters:
        ids, subjects = [i.id for i in instances], [i.subject_id for i in instances]
        return cls(ids, subjects, [len(i.references) for i in instances])


_RECORD_FIELDS = (
    "instance_id",
    "subject_id",
    "n_predictions",
    "n_references",
    "pairs",
    "missing_prediction",
    "parse_error",
)


def answer_batch(
    labels: LabelBatch,
    predictions: Sequence[Record | None],
    pairs: Sequence[list[list[int]] | None],
    ids: Sequence[str],
    budget: int | None,
) -> AnswerBatch:
    """One system's items and pairs as flat arrays, straight from the prediction and match lines
    (``budget``: only each encounter's first k items, and the pairs among them, count)."""
    items = [(r["items"] if budget is None else r["items"][:budget]) if r else [] for r in predictions]
    flat = [item for xs in items for item in xs]
    kept = [
        (ps if budget is None else [pair for pair in ps if pair[0] < budget]) if ps else [] for ps in pairs
    ]
    suspected = [item.get("status") == "suspected" for item in flat]
    return AnswerBatch.from_flat(labels, list(map(len, items)), list(map(_TEXT, flat)), suspected, kept, ids)


_TEXT = itemgetter("text")


def _condition_names(columns: dict[str, np.ndarray], kind: str, n: int) -> list[list[str]]:
    """Per encounter, the time-critical conditions whose ``<kind>`` indicator is set."""
    names: list[list[str]] = [[] for _ in range(n)]
    for name, key in _TC_KEYS[kind]:
        for i in np.flatnonzero(columns[key]).tolist():
            names[i].append(name)
    return names


_TC_KEYS = {
    kind: [
        (c.name, f"{timecritical.TIME_CRITICAL_PREFIX}.{c.name}.{kind}") for c in timecritical.TIME_CRITICAL
    ]
    for kind in ("recorded", "flagged")
}


@cache
def _record_keys(tracks: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{t}.{k}" for t in tracks for k in ("tp", "n_ref", "ex_f1"))


def all_ratios(settings: EncounterSettings, suspected_weight: float) -> list[Ratio]:
    """Every ratio metric of a scoring run."""
    ratios = [r for t in settings.tracks for r in earlydx.track_ratios(t)]
    ratios += timecritical.condition_ratios()
    ratios += timecritical.condition_ratios(
        timecritical.ABLATION_CONDITIONS, timecritical.PER_CONDITION_PREFIX
    )
    ratios += graded.graded_ratios(suspected_weight)
    return ratios


def headline_names(settings: EncounterSettings) -> list[str]:
    """The metrics that get bootstrap intervals and paired p-values."""
    names = [f"{t}.{m}" for t in settings.tracks for m in earlydx.HEADLINE]
    primary = settings.graded_track
    names += [f"{primary}.recall@{k}" for k in earlydx.RECALL_AT_K]
    names += [
        f"{primary}.{m}"
        for m in (
            "explicit_recall",
            "implicit_recall",
            "mean_predictions",
            "ignore_partial_precision",
            "micro_f1_top1",
            "micro_f1_top2",
        )
    ]
    names += ["tc.recall", "tc.precision", "tc.f1", "tc_graded.recall", "tc_graded.precision"]
    names += [
        f"graded.{v}.{m}" for v in ("standard", "confirmed", "graded") for m in ("precision", "recall", "f1")
    ]
    return names


def _universes(
    ctx: RunContext, tracks: Sequence[str], labels: LabelBatch
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per track, the patients that contribute to it (the authors' bootstrap universe): those with
    an encounter scored on the track — one with a label on it, or every encounter when empty ones
    are scored too. Labels only, so every system is drawn alike. The tracks' resample matrices
    are drawn side by side (:func:`~admitdx.metrics.bootstrap.resample_weights_for`)."""
    contributes = {}
    for track in tracks:
        if ctx.params.skip_empty:
            on_track = labels.encounter[labels.in_classes(earlydx.TRACKS[track])]
            contributes[track] = np.bincount(on_track, minlength=labels.n) > 0
        else:
            contributes[track] = np.ones(labels.n, dtype=bool)
    subjects = np.asarray(ctx.subjects)
    sizes = {len(np.unique(subjects[mask])) for mask in contributes.values()}
    n_boot, seed = ctx.params.n_bootstrap, ctx.params.seed
    drawn = bootstrap.resample_weights_for(sizes - {0}, n_boot, seed, ctx.weights)
    out = {}
    for track, mask in contributes.items():
        size = len(np.unique(subjects[mask]))
        out[track] = bootstrap.universe(ctx.subjects, mask, n_boot, seed, drawn.get(size))
    return out


def _universe_of(metric: str, settings: EncounterSettings) -> str:
    """The track whose patients a headline metric resamples: its own, the graded track's for the
    graded variants, the time-critical track's for the time-critical metrics."""
    prefix = metric.split(".")[0]
    if prefix in settings.tracks:
        return prefix
    return settings.graded_track if prefix == "graded" else settings.time_critical_track


def _replicates(
    ctx: RunContext,
    universes: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    settings: EncounterSettings,
    headline: list[Ratio],
    names: list[str],
    matrix: np.ndarray,
) -> dict[str, np.ndarray]:
    """Bootstrap replicates of the headline metrics, each over its universe (no universes: every
    patient of the split, the run's shared draws)."""
    groups: dict[str | None, list[Ratio]] = {}
    for r in headline:
        groups.setdefault(_universe_of(r.name, settings) if universes else None, []).append(r)
    out: dict[str, np.ndarray] = {}
    subject_array = np.asarray(ctx.subjects)
    for track, ratios in groups.items():
        cols = sorted(set().union(*(r.columns() for r in ratios)))
        idx = [names.index(c) for c in cols]
        if track is None:
            per_subject = bootstrap.subject_sums(ctx.subjects, matrix[:, idx], ctx.order)
            weights = ctx.weights
        else:
            mask, order, weights = universes[track]
            # the wanted columns first, then the track's rows: one small copy, not two large ones
            per_subject = bootstrap.subject_sums(subject_array[mask], matrix[:, idx][mask], order)
        out.update(bootstrap.replicate_values(ratios, cols, per_subject, weights))
    return out


class EarlyDxSuite:
    name = "earlydx"
    needs_matcher = True
    #: score_system reads the prepared run and changes nothing in it, and starts no threads or
    #: connections, so systems may be scored in forked workers (admitdx.scoring.parallel)
    forkable = True

    def prepare(self, ctx: RunContext) -> dict[str, Any]:
        tracks, note = earlydx.available_tracks([i.references for i in ctx.instances])
        primary = earlydx.PRIMARY_TRACK if earlydx.PRIMARY_TRACK in tracks else "all"
        if ctx.params.time_critical_track not in tracks:
            raise UsageError(
                f"time-critical track {ctx.params.time_critical_track!r} is not available here",
                hint=f"choose one of: {', '.join(tracks)}" + (f" ({note})" if note else ""),
            )
        settings = EncounterSettings(
            tuple(tracks), primary, ctx.params.skip_empty, ctx.params.time_critical_track
        )
        labels = LabelBatch([i.references for i in ctx.instances])  # label-only: shared by systems
        universes = _universes(ctx, tracks, labels) if ctx.params.bootstrap_universe == "track" else {}
        return {
            "tracks": tracks,
            "tracks_note": note,
            "bootstrap_patients": {
                t: (len(universes[t][1]) if universes else len(ctx.order)) for t in tracks
            },
            "_universes": universes,
            "primary_track": primary,
            "headline_metrics": headline_names(settings),
            "time_critical_conditions": [c.name for c in timecritical.TIME_CRITICAL],
            "_settings": settings,
            "_ratios": all_ratios(settings, ctx.params.suspected_weight),
            "_labels": labels,
            "_subgroup_labels": [subgroups.subgroup_labels(i.meta) for i in ctx.instances],
            "_encounters": Encounters.of(ctx.instances),
        }

    def score_system(
        self, ctx: RunContext, run: dict[str, Any], system: SystemInput, advance: Advance | None
    ) -> SystemScore:
        settings: EncounterSettings = run["_settings"]
        ratios: list[Ratio] = run["_ratios"]
        encounters: Encounters = run["_encounters"]
        ids = encounters.ids
        require_matches(system, ids)
        predictions = [system.records.get(i) for i in ids]
        pairs = [system.pairs.get(i) for i in ids]
        answers = answer_batch(run["_labels"], predictions, pairs, ids, ctx.params.budget)
        columns = count_columns(answers, settings)
        if advance:
            advance(len(ctx.instances), 0)
        wanted = set().union(*(r.columns() for r in ratios))
        names, matrix = stack_columns(columns, wanted, len(ctx.instances))
        values = evaluate(ratios, names, matrix.sum(axis=0))
        point = {k: (None if np.isnan(v) else float(v)) for k, v in values.items()}
        headline_set = set(run["headline_metrics"])
        headline = [r for r in ratios if r.name in headline_set]
        replicates = _replicates(ctx, run["_universes"], settings, headline, names, matrix)
        cis = bootstrap.intervals(replicates, ctx.params.confidence)
        f1 = next(r for r in ratios if r.name == f"{settings.graded_track}.micro_f1")
        all_items = [item for r in system.records.values() for item in r["items"]]
        fields = {
            "counts": {
                "predicted_items": len(all_items),
                "suspected_items": [it.get("status") for it in all_items].count("suspected"),
            },
            "metrics": {
                k: {"value": v, "ci": list(cis[k]) if cis.get(k) else None} for k, v in point.items()
            },
            "subgroups": subgroups.subgroup_scores(
                names,
                matrix,
                run["_subgroup_labels"],
                f1,
                count_column=f"{settings.graded_track}.scored",
                min_group_size=ctx.params.min_group_size,
            ),
            "per_condition_f1": timecritical.per_condition_f1(point),
            "per_condition_n": timecritical.per_condition_n(columns),
            "sample_size": track_sample_sizes(names, matrix, ctx.subjects, settings.tracks),
        }
        records = instance_records(encounters, predictions, pairs, columns, settings)
        return SystemScore(fields, replicates, records)

    def compare(self, baseline: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
        return {
            "per_condition_delta": timecritical.per_condition_delta(
                baseline["per_condition_f1"], other["per_condition_f1"]
            )
        }
