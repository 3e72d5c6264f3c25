"""Encounter-level scores on named conditions: the time-critical operating points of EarlyDx
section 5.5 (figure 11) and the per-condition F1 of the input ablation (appendix P, figure 20).

For each encounter and condition, the encounter is **recorded** positive when one of its labels on
the chosen track belongs to the condition (by ICD code, see :mod:`admitdx.ontology.codesets`), and
**flagged** when one of the system's predictions names it (by text, or by being paired with a label
of the condition). The unit is the (encounter, condition) pair: flagging sepsis in an encounter
whose recorded critical diagnosis is an MI is a false alarm for sepsis *and* a miss for the MI,
which is stricter than counting any alert in an encounter with any critical label. Pooled recall
and precision sum over the conditions; ``alert_rate`` and ``recorded_rate`` give the share of
encounters with any flag / any recorded critical label (the paper's "alerts in 46 of 200
encounters in which 14 are recorded").

The paper scores time-critical conditions on all recorded labels (``track="all"``) and mentions
the supported-only view; both are a parameter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from admitdx.contracts import PredictionItem, Reference
from admitdx.metrics.batch import AnswerBatch, first_row, one_encounter
from admitdx.metrics.earlydx import TRACKS
from admitdx.metrics.ratios import Ratio, f1_ratio
from admitdx.ontology.codesets import ABLATION_CONDITIONS, TIME_CRITICAL, ConditionSet

TIME_CRITICAL_PREFIX = "tc"
PER_CONDITION_PREFIX = "cond"


def condition_counts(
    answers: AnswerBatch,
    *,
    conditions: ConditionSet = TIME_CRITICAL,
    track: str = "all",
    prefix: str = TIME_CRITICAL_PREFIX,
) -> dict[str, np.ndarray]:
    """Per-condition ``recorded`` / ``flagged`` / ``tp`` indicators of every encounter of a batch,
    plus pooled sums. An item flags a condition by its text, or by the label it is paired with
    (whatever that label's track)."""
    recorded = answers.labels.recorded(conditions, TRACKS[track])
    flagged = answers.flagged(conditions)
    values = [np.ones(answers.labels.n), flagged.any(axis=1), recorded.any(axis=1)]
    for hits in (recorded, flagged, recorded & flagged):
        values.append(hits.sum(axis=1))
        values += list(hits.T)
    return dict(zip(_condition_keys(prefix, conditions), (v.astype(np.float64) for v in values), strict=True))


def condition_columns(
    items: Sequence[PredictionItem],
    references: Sequence[Reference],
    pairs: Sequence[tuple[int, int]],
    *,
    conditions: ConditionSet = TIME_CRITICAL,
    track: str = "all",
    prefix: str = TIME_CRITICAL_PREFIX,
) -> dict[str, float]:
    """:func:`condition_counts` of one encounter."""
    answers = one_encounter(references, items, pairs)
    return first_row(condition_counts(answers, conditions=conditions, track=track, prefix=prefix))


_KEYS: dict[tuple[str, int], tuple[str, ...]] = {}


def _condition_keys(prefix: str, conditions: ConditionSet) -> tuple[str, ...]:
    """Column names of :func:`condition_columns`, in the order of its values (built once per set)."""
    key = (prefix, id(conditions))
    if key not in _KEYS:
        names = [f"{prefix}.n", f"{prefix}.any_flag", f"{prefix}.any_recorded"]
        for kind in ("recorded", "flagged", "tp"):
            names += [f"{prefix}.{kind}", *(f"{prefix}.{c.name}.{kind}" for c in conditions)]
        _KEYS[key] = tuple(names)
    return _KEYS[key]


def condition_ratios(
    conditions: ConditionSet = TIME_CRITICAL, prefix: str = TIME_CRITICAL_PREFIX
) -> list[Ratio]:
    """Recall, precision, F1: pooled (``<prefix>.recall``) and per condition (``<prefix>.<name>.recall``)."""
    ratios = [
        Ratio(f"{prefix}.alert_rate", {f"{prefix}.any_flag": 1.0}, {f"{prefix}.n": 1.0}),
        Ratio(f"{prefix}.recorded_rate", {f"{prefix}.any_recorded": 1.0}, {f"{prefix}.n": 1.0}),
    ]
    for scope in ("", *(f"{c.name}." for c in conditions)):
        base = f"{prefix}.{scope}"
        ratios += [
            Ratio(f"{base}recall", {f"{base}tp": 1.0}, {f"{base}recorded": 1.0}),
            Ratio(f"{base}precision", {f"{base}tp": 1.0}, {f"{base}flagged": 1.0}),
            f1_ratio(f"{base}f1", f"{base}tp", f"{base}flagged", f"{base}recorded"),
        ]
    return ratios


def per_condition_counts(answers: AnswerBatch, track: str = "all") -> dict[str, np.ndarray]:
    """Appendix P's per-condition counts (the time-critical six plus common ED conditions)."""
    return condition_counts(answers, conditions=ABLATION_CONDITIONS, track=track, prefix=PER_CONDITION_PREFIX)


def per_condition_columns(
    items: Sequence[PredictionItem],
    references: Sequence[Reference],
    pairs: Sequence[tuple[int, int]],
    track: str = "all",
) -> dict[str, float]:
    """:func:`per_condition_counts` of one encounter."""
    return first_row(per_condition_counts(one_encounter(references, items, pairs), track))


def per_condition_f1(values: Mapping[str, float | None]) -> dict[str, float | None]:
    """Pick the per-condition F1 values out of evaluated ratios, keyed by condition name."""
    return {c.name: values.get(f"{PER_CONDITION_PREFIX}.{c.name}.f1") for c in ABLATION_CONDITIONS}


def per_condition_n(columns: Mapping[str, np.ndarray]) -> dict[str, int]:
    """Encounters with each appendix-P condition recorded (the n beside its F1), from the run's
    :func:`per_condition_counts` columns."""
    return {
        c.name: int(columns[f"{PER_CONDITION_PREFIX}.{c.name}.recorded"].sum()) for c in ABLATION_CONDITIONS
    }


def per_condition_delta(
    before: Mapping[str, float | None], after: Mapping[str, float | None]
) -> dict[str, float | None]:
    """Change in F1 per condition between two runs (appendix P: ablated minus full input).

    A condition undefined in either run (never recorded nor flagged) has no change (None).
    """
    return {
        name: (after[name] - before[name])
        if before.get(name) is not None and after.get(name) is not None
        else None
        for name in before
    }
