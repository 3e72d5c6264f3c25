"""The final-diagnosis suite (ER-Reason task 4): the system's first coded answer against the
encounter's main diagnosis (lowest ``seq_num``) and against any of its coded diagnoses, at four
granularities (ER-Reason Table 6, the diagnosis table): exact code, 3-character category, CCSR
category and CMS-HCC category (:func:`admitdx.metrics.erreason.icd_levels`). Rates carry
patient-bootstrap intervals; an encounter without a coded answer counts as a miss at every level.

Beside each rate over every encounter (``main.hcc``) the suite reports, for CCSR and HCC, the
paper-style rate over the encounters where the answer and the gold both have a category
(``main.hcc_conditional``: ER-Reason's table 6 HCC rate was computed that way) and that share
(``main.hcc_coverage``), and for every level the ceiling of an answerer that gives ICD-10-CM codes,
as the prompt asks (``main.exact_ceiling``: ICD-9-CM gold codes are out of its exact reach). The
score options ``hcc_model`` and ``ccsr_table`` choose the category tables; results.json names
their sources (``icd_levels``).
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


def level_options(ctx: RunContext) -> erreason.LevelOptions:
    return erreason.LevelOptions(hcc_model=ctx.params.hcc_model, ccsr_table=ctx.params.ccsr_table)


def _ratios() -> list[Ratio]:
    """Headline rates first (the eight of Table 6), then conditional rates, coverage, ceilings."""
    n = {"n": 1.0}
    ratios = [Ratio(f"{t}.{lv}", {f"{t}.{lv}": 1.0}, n) for t in TARGETS for lv in erreason.ICD_LEVELS]
    for t in TARGETS:
        for lv in erreason.MAPPED_LEVELS:
            ratios.append(Ratio(f"{t}.{lv}_conditional", {f"{t}.{lv}": 1.0}, {f"{t}.{lv}_mapped": 1.0}))
            ratios.append(Ratio(f"{t}.{lv}_coverage", {f"{t}.{lv}_mapped": 1.0}, n))
        ratios += [Ratio(f"{t}.{lv}_ceiling", {f"{t}.{lv}_reachable": 1.0}, n) for lv in erreason.ICD_LEVELS]
    return ratios


def _row(at_main: erreason.LevelMatch, at_refs: list[erreason.LevelMatch]) -> dict[str, float]:
    row = {"n": 1.0}
    for target, matched, mapped, reachable in (
        ("main", at_main.matched, at_main.mapped, at_main.reachable),
        (
            "any",
            {lv: any(m.matched[lv] for m in at_refs) for lv in erreason.ICD_LEVELS},
            {lv: any(m.mapped[lv] for m in at_refs) for lv in erreason.MAPPED_LEVELS},
            {lv: any(m.reachable[lv] for m in at_refs) for lv in erreason.ICD_LEVELS},
        ),
    ):
        row |= {f"{target}.{k}": float(v) for k, v in matched.items()}
        row |= {f"{target}.{k}_mapped": float(v) for k, v in mapped.items()}
        row |= {f"{target}.{k}_reachable": float(v) for k, v in reachable.items()}
    return row


class FinalDiagnosisSuite:
    name = "final_diagnosis"
    needs_matcher = False

    def prepare(self, ctx: RunContext) -> dict[str, Any]:
        return {
            "headline_metrics": [f"{t}.{level}" for t in TARGETS for level in erreason.ICD_LEVELS],
            "icd_levels": level_options(ctx).sources(),
        }

    def score_system(
        self, ctx: RunContext, run: dict[str, Any], system: SystemInput, advance: Advance | None
    ) -> SystemScore:
        options = level_options(ctx)
        rows, records = [], []
        for inst in ctx.instances:
            main = main_reference(inst.references)
            if main is None:
                continue
            prediction = system.predictions.get(inst.id)
            items = prediction.items if prediction else []
            predicted = next((c for c in map(answer_code, items) if c), None)  # "CODE NAME" answers too
            system_name = main.code_system or "ICD-10-CM"
            at_main = erreason.icd_levels(predicted, main.code, system_name, options)
            at_refs = [
                erreason.icd_levels(predicted, r.code, r.code_system or system_name, options)
                for r in inst.references
                if r.code
            ]
            rows.append(_row(at_main, at_refs))
            records.append(
                {
                    "instance_id": inst.id,
                    "subject_id": inst.subject_id,
                    "predicted": predicted,
                    "gold": main.code,
                    **{f"main.{k}": v for k, v in at_main.matched.items()},
                }
            )
        if advance:
            advance(len(ctx.instances), 0)
        ratios = _ratios()
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
        paired = {k: v for k, v in replicates.items() if k in run["headline_metrics"]}  # tests: Table 6's
        return SystemScore({"metrics": metrics, "counts": {"coded_encounters": len(rows)}}, paired, records)
