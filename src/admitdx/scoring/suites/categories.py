"""The category suite (ER-Reason tasks 1 and 5: acuity, disposition): accuracy with a patient
bootstrap interval, the confusion matrix (rows recorded, columns predicted; an unreadable answer
is its own column), per-class recall, and each class's predicted share against its recorded share
(ER-Reason's discharge-rate bias: 15 % predicted vs 37 % recorded discharges).

For ordered categories (``TaskSpec.ordinal``, listed most urgent first) it adds the under-triage
rate (predicted less urgent than recorded) and the over-triage rate (more urgent); an unreadable
answer counts as neither, but as wrong for accuracy — or, with the score parameter
``unparseable="exclude"`` (the authors' acuity and disposition scripts), is left out of every
denominator; ``excluded_unparseable`` counts those either way it is set.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from admitdx.metrics import bootstrap, erreason
from admitdx.metrics.ratios import Ratio, column_matrix, evaluate
from admitdx.scoring.inputs import SystemInput
from admitdx.scoring.suites.base import Advance, RunContext, SystemScore


def _ratios(categories: tuple[str, ...], ordinal: bool) -> list[Ratio]:
    ratios = [Ratio("accuracy", {"correct": 1.0}, {"n": 1.0})]
    if ordinal:
        ratios += [
            Ratio("under_triage", {"under": 1.0}, {"n": 1.0}),
            Ratio("over_triage", {"over": 1.0}, {"n": 1.0}),
        ]
    for c in categories:
        ratios += [
            Ratio(f"recall.{c}", {f"hit.{c}": 1.0}, {f"gold.{c}": 1.0}),
            Ratio(f"predicted_share.{c}", {f"pred.{c}": 1.0}, {"n": 1.0}),
            Ratio(f"recorded_share.{c}", {f"gold.{c}": 1.0}, {"n": 1.0}),
        ]
    return ratios


def _excluded(ctx: RunContext, prediction: Any) -> bool:
    """An unreadable answer left out of the denominators (``unparseable="exclude"``)."""
    return (
        ctx.params.unparseable == "exclude" and prediction is not None and prediction.parse_error is not None
    )


def _kept(
    gold: list[Any], predicted: list[Any], records: list[dict[str, Any]]
) -> tuple[list[Any], list[Any]]:
    kept = [i for i, r in enumerate(records) if not r.get("excluded")]
    return [gold[i] for i in kept], [predicted[i] for i in kept]


class CategorySuite:
    name = "category"
    needs_matcher = False
    excludes_unparseable = True  # honours ScoreParams.unparseable

    def prepare(self, ctx: RunContext) -> dict[str, Any]:
        cats = ctx.task.categories
        headline = ["accuracy"] + (["under_triage", "over_triage"] if ctx.task.ordinal else [])
        headline += [f"predicted_share.{c}" for c in cats]
        return {"categories": list(cats), "ordinal": ctx.task.ordinal, "headline_metrics": headline}

    def score_system(
        self, ctx: RunContext, run: dict[str, Any], system: SystemInput, advance: Advance | None
    ) -> SystemScore:
        cats = ctx.task.categories
        rank = {c: i for i, c in enumerate(cats)}
        rows, records, gold, predicted = [], [], [], []
        for inst in ctx.instances:
            prediction = system.predictions.get(inst.id)
            answer = prediction.answer if prediction and isinstance(prediction.answer, str) else None
            answer = answer if answer in rank else None
            g = inst.target
            excluded = _excluded(ctx, prediction)
            row = {} if excluded else {"n": 1.0, "correct": float(answer == g), f"gold.{g}": 1.0}
            if answer is not None and not excluded:
                row[f"pred.{answer}"] = 1.0
                row[f"hit.{g}"] = float(answer == g)
                if ctx.task.ordinal:
                    row["under"] = float(rank[answer] > rank[g])
                    row["over"] = float(rank[answer] < rank[g])
            rows.append(row)
            gold.append(g)
            predicted.append(answer)
            records.append(
                {
                    "instance_id": inst.id,
                    "subject_id": inst.subject_id,
                    "gold": g,
                    "predicted": answer,
                    "missing_prediction": prediction is None,
                    "parse_error": bool(prediction and prediction.parse_error),
                    **({"excluded": True} if excluded else {}),
                }
            )
        if advance:
            advance(len(ctx.instances), 0)
        ratios = _ratios(cats, ctx.task.ordinal)
        names, matrix = column_matrix(rows, set().union(*(r.columns() for r in ratios)))
        values = evaluate(ratios, names, matrix.sum(axis=0))
        point = {k: (None if np.isnan(v) else float(v)) for k, v in values.items()}
        headline = [r for r in ratios if r.name in set(run["headline_metrics"])]
        per_subject = bootstrap.subject_sums(ctx.subjects, matrix, ctx.order)
        replicates = bootstrap.replicate_values(headline, names, per_subject, ctx.weights)
        cis = bootstrap.intervals(replicates, ctx.params.confidence)
        fields = {
            "metrics": {
                k: {"value": v, "ci": list(cis[k]) if cis.get(k) else None} for k, v in point.items()
            },
            "confusion": erreason.accuracy_and_confusion(*_kept(gold, predicted, records), labels=list(cats)),
        }
        if ctx.params.unparseable == "exclude":
            fields["excluded_unparseable"] = sum(bool(r.get("excluded")) for r in records)
        return SystemScore(fields, replicates, records)
