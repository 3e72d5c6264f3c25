"""The text suite (ER-Reason task 2, one-liner; task 3, planning rationales): ROUGE-1/2/L F1 with
Porter stemming per instance (Google's ``rouge-score``), averaged over instances with patient
bootstrap intervals. A multi-part target (``{name: text}``, e.g. rule-out, decision factors,
treatment plan) is scored per part against the answer's part of the same name; a missing or
unreadable answer scores 0 and is counted — or, with ``unparseable="exclude"`` (the authors'
scripts), an unreadable one is left out of every mean (``excluded_unparseable`` counts them).

Multi-part targets (ER-Reason's planning rationales) also get concept recall per part: the share
of the reference's concepts the answer names, over instances whose reference names any; the
counts say how many references had none (``no_concept_<part>``). The score
parameter ``concept_extractor`` chooses what finds the concepts, and results.json says which
(``concept_extractor``, with ``concept_extractor_params``):

- ``offline`` (default) or ``quickumls`` (``umls_index``): an extractor of
  :mod:`admitdx.metrics.concepts` run on both texts here; null when the offline one is not
  installed (``concept_recall_skipped`` says how to install it);
- ``llm_judge``: the judgements ``admitdx judge-concepts`` wrote beside each system's predictions
  (:mod:`admitdx.matching.concept_judgements`), refused when missing or made on other texts; each
  system's entry carries the judge's prompts, model and unreadable-answer counts.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from admitdx.errors import UsageError
from admitdx.matching.concept_judgements import judged_recall, judgements_path, load_judgements, part_texts
from admitdx.metrics import bootstrap, erreason
from admitdx.metrics.concepts import EXTRA_HINT, EXTRACTORS, concept_recall, get_extractor, offline_available
from admitdx.metrics.ratios import Ratio, column_matrix, evaluate
from admitdx.scoring.inputs import SystemInput
from admitdx.scoring.suites.base import Advance, RunContext, SystemScore

LLM_JUDGE = "llm_judge"


def _concept_choice(ctx: RunContext) -> tuple[str | None, dict[str, Any]]:
    """(extractor name or None, its params); builds a model-free extractor now, so a bad
    ``umls_index`` stops the run before any system is scored."""
    choice = ctx.params.concept_extractor
    if choice == LLM_JUDGE:
        return choice, {}
    if choice not in EXTRACTORS:
        raise UsageError(
            f"unknown concept extractor {choice!r}",
            hint=f"choose one of: {', '.join([*EXTRACTORS, LLM_JUDGE])}",
        )
    if choice == "offline" and not offline_available():
        return None, {}
    return choice, get_extractor(choice, ctx.params.umls_index).params


class TextSuite:
    name = "text"
    needs_matcher = False
    excludes_unparseable = True  # honours ScoreParams.unparseable

    def prepare(self, ctx: RunContext) -> dict[str, Any]:
        parts = sorted({p for inst in ctx.instances for p in part_texts(inst.target)})
        names = [f"{part}.{t}_f1" for part in parts for t in erreason.ROUGE_TYPES]
        multi = any(isinstance(inst.target, dict) for inst in ctx.instances)
        if not multi and (ctx.params.concept_extractor != "offline" or ctx.params.umls_index):
            raise UsageError(
                f"--concept-extractor {ctx.params.concept_extractor} has nothing to do here: concept "
                "recall scores ER-Reason's planning rationales; a single text (the one-liner) is scored "
                "by ROUGE only, as the paper does",
                hint="drop --concept-extractor / --umls-index for this dataset",
            )
        extractor, params = _concept_choice(ctx) if multi else (None, {})
        if extractor:
            names += [f"{part}.concept_recall" for part in parts]
        run: dict[str, Any] = {
            "parts": parts,
            "headline_metrics": names,
            "concept_extractor": extractor,
            "concept_extractor_params": params if extractor else None,
        }
        if multi and not extractor:
            run["concept_recall_skipped"] = EXTRA_HINT
        return run

    def score_system(
        self, ctx: RunContext, run: dict[str, Any], system: SystemInput, advance: Advance | None
    ) -> SystemScore:
        choice = run["concept_extractor"]
        judged = load_judgements(system.directory) if choice == LLM_JUDGE else None

        def recall(instance_id: str, part: str, reference: str, answer: str) -> float | None:
            if judged is not None:
                return judged_recall(judged, system.directory, instance_id, part, reference, answer)
            return concept_recall(get_extractor(choice, ctx.params.umls_index), answer, reference)

        rows, records = [], []
        for inst in ctx.instances:
            prediction = system.predictions.get(inst.id)
            answer = part_texts(prediction.answer) if prediction else {}
            row: dict[str, float] = {}
            record: dict[str, Any] = {"instance_id": inst.id, "subject_id": inst.subject_id}
            excluded = ctx.params.unparseable == "exclude" and bool(prediction and prediction.parse_error)
            for part, reference in ({} if excluded else part_texts(inst.target)).items():
                scores = erreason.rouge_f1([reference], [answer.get(part, "")])
                if choice and (value := recall(inst.id, part, reference, answer.get(part, ""))) is not None:
                    row[f"{part}.concept_n"], row[f"{part}.concept_recall"] = 1.0, value
                    scores = {**scores, "concept_recall": value}
                row[f"{part}.n"] = 1.0
                for key, value in scores.items():
                    row[f"{part}.{key}"] = value
                record[part] = scores
            record["missing_prediction"] = prediction is None
            record["parse_error"] = bool(prediction and prediction.parse_error)
            if excluded:
                record["excluded"] = True
            rows.append(row)
            records.append(record)
        if advance:
            advance(len(ctx.instances), 0)
        ratios = [
            Ratio(f"{part}.{t}_f1", {f"{part}.{t}_f1": 1.0}, {f"{part}.n": 1.0})
            for part in run["parts"]
            for t in erreason.ROUGE_TYPES
        ]
        if choice:
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
        fields: dict[str, Any] = {"metrics": metrics}
        if choice:  # references whose concepts came out empty are left out of the mean: say how many
            scored = matrix.sum(axis=0)
            fields["counts"] = {
                f"no_concept_{part}": int(
                    scored[names.index(f"{part}.n")] - scored[names.index(f"{part}.concept_n")]
                )
                for part in run["parts"]
            }
        if ctx.params.unparseable == "exclude":
            fields["excluded_unparseable"] = sum(bool(r.get("excluded")) for r in records)
        if judged is not None:
            summary = judgements_path(system.directory).with_suffix(".summary.json")
            fields["concept_judge"] = {
                k: v
                for k, v in json.loads(summary.read_text(encoding="utf-8")).items()
                if k in ("params", "parts", "listing_failures", "cover_failures", "dropped_entries")
            }
        return SystemScore(fields, replicates, records)
