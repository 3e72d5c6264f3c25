"""The EarlyDx suite: one encounter of one system scored into a row of additive counts (evidence
tracks, time-critical and per-condition flags, graded predictions), then every ratio metric with
patient-bootstrap intervals on the headline ones, subgroups (appendix F) and per-condition F1.

Only matched diagnosis lists are scored here; the ranking metrics over codes are the CliniBench
suite's, and the final-diagnosis code match is ER-Reason's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from admitdx.contracts import Instance, Match, Prediction
from admitdx.errors import UsageError
from admitdx.metrics import bootstrap, earlydx, graded, subgroups, timecritical
from admitdx.metrics.ratios import Ratio, column_matrix, evaluate
from admitdx.scoring.inputs import SystemInput, require_matches
from admitdx.scoring.sample_size import track_sample_sizes
from admitdx.scoring.suites.base import Advance, RunContext, SystemScore


@dataclass(frozen=True)
class EncounterSettings:
    """Protocol settings of one scoring run (each documented in its metric module)."""

    tracks: tuple[str, ...]
    graded_track: str
    skip_empty: bool = True
    time_critical_track: str = "all"


def encounter_columns(
    inst: Instance, prediction: Prediction | None, match: Match | None, settings: EncounterSettings
) -> tuple[dict[str, float], dict[str, Any]]:
    """(additive counts, a short per-instance record for ``per_instance.jsonl``)."""
    items = prediction.items if prediction else []
    pairs = list(match.pairs) if match else []
    earlydx.check_pairs(pairs, len(items), len(inst.references), inst.id)
    row: dict[str, float] = {}
    for track in settings.tracks:
        row.update(
            earlydx.track_columns(len(items), inst.references, pairs, track, skip_empty=settings.skip_empty)
        )
    row.update(
        timecritical.condition_columns(items, inst.references, pairs, track=settings.time_critical_track)
    )
    row.update(
        timecritical.per_condition_columns(items, inst.references, pairs, settings.time_critical_track)
    )
    row.update(
        graded.graded_columns(
            items,
            inst.references,
            pairs,
            settings.graded_track,
            time_critical_track=settings.time_critical_track,
            skip_empty=settings.skip_empty,
        )
    )
    record = {
        "instance_id": inst.id,
        "subject_id": inst.subject_id,
        "n_predictions": len(items),
        "n_references": len(inst.references),
        "pairs": [list(p) for p in pairs],
        "missing_prediction": prediction is None,
        "parse_error": bool(prediction and prediction.parse_error),
        **{key: row[key] for key in _record_keys(settings.tracks)},
        "time_critical_recorded": [name for name, key in _TC_KEYS["recorded"] if row[key]],
        "time_critical_flagged": [name for name, key in _TC_KEYS["flagged"] if row[key]],
    }
    return row, record


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


class EarlyDxSuite:
    name = "earlydx"
    needs_matcher = True

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
        return {
            "tracks": tracks,
            "tracks_note": note,
            "primary_track": primary,
            "headline_metrics": headline_names(settings),
            "time_critical_conditions": [c.name for c in timecritical.TIME_CRITICAL],
            "_settings": settings,
        }

    def score_system(
        self, ctx: RunContext, run: dict[str, Any], system: SystemInput, advance: Advance | None
    ) -> SystemScore:
        settings: EncounterSettings = run["_settings"]
        require_matches(system, [i.id for i in ctx.instances])
        rows, records = [], []
        for n, inst in enumerate(ctx.instances, start=1):
            row, record = encounter_columns(
                inst, system.predictions.get(inst.id), system.matches.get(inst.id), settings
            )
            rows.append(row)
            records.append(record)
            if advance and n % 1000 == 0:
                advance(1000, 0)
        if advance:
            advance(len(ctx.instances) % 1000, 0)
        ratios = all_ratios(settings, ctx.params.suspected_weight)
        headline = [r for r in ratios if r.name in set(run["headline_metrics"])]
        names, matrix = column_matrix(rows, set().union(*(r.columns() for r in ratios)))
        values = evaluate(ratios, names, matrix.sum(axis=0))
        point = {k: (None if np.isnan(v) else float(v)) for k, v in values.items()}
        head_cols = sorted(set().union(*(r.columns() for r in headline)))
        idx = [names.index(c) for c in head_cols]
        per_subject = bootstrap.subject_sums(ctx.subjects, matrix[:, idx], ctx.order)
        replicates = bootstrap.replicate_values(headline, head_cols, per_subject, ctx.weights)
        cis = bootstrap.intervals(replicates, ctx.params.confidence)
        f1 = next(r for r in ratios if r.name == f"{settings.graded_track}.micro_f1")
        labels = [subgroups.subgroup_labels(i.meta) for i in ctx.instances]
        preds = system.predictions.values()
        fields = {
            "counts": {
                "predicted_items": sum(len(p.items) for p in preds),
                "suspected_items": sum(1 for p in preds for it in p.items if it.status == "suspected"),
            },
            "metrics": {
                k: {"value": v, "ci": list(cis[k]) if cis.get(k) else None} for k, v in point.items()
            },
            "subgroups": subgroups.subgroup_scores(
                names,
                matrix,
                labels,
                f1,
                count_column=f"{settings.graded_track}.scored",
                min_group_size=ctx.params.min_group_size,
            ),
            "per_condition_f1": timecritical.per_condition_f1(point),
            "sample_size": track_sample_sizes(names, matrix, ctx.subjects, settings.tracks),
        }
        return SystemScore(fields, replicates, records)

    def compare(self, baseline: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
        return {
            "per_condition_delta": timecritical.per_condition_delta(
                baseline["per_condition_f1"], other["per_condition_f1"]
            )
        }
