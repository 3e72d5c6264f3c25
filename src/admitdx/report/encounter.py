"""One encounter of one system, scored by every metric family into a row of additive counts.

This is where the families meet: EarlyDx tracks, time-critical and per-condition flags, graded
predictions and the per-encounter parts of CliniBench (average precision, main-diagnosis hit).
The ER-Reason final-diagnosis match compares the system's first coded prediction with the main
(lowest ``seq_num``) label. Codes for CliniBench and ER-Reason come from the matching: a
prediction paired with a label takes the label's code; an unpaired one takes the code the ICD-code
matcher mapped it to (``details["mapped"]``), if that matcher was used; otherwise it stays
unmapped and is counted as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from admitdx.contracts import Instance, Match, Prediction, PredictionItem, Reference
from admitdx.metrics import clinibench, earlydx, graded, timecritical
from admitdx.metrics.memo import per_labels
from admitdx.metrics.ratios import Ratio

CB = "cb"


@dataclass(frozen=True)
class EncounterSettings:
    """Protocol settings of one scoring run (each documented in its metric module)."""

    tracks: tuple[str, ...]
    graded_track: str
    skip_empty: bool = True
    time_critical_track: str = "all"
    top_n: int = clinibench.TOP_N


def prediction_codes(
    items: Sequence[PredictionItem], inst: Instance, match: Match | None
) -> list[str | None]:
    """A code per prediction: its paired label's, else the ICD matcher's mapping, else None."""
    paired = dict(match.pairs) if match else {}
    mapped = (match.details.get("mapped") if match else None) or []
    out: list[str | None] = []
    for i in range(len(items)):
        if i in paired:
            out.append(inst.references[paired[i]].code)
        elif i < len(mapped) and isinstance(mapped[i], dict):
            codes = [m.get("code") for m in mapped[i].values() if isinstance(m, dict) and m.get("code")]
            out.append(codes[0] if codes else None)
        else:
            out.append(None)
    return out


def _by_sequence(references: Sequence[Reference]) -> list[Reference]:
    return sorted(references, key=lambda r: (r.seq_num is None, r.seq_num or 0))


@per_labels
def gold_labels(references: Sequence[Reference]) -> list[str]:
    """The encounter's 3-character gold codes, main diagnosis (lowest ``seq_num``) first."""
    return clinibench.ranked_labels([r.code for r in _by_sequence(references)], 10**9)


def main_reference(references: Sequence[Reference]) -> Reference | None:
    """The coded label with the lowest ``seq_num``: the final diagnosis of ER-Reason's task 4."""
    coded = [r for r in _by_sequence(references) if r.code]
    return coded[0] if coded else None


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
    codes = prediction_codes(items, inst, match)
    gold = gold_labels(inst.references)
    ranking = clinibench.ranked_labels(codes, settings.top_n)
    row[f"{CB}.has_gold"] = float(bool(gold))
    row[f"{CB}.ap"] = clinibench.average_precision(gold, ranking)
    row[f"{CB}.md_hit"] = float(bool(gold) and gold[0] in ranking)
    record = {
        "instance_id": inst.id,
        "subject_id": inst.subject_id,
        "n_predictions": len(items),
        "n_references": len(inst.references),
        "pairs": [list(p) for p in pairs],
        "missing_prediction": prediction is None,
        "parse_error": bool(prediction and prediction.parse_error),
        "unmapped_codes": sum(c is None for c in codes),
        **{key: row[key] for key in _record_keys(settings.tracks)},
        "time_critical_recorded": [name for name, key in _TC_KEYS["recorded"] if row[key]],
        "time_critical_flagged": [name for name, key in _TC_KEYS["flagged"] if row[key]],
    }
    main = main_reference(inst.references)
    final = {
        "predicted": next((c for c in codes if c is not None), None),
        "gold": main.code if main else None,
        "code_system": (main.code_system or "ICD-10-CM") if main else None,
    }
    return row, {"gold_codes": gold, "ranking": ranking, "final_diagnosis": final, "record": record}


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
    ratios += [
        Ratio("clinibench.map", {f"{CB}.ap": 1.0}, {f"{CB}.has_gold": 1.0}),
        Ratio("clinibench.main_diagnosis_accuracy", {f"{CB}.md_hit": 1.0}, {f"{CB}.has_gold": 1.0}),
    ]
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
    names += ["clinibench.map", "clinibench.main_diagnosis_accuracy"]
    return names
