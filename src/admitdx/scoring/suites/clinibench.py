"""The CliniBench suite (section 4): rank ICD codes at the 3-character level.

Systems emit coded predictions (``PredictionItem.code``); no matcher is involved, because
CliniBench maps text to codes as the system's final step (section 4.2). Metrics: MAP and
main-diagnosis accuracy as ratios with patient-bootstrap percentile intervals, macro P/R/F1 over a
fixed vocabulary at top-n with their own bootstrap (:func:`admitdx.metrics.clinibench.macro_replicates`)
and BCa intervals (``ScoreParams.macro_interval``; :mod:`admitdx.metrics.bca`), head/body/tail
tertiles by training frequency, and micro P/R/F1 by input-length bin with percentile intervals
(figure 5; lengths counted with the builder's table-1 tokenizer, bins by
``ScoreParams.length_bins``, length tertiles by default). Every headline interval says whether its
replicates sit on one side of the point (``one_sided``); the run's ``intervals`` block names the
methods and the caveat. EarlyDx's bootstrap and bytes are untouched: the BCa and the bins are
computed here only.

Table 2 reports the unweighted mean over the ICD-9 and the ICD-10 dataset of a module. Each is
scored on its own (one ``admitdx score`` run per dataset); :func:`attach_version_mean` then reads
the two runs' ``results.json`` and writes the mean of every system scored in both into the first
run's ``results.json`` (``version_mean``), which its report shows beside the per-dataset table.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from admitdx.contracts import RESULTS_FILE
from admitdx.errors import UsageError
from admitdx.metrics import bca, bootstrap, clinibench
from admitdx.metrics.ratios import Ratio, column_matrix, evaluate
from admitdx.runs import exclusive
from admitdx.scoring.inputs import SystemInput
from admitdx.scoring.suites.base import Advance, RunContext, SystemScore
from admitdx.scoring.suites.codes import gold_categories, predicted_categories
from admitdx.tasks.clinibench.build import TOKENIZER_NOTE
from admitdx.tasks.clinibench.stats import tokens

PREFIX = "clinibench"
RATIOS = [
    Ratio(f"{PREFIX}.map", {"cb.ap": 1.0}, {"cb.has_gold": 1.0}),
    Ratio(f"{PREFIX}.main_diagnosis_accuracy", {"cb.md_hit": 1.0}, {"cb.has_gold": 1.0}),
]


class CliniBenchSuite:
    name = "clinibench"
    needs_matcher = False

    def prepare(self, ctx: RunContext) -> dict[str, Any]:
        lengths = [len(tokens(inst.text)) for inst in ctx.instances]
        bins = ctx.params.length_bins
        edges = clinibench.length_edges(lengths, bins)
        versions = sorted({v for inst in ctx.instances if (v := inst.meta.get("icd_version")) is not None})
        return {
            "headline_metrics": [r.name for r in RATIOS] + [f"{PREFIX}.{k}" for k in clinibench.MACRO_KEYS],
            "top_n": ctx.params.top_n,
            "icd_versions": versions,
            "length_bins": {
                "bins": bins if isinstance(bins, str) else list(bins),
                "edges": edges,
                "labels": clinibench.length_bin_labels(edges),
                "tokenizer": TOKENIZER_NOTE,
            },
            "intervals": {
                "macro": ctx.params.macro_interval,
                "ratios": "percentile",
                "length_bins": "percentile",
                "confidence": ctx.params.confidence,
                "caveat": INTERVAL_CAVEAT,
            },
            "_lengths": lengths,
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
            # a build with main_diagnosis="miss" marks notes whose main diagnosis was excluded
            missed = bool(inst.meta.get("main_scored_as_miss"))
            gold.append(g)
            rankings.append(ranking)
            rows.append(
                {
                    "cb.has_gold": float(bool(g)),
                    "cb.ap": clinibench.average_precision(g, ranking),
                    "cb.md_hit": float(bool(g) and g[0] in ranking and not missed),
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
                    "valid_answer": prediction is not None and prediction.parse_error is None,
                    "distinct_codes": len({label for label in labels if label is not None}),
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
        lengths, edges = run["_lengths"], run["length_bins"]["edges"]
        bin_replicates = clinibench.length_bin_replicates(
            gold, rankings, lengths, edges, ctx.subjects, ctx.order, ctx.weights, top_n=ctx.params.top_n
        )
        train_freq = Counter(lab for inst in ctx.train for lab in gold_categories(inst.references)) or None
        scores = clinibench.clinibench_scores(
            gold, rankings, top_n=ctx.params.top_n, train_frequencies=train_freq
        )
        scores["main_diagnosis_accuracy"] = point[f"{PREFIX}.main_diagnosis_accuracy"]  # the miss rule too
        scores["length_bins"] = [
            {**entry, "ci": _bin_intervals(entry, reps, ctx.params.confidence)}
            for entry, reps in zip(
                clinibench.micro_by_length(gold, rankings, lengths, edges, top_n=ctx.params.top_n),
                bin_replicates,
                strict=True,
            )
        ]
        confidence = ctx.params.confidence
        metrics = {k: _metric(v, cis.get(k), replicates[k], confidence) for k, v in point.items()}
        if ctx.params.macro_interval == "bca":
            jackknife = clinibench.macro_jackknife(
                gold, rankings, ctx.subjects, ctx.order, top_n=ctx.params.top_n
            )
            for key in clinibench.MACRO_KEYS:
                name = f"{PREFIX}.{key}"
                cis[name] = bca.bca_interval(replicates[name], scores[key], jackknife[name], confidence)
        for key in clinibench.MACRO_KEYS:
            name = f"{PREFIX}.{key}"
            metrics[name] = _metric(scores[key], cis.get(name), replicates[name], confidence)
        scores["answers"] = answer_statistics(records)
        fields = {
            "counts": {"uncoded_items": sum(r["uncoded_items"] for r in records)},
            "metrics": metrics,
            "clinibench": scores,
        }
        return SystemScore(fields, replicates, records)


INTERVAL_CAVEAT = (
    "Patient-bootstrap intervals; macro P/R/F1 BCa (a replicate that misses a rare label drops it "
    "from its mean, so macro replicates lean upward and a percentile interval can start at the "
    "point). On a few dozen patients every interval is coarse: one marked one-sided has fewer than "
    "(1 - confidence)/2 of its replicates on one side of the point."
)


def _metric(
    value: float | None, ci: tuple[float, float] | None, replicates: np.ndarray, confidence: float
) -> dict[str, Any]:
    """A headline metric's entry: value, interval and whether its replicates sit on one side."""
    return {
        "value": value,
        "ci": list(ci) if ci else None,
        "one_sided": bca.one_sided(replicates, value, confidence),
    }


