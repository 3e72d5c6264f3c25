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

from bisect import bisect_left
from collections.abc import Sequence
from functools import cache

from admitdx.contracts import Reference
from admitdx.errors import InputError
from admitdx.metrics.memo import per_labels
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


def on_track(reference: Reference, track: str) -> bool:
    classes = TRACKS[track]
    return classes is None or reference.evidence_class in classes


def check_pairs(pairs: Sequence[tuple[int, int]], n_pred: int, n_ref: int, instance_id: str = "?") -> None:
    """Pairs must be in range and one-to-one: a prediction or label used twice would inflate m."""
    preds = [p for p, _ in pairs]
    refs = [r for _, r in pairs]
    bad = [(p, r) for p, r in pairs if not (0 <= p < n_pred and 0 <= r < n_ref)]
    if bad:
        raise InputError(
            f"match pair {bad[0]} is out of range ({n_pred} predictions, {n_ref} references)",
            table="matches",
            row=None,
            column=f"pairs of {instance_id}",
            hint="the matches were made for other predictions or another dataset; rerun `admitdx match`",
        )
    if len(set(preds)) != len(preds) or len(set(refs)) != len(refs):
        raise InputError(
            f"match pairs of {instance_id} are not one-to-one: {list(pairs)}",
            table="matches",
            column="pairs",
            hint="each prediction and each reference may appear in at most one pair",
        )


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
    """Additive counts of one encounter on one track, keyed ``"<track>.<count>"``.

    ``pairs`` are (prediction index, reference index) in the system's own output order; they must
    be one-to-one (see :func:`check_pairs`). When the encounter is not scored on the track (no
    label on it and ``skip_empty``) every count is 0, ``scored`` included, so rows keep one shape.
    """
    in_track, partial, explicit, n_explicit, n_implicit = _labels_on_track(references, track)
    n_ref = sum(in_track)
    matched = [(p, r) for p, r in pairs if in_track[r]]
    tp = len(matched)
    withheld = sum(1 for _, r in pairs if partial[r] and not in_track[r])
    budgets = _budgets(tuple(ks), tuple(truncations))
    ranks = sorted([p for p, _ in matched])
    tp_explicit = tp_implicit = 0
    for _, r in matched:
        tp_explicit += explicit[r] is True
        tp_implicit += explicit[r] is False
    values = [
        1.0,
        float(n_pred),
        float(n_ref),
        float(tp),
        tp / n_pred if n_pred else float(n_ref == 0),
        tp / n_ref if n_ref else float(n_pred == 0),
        2 * tp / (n_pred + n_ref) if n_pred + n_ref else 1.0,
        tp / (n_pred + n_ref - tp) if n_pred + n_ref else 1.0,
        float(tp == n_pred == n_ref),
        float(withheld),
    ]
    values += [float(bisect_left(ranks, k)) for k in budgets]
    values += [float(min(n_pred, k)) for k in budgets]
    values += [float(n_explicit), float(tp_explicit), float(n_implicit), float(tp_implicit)]
    keys = _track_keys(track, budgets)
    if n_ref == 0 and skip_empty:
        return dict.fromkeys(keys, 0.0)
    return dict(zip(keys, values, strict=True))


@per_labels
def _labels_on_track(
    references: Sequence[Reference], track: str
) -> tuple[list[bool], list[bool], list[bool | None], int, int]:
    """Per label: on the track? partially supported? explicit? — and the explicit/implicit counts."""
    classes = TRACKS[track]
    in_track = [classes is None or r.evidence_class in classes for r in references]
    explicit = [r.explicit for r in references]
    n_explicit = sum(1 for on, e in zip(in_track, explicit, strict=True) if on and e is True)
    n_implicit = sum(1 for on, e in zip(in_track, explicit, strict=True) if on and e is False)
    partial = [r.evidence_class == "partial" for r in references]
    return in_track, partial, explicit, n_explicit, n_implicit


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
