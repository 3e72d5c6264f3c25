"""The CliniBench suite (section 4): rank ICD codes at the 3-character level.

Systems emit coded predictions (``PredictionItem.code``); no matcher is involved, because
CliniBench maps text to codes as the system's final step (section 4.2). Metrics: MAP and
main-diagnosis accuracy as ratios with patient-bootstrap intervals, macro P/R/F1 over a fixed
vocabulary at top-n with their own bootstrap (:func:`admitdx.metrics.clinibench.macro_replicates`),
and head/body/tail tertiles by training frequency.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from admitdx.metrics import bootstrap, clinibench
from admitdx.metrics.ratios import Ratio, column_matrix, evaluate
from admitdx.scoring.inputs import SystemInput
from admitdx.scoring.suites.base import Advance, RunContext, SystemScore
from admitdx.scoring.suites.codes import gold_categories, predicted_categories

PREFIX = "clinibench"
RATIOS = [
    Ratio(f"{PREFIX}.map", {"cb.ap": 1.0}, {"cb.has_gold": 1.0}),
    Ratio(f"{PREFIX}.main_diagnosis_accuracy", {"cb.md_hit": 1.0}, {"cb.has_gold": 1.0}),
]


class CliniBenchSuite:
    name = "clinibench"
    needs_matcher = False

    def prepare(self, ctx: RunContext) -> dict[str, Any]:
        return {
            "headline_metrics": [r.name for r in RATIOS] + [f"{PREFIX}.{k}" for k in clinibench.MACRO_KEYS],
            "top_n": ctx.params.top_n,
        }

    def score_system(
        self, ctx: RunContext, run: dict[str, Any], system: SystemInput, advance: Advance | None
    ) -> SystemScore:
        gold, rankings, rows, records = [], [], [], []
        for inst in ctx.instances:
            prediction = system.predictions.get(inst.id)
            labels = predicted_categories(inst, prediction)
            g = gold_categories(inst.references)
            ranking = clinibench.ranked_labels(labels, ctx.params.top_n)
            gold.append(g)
            rankings.append(ranking)
            rows.append(
                {
                    "cb.has_gold": float(bool(g)),
                    "cb.ap": clinibench.average_precision(g, ranking),
                    "cb.md_hit": float(bool(g) and g[0] in ranking),
                }
            )
            records.append(
                {
                    "instance_id": inst.id,
                    "subject_id": inst.subject_id,
                    "gold_codes": g,
                    "ranking": ranking,
                    "uncoded_items": sum(label is None for label in labels),
                    "missing_prediction": prediction is None,
                }
            )
        if advance:
            advance(len(ctx.instances), 0)
        names, matrix = column_matrix(rows, {"cb.has_gold", "cb.ap", "cb.md_hit"})
        point = {
            k: (None if np.isnan(v) else float(v)) for k, v in evaluate(RATIOS, names, matrix.sum(0)).items()
        }
        per_subject = bootstrap.subject_sums(ctx.subjects, matrix, ctx.order)
        replicates = bootstrap.replicate_values(RATIOS, names, per_subject, ctx.weights)
        replicates |= clinibench.macro_replicates(
            gold, rankings, ctx.subjects, ctx.order, ctx.weights, top_n=ctx.params.top_n
        )
        cis = bootstrap.intervals(replicates, ctx.params.confidence)
        train_freq = Counter(lab for inst in ctx.train for lab in gold_categories(inst.references)) or None
        scores = clinibench.clinibench_scores(
            gold, rankings, top_n=ctx.params.top_n, train_frequencies=train_freq
        )
        metrics = {k: {"value": v, "ci": list(cis[k]) if cis.get(k) else None} for k, v in point.items()}
        for key in clinibench.MACRO_KEYS:
            ci = cis.get(f"{PREFIX}.{key}")
            metrics[f"{PREFIX}.{key}"] = {"value": scores[key], "ci": list(ci) if ci else None}
        fields = {
            "counts": {"uncoded_items": sum(r["uncoded_items"] for r in records)},
            "metrics": metrics,
            "clinibench": scores,
        }
        return SystemScore(fields, replicates, records)
