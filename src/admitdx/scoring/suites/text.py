"""The text suite (ER-Reason task 2, one-liner; task 3, planning rationales): ROUGE-1/2/L F1 with
Porter stemming per instance (Google's ``rouge-score``), averaged over instances with patient
bootstrap intervals. A multi-part target (``{name: text}``, e.g. rule-out, decision factors,
treatment plan) is scored per part against the answer's part of the same name; a missing or
unreadable answer scores 0 and is counted.

Multi-part targets (ER-Reason's planning rationales) also get concept recall per part
(:mod:`admitdx.metrics.concepts`): the share of the reference's concepts the answer names, over
instances whose reference names any. ``concept_extractor`` in the results says which extractor
produced it (``offline``), or is null when none is installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from admitdx.metrics import bootstrap, erreason
from admitdx.metrics.concepts import EXTRA_HINT, choose_extractor, concept_recall, get_extractor
from admitdx.metrics.ratios import Ratio, column_matrix, evaluate
from admitdx.scoring.inputs import SystemInput
from admitdx.scoring.suites.base import Advance, RunContext, SystemScore

WHOLE = "answer"


def _parts(value: Any) -> dict[str, str]:
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items() if isinstance(v, str)}
    return {WHOLE: value} if isinstance(value, str) else {}


class TextSuite:
    name = "text"
    needs_matcher = False

    def prepare(self, ctx: RunContext) -> dict[str, Any]:
        parts = sorted({p for inst in ctx.instances for p in _parts(inst.target)})
        names = [f"{part}.{t}_f1" for part in parts for t in erreason.ROUGE_TYPES]
        multi = any(isinstance(inst.target, dict) for inst in ctx.instances)
        extractor = choose_extractor() if multi else None
        if extractor:
            names += [f"{part}.concept_recall" for part in parts]
        run: dict[str, Any] = {"parts": parts, "headline_metrics": names, "concept_extractor": extractor}
        if multi and not extractor:
            run["concept_recall_skipped"] = EXTRA_HINT
        return run

    def score_system(
        self, ctx: RunContext, run: dict[str, Any], system: SystemInput, advance: Advance | None
    ) -> SystemScore:
        rows, records = [], []
        for inst in ctx.instances:
            prediction = system.predictions.get(inst.id)
            answer = _parts(prediction.answer) if prediction else {}
            row: dict[str, float] = {}
            record: dict[str, Any] = {"instance_id": inst.id, "subject_id": inst.subject_id}
            for part, reference in _parts(inst.target).items():
                scores = erreason.rouge_f1([reference], [answer.get(part, "")])
                if run["concept_extractor"]:
                    recall = concept_recall(
                        get_extractor(run["concept_extractor"]), answer.get(part, ""), reference
                    )
                    if recall is not None:
                        row[f"{part}.concept_n"], row[f"{part}.concept_recall"] = 1.0, recall
                        scores = {**scores, "concept_recall": recall}
                row[f"{part}.n"] = 1.0
                for key, value in scores.items():
                    row[f"{part}.{key}"] = value
                record[part] = scores
            record["missing_prediction"] = prediction is None
            record["parse_error"] = bool(prediction and prediction.parse_error)
            rows.append(row)
            records.append(record)
        if advance:
            advance(len(ctx.instances), 0)
        ratios = [
            Ratio(f"{part}.{t}_f1", {f"{part}.{t}_f1": 1.0}, {f"{part}.n": 1.0})
            for part in run["parts"]
            for t in erreason.ROUGE_TYPES
        ]
        if run["concept_extractor"]:
            ratios += [
                Ratio(f"{part}.concept_recall", {f"{part}.concept_recall": 1.0}, {f"{part}.concept_n": 1.0})
                for part in run["parts"]
            ]
        names, matrix = column_matrix(rows, set().union(*(r.columns() for r in ratios)))
        values = evaluate(ratios, names, matrix.sum(axis=0))
        per_subject = bootstrap.subject_sums(ctx.subjects, matrix, ctx.order)
        replicates = bootstrap.replicate_values(ratios, names, per_subject, ctx.weights)
        cis = bootstrap.intervals(replicates, ctx.params.confidence)
        metrics = {
            k: {"value": None if np.isnan(v) else float(v), "ci": list(cis[k]) if cis.get(k) else None}
            for k, v in values.items()
        }
        return SystemScore({"metrics": metrics}, replicates, records)