def _bin_intervals(
    entry: dict[str, Any], replicates: dict[str, np.ndarray], confidence: float
) -> dict[str, list[float] | None]:
    """Percentile intervals of one length bin's micro scores (None where the point is undefined)."""
    cis = bootstrap.intervals(replicates, confidence)
    return {k: list(ci) if ci and entry.get(k) is not None else None for k, ci in cis.items()}


def answer_statistics(records: list[dict[str, Any]]) -> dict[str, float | int | None]:
    """Appendix A.3's view of a generative system's answers: the share of evaluated notes answered
    with a readable answer (valid JSON for ``llm-codes``; a missing prediction counts as invalid),
    and the mean number of distinct 3-character codes per readable answer, before the top-n cut
    (an LLM that repeats one diagnosis in twenty wordings shows few)."""
    valid = [r for r in records if r["valid_answer"]]
    return {
        "n_answers": len(records),
        "valid_rate": len(valid) / len(records) if records else None,
        "mean_distinct_codes": sum(r["distinct_codes"] for r in valid) / len(valid) if valid else None,
    }


#: What the ICD-9/ICD-10 mean averages: table 2's columns, and figure 3's tertile F1.
MEAN_KEYS = (*clinibench.MACRO_KEYS, "map", "main_diagnosis_accuracy")
VERSION_MEAN = "version_mean"


def _mean(a: Any, b: Any) -> float | None:
    return (a + b) / 2 if isinstance(a, int | float) and isinstance(b, int | float) else None


def _mean_ci(a: Any, ci_a: Any, b: Any, ci_b: Any) -> list[float] | None:
    """An interval for the mean of two independent datasets' values from their own intervals:
    each side's half-widths combined in quadrature, halved — exact for normal estimates, an
    approximation for skewed ones (the replicates are not kept in results.json); None unless both
    values have an interval."""
    mean = _mean(a, b)
    if mean is None or not ci_a or not ci_b:
        return None
    low = ((a - ci_a[0]) ** 2 + (b - ci_b[0]) ** 2) ** 0.5 / 2
    high = ((ci_a[1] - a) ** 2 + (ci_b[1] - b) ** 2) ** 0.5 / 2
    return [mean - low, mean + high]


