"""Graded predictions: diagnoses a system marks ``suspected`` (pending confirmation) beside those it
commits to — the extension EarlyDx section 5.5 names its most valuable next step.

Admission-time practice requires that unconfirmed dangers be raised; plain micro-F1 punishes
raising them. The graded view therefore

* credits a suspected prediction that matches a label to recall, as a raised alert (it is counted
  in the numerator exactly like a confirmed match), and
* weighs a suspected prediction that matches nothing by ``suspected_weight`` in the precision
  denominator: 0 withholds it (the treatment of unjudged documents, as in appendix C), 1 is the
  standard view. The default 0 is our choice (the paper defines no loss); make it a parameter of
  any published number.

Three views are reported side by side: ``standard`` (status ignored: every item is a prediction,
what the paper scores), ``confirmed`` (suspected items dropped: what the system commits to) and
``graded``. Items without a status count as confirmed. The time-critical operating points
(:mod:`admitdx.metrics.timecritical`) get the same two treatments: a condition flagged only by
suspected items that is not recorded costs ``suspected_weight`` of a false alarm.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from admitdx.contracts import PredictionItem, Reference
from admitdx.metrics.batch import AnswerBatch, count_per_encounter, first_row, one_encounter
from admitdx.metrics.earlydx import TRACKS
from admitdx.metrics.ratios import Ratio
from admitdx.ontology.codesets import TIME_CRITICAL, ConditionSet

SUSPECTED_WEIGHT = 0.0
GRADED_PREFIX = "graded"
GRADED_TC_PREFIX = "tc_graded"


def graded_counts(
    answers: AnswerBatch,
    track: str,
    *,
    conditions: ConditionSet = TIME_CRITICAL,
    time_critical_track: str = "all",
    skip_empty: bool = True,
) -> dict[str, np.ndarray]:
    """Counts by status on ``track``, and graded time-critical flags, for every encounter of a batch.

    ``skip_empty`` leaves an encounter without a label on ``track`` out of the status counts, as
    :func:`admitdx.metrics.earlydx.track_counts` does, so the standard view equals the track's
    micro scores; the time-critical counts are per encounter and keep every encounter. A flagged
    condition is *firm* when it is recorded or some item that names it is not suspected.
    """
    labels, n = answers.labels, answers.labels.n
    in_track = labels.in_classes(TRACKS[track])
    n_ref = count_per_encounter(labels.encounter, n, in_track)
    on = in_track[answers.pair_label]
    suspected_pair = answers.suspected[answers.pair_item]
    n_suspected = count_per_encounter(answers.item_encounter, n, answers.suspected)
    keep = ((n_ref > 0) | (not skip_empty)).astype(np.float64)
    g, t = GRADED_PREFIX, GRADED_TC_PREFIX
    recorded = labels.recorded(conditions, TRACKS[time_critical_track])
    flagged = answers.flagged(conditions)
    firm = recorded | answers.flagged(conditions, firm_only=True)
    columns = {
        f"{g}.n_ref": keep * n_ref,
        f"{g}.n_confirmed": keep * (answers.n_pred - n_suspected),
        f"{g}.n_suspected": keep * n_suspected,
        f"{g}.tp_confirmed": keep * count_per_encounter(answers.pair_encounter, n, on & ~suspected_pair),
        f"{g}.tp_suspected": keep * count_per_encounter(answers.pair_encounter, n, on & suspected_pair),
        f"{t}.tp": (flagged & recorded).sum(axis=1),
        f"{t}.recorded": recorded.sum(axis=1),
        f"{t}.firm": (flagged & firm).sum(axis=1),
        f"{t}.soft": (flagged & ~firm).sum(axis=1),
    }
    return {k: v.astype(np.float64) for k, v in columns.items()}


def graded_columns(
    items: Sequence[PredictionItem],
    references: Sequence[Reference],
    pairs: Sequence[tuple[int, int]],
    track: str,
    *,
    conditions: ConditionSet = TIME_CRITICAL,
    time_critical_track: str = "all",
    skip_empty: bool = True,
) -> dict[str, float]:
    """:func:`graded_counts` of one encounter."""
    answers = one_encounter(references, items, pairs)
    return first_row(
        graded_counts(
            answers,
            track,
            conditions=conditions,
            time_critical_track=time_critical_track,
            skip_empty=skip_empty,
        )
    )


def graded_ratios(suspected_weight: float = SUSPECTED_WEIGHT) -> list[Ratio]:
    """Precision, recall and F1 under the standard, confirmed-only and graded views."""
    g, t = GRADED_PREFIX, GRADED_TC_PREFIX
    tp = {f"{g}.tp_confirmed": 1.0, f"{g}.tp_suspected": 1.0}
    views = {
        "standard": (tp, {f"{g}.n_confirmed": 1.0, f"{g}.n_suspected": 1.0}),
        "confirmed": ({f"{g}.tp_confirmed": 1.0}, {f"{g}.n_confirmed": 1.0}),
        "graded": (
            tp,
            {
                f"{g}.n_confirmed": 1.0,
                f"{g}.tp_suspected": 1.0 - suspected_weight,
                f"{g}.n_suspected": suspected_weight,
            },
        ),
    }
    ratios: list[Ratio] = []
    for view, (num, pred_den) in views.items():
        f1_den = {**pred_den, f"{g}.n_ref": 1.0}
        ratios += [
            Ratio(f"{g}.{view}.precision", num, pred_den),
            Ratio(f"{g}.{view}.recall", num, {f"{g}.n_ref": 1.0}),
            Ratio(f"{g}.{view}.f1", {k: 2 * v for k, v in num.items()}, f1_den),
        ]
    ratios.append(Ratio(f"{g}.suspected_share_of_recall", {f"{g}.tp_suspected": 1.0}, {f"{g}.n_ref": 1.0}))
    ratios += [
        Ratio(f"{t}.recall", {f"{t}.tp": 1.0}, {f"{t}.recorded": 1.0}),
        Ratio(f"{t}.precision", {f"{t}.tp": 1.0}, {f"{t}.firm": 1.0, f"{t}.soft": suspected_weight}),
    ]
    return ratios
