"""EarlyDx metrics (section 3.5, 5.1–5.4, appendices A and C, figure 8).

One encounter becomes a row of additive counts per *track*; every EarlyDx metric is then a ratio
of column sums (see :mod:`admitdx.metrics.ratios`).

Protocol choices, each a parameter with the paper's value where it gives one:

* **Tracks** (section 3.3): ``supported`` (primary), ``supported_partial`` (secondary), ``partial``
  (historical-comorbidity track) and ``all`` (every label, unsupported included — the view of
  figure 8). Tracks need an ``evidence_class`` on every reference; a dataset that was not audited
  has only ``all``, and :func:`available_tracks` says why.
* **One matching, restricted per track.** The matcher pairs predictions with *all* references of an
  encounter once; a track keeps the pairs whose reference is on the track, and counts every
  prediction in |Ŷ|. (The paper re-judges per track; restricting one matching is cheaper and never
  lets a prediction match two labels. A prediction paired with an off-track label is a false
  positive on that track — except under appendix C's *ignore* variant, below.)
* **Encounters without a label on the track** are left out of that track (``skip_empty=True``):
  with nothing to find, their predictions would be scored only against the auditor's decision.
  Set ``skip_empty=False`` to count them (an empty prediction then scores P = R = F1 = 1).
* **Example-based** scores are means over scored encounters of the encounter's P, R, F1 and
  Jaccard. An empty prediction list has P = 0 (R = 0) when the encounter has labels; F1 is
  2m / (|Ŷ| + |Y|), i.e. the harmonic mean of the encounter's P and R.
* **Complete match** (figure 7, "exact set match"): m = |Ŷ| = |Y|, the whole reference set and
  nothing else.
* **R@k** (appendix A): recall after truncating the output to its first k items in the system's
  own order (no system emits calibrated scores); k = 1…5.
* **Explicit / implicit recall** (section 5.2): recall over labels with ``explicit`` True / False;
  labels whose explicitness is unknown are in neither.
* **Ignore-partial precision** (appendix C): predictions paired with a *partially supported* label
  that is off the track are withheld from the precision denominator instead of counted as false
  positives. Recall is unchanged by construction.
* **Truncated micro-F1** (figure 8): output cut to its top-1 and top-2 items, beside the full list.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from admitdx.contracts import PredictionItem, Reference
from admitdx.metrics.batch import AnswerBatch, count_per_encounter, first_row, one_encounter
from admitdx.metrics.batch import check_pairs as check_pairs  # re-exported: the EarlyDx pairing rule
from admitdx.metrics.ratios import Ratio, f1_ratio

TRACKS: dict[str, frozenset[str] | None] = {
    "supported": frozenset({"supported"}),
    "supported_partial": frozenset({"supported", "partial"}),
    "partial": frozenset({"partial"}),
    "all": None,
}
PRIMARY_TRACK = "supported"
RECALL_AT_K: tuple[int, ...] = (1, 2, 3, 4, 5)
TRUNCATIONS: tuple[int, ...] = (1, 2)


def available_tracks(references: Sequence[Sequence[Reference]]) -> tuple[list[str], str | None]:
    """Tracks that the labels support, and the reason when only ``all`` is possible."""
    labels = [r for refs in references for r in refs]
    missing = sum(r.evidence_class is None for r in labels)
    if labels and missing == 0:
        return list(TRACKS), None
    return ["all"], (
        f"{missing} of {len(labels)} reference labels have no evidence class, so only the all-labels "
        "track is scored; run an evidence auditor (`admitdx audit`) to get the supported / partial tracks"
    )


def track_counts(
    answers: AnswerBatch,
    track: str,
    *,
    skip_empty: bool = True,
    ks: Sequence[int] = RECALL_AT_K,
    truncations: Sequence[int] = TRUNCATIONS,
) -> dict[str, np.ndarray]:
    """Additive counts of every encounter of a batch on one track, keyed ``"<track>.<count>"``.

    The pairs restricted to the track are the matched labels (tp); a prediction's rank is its index
    in the system's own order, so ``tp@k`` counts matched predictions with index below k. When an
    encounter is not scored on the track (no label on it and ``skip_empty``) every count is 0,
    ``scored`` included, so rows keep one shape.
    """
    labels, n = answers.labels, answers.labels.n
    in_track = labels.in_classes(TRACKS[track])
    on = in_track[answers.pair_label]  # pairs whose label is on the track
    enc = answers.pair_encounter
    n_pred = answers.n_pred.astype(np.float64)
    n_ref = count_per_encounter(labels.encounter, n, in_track)
    tp = count_per_encounter(enc[on], n)
    both = n_pred + n_ref
    with np.errstate(divide="ignore", invalid="ignore"):
        values = [
            np.ones(n),
            n_pred,
            n_ref,
            tp,
            np.where(n_pred > 0, tp / n_pred, n_ref == 0),
            np.where(n_ref > 0, tp / n_ref, n_pred == 0),
            np.where(both > 0, 2 * tp / both, 1.0),
            np.where(both > 0, tp / (both - tp), 1.0),
            ((tp == n_pred) & (n_pred == n_ref)).astype(np.float64),
            count_per_encounter(enc, n, labels.partial[answers.pair_label] & ~on),
        ]
    budgets = _budgets(tuple(ks), tuple(truncations))
    values += [count_per_encounter(enc[on & (answers.pair_pred < k)], n) for k in budgets]
    values += [np.minimum(n_pred, k) for k in budgets]
    values += [
        count_per_encounter(labels.encounter, n, in_track & labels.explicit),
        count_per_encounter(enc, n, on & labels.explicit[answers.pair_label]),
        count_per_encounter(labels.encounter, n, in_track & labels.implicit),
        count_per_encounter(enc, n, on & labels.implicit[answers.pair_label]),
    ]
    if skip_empty:
        values = [np.where(n_ref > 0, v, 0.0) for v in values]
    return dict(zip(_track_keys(track, budgets), values, strict=True))


def track_columns(
    n_pred: int,
    references: Sequence[Reference],
    pairs: Sequence[tuple[int, int]],
    track: str,
    *,
    skip_empty: bool = True,
    ks: Sequence[int] = RECALL_AT_K,
    truncations: Sequence[int] = TRUNCATIONS,
) -> dict[str, float]:
    """:func:`track_counts` of one encounter with ``n_pred`` predictions (the counts on a track read
    only how many items there are, never their text)."""
    answers = one_encounter(references, [_UNREAD_ITEM] * n_pred, pairs)
    return first_row(track_counts(answers, track, skip_empty=skip_empty, ks=ks, truncations=truncations))


_UNREAD_ITEM = PredictionItem(text="")


@cache
def _budgets(ks: tuple[int, ...], truncations: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(set(ks) | set(truncations)))


@cache
def _track_keys(track: str, budgets: tuple[int, ...]) -> tuple[str, ...]:
    """Column names of :func:`track_columns`, in the order of its values (built once per track)."""
    names = ["scored", "n_pred", "n_ref", "tp", "ex_p", "ex_r", "ex_f1", "jaccard", "complete", "withheld"]
    names += [f"tp@{k}" for k in budgets] + [f"n_pred@{k}" for k in budgets]
    names += ["n_ref_explicit", "tp_explicit", "n_ref_implicit", "tp_implicit"]
    return tuple(f"{track}.{n}" for n in names)


def track_ratios(
    track: str, *, ks: Sequence[int] = RECALL_AT_K, truncations: Sequence[int] = TRUNCATIONS
) -> list[Ratio]:
    """The named EarlyDx metrics of a track as ratios of :func:`track_columns` sums."""

    def c(name: str) -> str:
        return f"{track}.{name}"

    def per_encounter(name: str, col: str) -> Ratio:
        return Ratio(name, {c(col): 1.0}, {c("scored"): 1.0})

    ratios = [
        Ratio("micro_precision", {c("tp"): 1.0}, {c("n_pred"): 1.0}),
        Ratio("micro_recall", {c("tp"): 1.0}, {c("n_ref"): 1.0}),
        f1_ratio("micro_f1", c("tp"), c("n_pred"), c("n_ref")),
        per_encounter("example_precision", "ex_p"),
        per_encounter("example_recall", "ex_r"),
        per_encounter("example_f1", "ex_f1"),
        per_encounter("complete_match_rate", "complete"),
        per_encounter("jaccard", "jaccard"),
        per_encounter("mean_predictions", "n_pred"),
        per_encounter("mean_references", "n_ref"),
        Ratio("explicit_recall", {c("tp_explicit"): 1.0}, {c("n_ref_explicit"): 1.0}),
        Ratio("implicit_recall", {c("tp_implicit"): 1.0}, {c("n_ref_implicit"): 1.0}),
        Ratio("ignore_partial_precision", {c("tp"): 1.0}, {c("n_pred"): 1.0, c("withheld"): -1.0}),
        Ratio("ignore_partial_f1", {c("tp"): 2.0}, {c("n_pred"): 1.0, c("withheld"): -1.0, c("n_ref"): 1.0}),
    ]
    ratios += [Ratio(f"recall@{k}", {c(f"tp@{k}"): 1.0}, {c("n_ref"): 1.0}) for k in ks]
    ratios += [f1_ratio(f"micro_f1_top{k}", c(f"tp@{k}"), c(f"n_pred@{k}"), c("n_ref")) for k in truncations]
    return [Ratio(f"{track}.{r.name}", r.num, r.den, r.empty) for r in ratios]


HEADLINE = ("micro_precision", "micro_recall", "micro_f1", "example_f1", "complete_match_rate")
"""The metrics that get bootstrap intervals and paired p-values on every track."""