def _system_mean(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """One system's mean over the two datasets (see :func:`version_mean`)."""
    a, b = first["clinibench"], second["clinibench"]
    ci_a = {k: (first["metrics"].get(f"{PREFIX}.{k}") or {}).get("ci") for k in MEAN_KEYS}
    ci_b = {k: (second["metrics"].get(f"{PREFIX}.{k}") or {}).get("ci") for k in MEAN_KEYS}
    bins_a, bins_b = a.get("length_bins") or [], b.get("length_bins") or []
    paired_bins = list(zip(bins_a, bins_b, strict=True)) if len(bins_a) == len(bins_b) else None
    return {
        **{k: _mean(a.get(k), b.get(k)) for k in MEAN_KEYS},
        "ci": {k: _mean_ci(a.get(k), ci_a[k], b.get(k), ci_b[k]) for k in MEAN_KEYS},
        "tertile_f1": {
            t: _mean(a["tertiles"][t].get("macro_f1"), b["tertiles"][t].get("macro_f1"))
            for t in clinibench.TERTILES
        },
        "length_bin_micro_f1": [_mean(x["micro_f1"], y["micro_f1"]) for x, y in paired_bins]
        if paired_bins is not None
        else None,
        "length_bin_micro_f1_ci": [
            _mean_ci(
                x["micro_f1"],
                (x.get("ci") or {}).get("micro_f1"),
                y["micro_f1"],
                (y.get("ci") or {}).get("micro_f1"),
            )
            for x, y in paired_bins
        ]
        if paired_bins is not None
        else None,
    }


def version_mean(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """The unweighted mean of two CliniBench ``results.json`` — one ICD-9 and one ICD-10 dataset —
    per system scored in both (matched by name, in the first run's order), as table 2 reports it:
    each dataset counts once, whatever its size. Tertile F1s are averaged by tertile, length-bin
    micro-F1s by bin position (with tertile bins, the lengths differ between the datasets).
    Intervals (``ci``, ``length_bin_micro_f1_ci``) combine the two datasets' own (:func:`_mean_ci`)."""
    for results in (first, second):
        if results.get("suite") != "clinibench":
            raise UsageError(
                f"{results.get('dataset')} was scored with the {results.get('suite')!r} suite, "
                "not clinibench",
                hint="average the results of two CliniBench datasets (one ICD-9, one ICD-10)",
            )
    versions = [tuple(r.get("icd_versions") or ()) for r in (first, second)]
    if sorted(versions) != [(9,), (10,)]:
        raise UsageError(
            f"the ICD-9/ICD-10 mean needs one run on an ICD-9 and one on an ICD-10 dataset; these "
            f"are on ICD versions {list(versions[0])} and {list(versions[1])}",
            hint="score hosp-icd9 and hosp-icd10 (or icu-icd9 and icu-icd10) separately, then average",
        )
    by_name = {s["name"]: s for s in second["systems"]}
    systems = {
        s["name"]: _system_mean(s, by_name[s["name"]]) for s in first["systems"] if s["name"] in by_name
    }
    return {
        "datasets": [first.get("dataset"), second.get("dataset")],
        "icd_versions": [versions[0][0], versions[1][0]],
        "n_instances": [first.get("n_instances"), second.get("n_instances")],
        "systems": systems,
        "left_out": sorted({s["name"] for s in first["systems"]} ^ set(by_name)),
    }


def attach_version_mean(run_dir: Path, other_run_dir: Path) -> dict[str, Any]:
    """Average two score runs (:func:`version_mean`) and record the mean in ``run_dir``'s
    ``results.json`` as ``version_mean``, where the report of ``run_dir`` shows it."""
    paths = [Path(d) / RESULTS_FILE for d in (run_dir, other_run_dir)]
    for path in paths:
        if not path.is_file():
            raise UsageError(f"{path.parent} has no {RESULTS_FILE}", hint="run `admitdx score` on it first")
    with exclusive(Path(run_dir), "score"):
        first, second = (json.loads(p.read_text(encoding="utf-8")) for p in paths)
        first[VERSION_MEAN] = version_mean(first, second)
        paths[0].write_text(json.dumps(first, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return first[VERSION_MEAN]
