"""The final-diagnosis suite (ER-Reason task 4): the system's first coded answer against the
encounter's main diagnosis (lowest ``seq_num``) and against any of its coded diagnoses, at four
granularities (ER-Reason table 7): exact code, 3-character category, CCSR category and CMS-HCC
category (:mod:`admitdx.metrics.erreason`). Rates carry patient-bootstrap intervals; an encounter
without a coded answer counts as a miss at every level.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from admitdx.metrics import bootstrap, erreason
from admitdx.metrics.ratios import Ratio, column_matrix, evaluate
from admitdx.scoring.inputs import SystemInput
from admitdx.scoring.suites.base import Advance, RunContext, SystemScore
from admitdx.scoring.suites.codes import main_reference
from admitdx.tasks.erreason.answers import answer_code

TARGETS = ("main", "any")


class FinalDiagnosisSuite:
    name = "final_diagnosis"
    needs_matcher = False

    def prepare(self, ctx: RunContext) -> dict[str, Any]:
        return {"headline_metrics": [f"{t}.{level}" for t in TARGETS for level in erreason.ICD_LEVELS]}

    def score_system(
        self, ctx: RunContext, run: dict[str, Any], system: SystemInput, advance: Advance | None
    ) -> SystemScore:
        rows, records = [], []
        for inst in ctx.instances:
            main = main_reference(inst.references)
            if main is None:
                continue
            prediction = system.predictions.get(inst.id)
            items = prediction.items if prediction else []
            predicted = next((c for c in map(answer_code, items) if c), None)  # "CODE NAME" answers too
            system_name = main.code_system or "ICD-10-CM"
            at_main = erreason.icd_match(predicted, main.code, system_name)
            coded = [r for r in inst.references if r.code]
            at_any = {
                level: any(
                    erreason.icd_match(predicted, r.code, r.code_system or system_name)[level] for r in coded
                )
                for level in erreason.ICD_LEVELS
            }
            rows.append(
                {
                    "n": 1.0,
                    **{f"main.{k}": float(v) for k, v in at_main.items()},
                    **{f"any.{k}": float(v) for k, v in at_any.items()},
                }
            )
            records.append(
                {
                    "instance_id": inst.id,
                    "subject_id": inst.subject_id,
                    "predicted": predicted,
                    "gold": main.code,
                    **{f"main.{k}": v for k, v in at_main.items()},
                }
            )
        if advance:
            advance(len(ctx.instances), 0)
        ratios = [
            Ratio(f"{t}.{level}", {f"{t}.{level}": 1.0}, {"n": 1.0})
            for t in TARGETS
            for level in erreason.ICD_LEVELS
        ]
        names, matrix = column_matrix(rows, set().union(*(r.columns() for r in ratios)))
        values = evaluate(ratios, names, matrix.sum(axis=0))
        coded_subjects = [r["subject_id"] for r in records]
        per_subject = bootstrap.subject_sums(coded_subjects, matrix, ctx.order)
        replicates = bootstrap.replicate_values(ratios, names, per_subject, ctx.weights)
        cis = bootstrap.intervals(replicates, ctx.params.confidence)
        metrics = {
            k: {"value": None if np.isnan(v) else float(v), "ci": list(cis[k]) if cis.get(k) else None}
            for k, v in values.items()
        }
        return SystemScore(
            {"metrics": metrics, "counts": {"coded_encounters": len(rows)}}, replicates, records
        )
