"""The multi-label head shared by the trained classifiers (TF-IDF and encoder): which titles are
learnable, how a validation split is carved, how scores become predictions.

**Label space.** The open-vocabulary titles seen in training (EarlyDx section 4.2: "a multi-label
classifier over the open-vocabulary titles"), one label per :func:`~admitdx.systems.labels.label_key`.
*Rare titles are set aside explicitly*: a title carried by fewer than ``min_label_count`` training
encounters (default 3; ours — CliniBench trains a head over every label and does not say how it
treats labels with one or two training notes) gets no classifier (one or two positives teach a
linear model nothing but noise; ``min_label_count: 1`` gives every label one); the
fit summary records how many titles were set aside and what share of training label occurrences
they carry — the recall the classifier gives up by construction.

**Emission.** ``emit="top_k"`` (default ``k=2``) names the k highest-scoring titles for every
encounter, EarlyDx's ClinicalBERT setting. ``emit="threshold"`` names every title whose score
reaches its own threshold, at most ``max_items`` (20, CliniBench's top-n), thresholds tuned per
title on a validation split to maximise F1 (CliniBench section 3.2, appendix figure 6). Either way
the ``raw`` field keeps the ``rank_depth`` best-scoring titles with their scores, for ranking metrics.

**Codes** (CliniBench section 4.1: the classifiers "emit ranked codes directly"). On a task scored
on codes (a diagnosis task without a matcher), the label space is built ``with_codes``: each learnt
title carries the code its training references give it, and every emitted item has
``PredictionItem.code``. CliniBench titles are category titles, one per code; should two codes
share a title, the title's most frequent code is used and the summary's
``titles_with_several_codes`` counts them. Elsewhere (EarlyDx, judged on titles by a matcher) no
code is emitted, even where references carry one.

**Validation** (:class:`TakesValidation`): the dataset's own ``val`` split by default (CliniBench
A.2's 10 %), a carve of the training patients as an option or where the dataset has none.

**Model selection** (CliniBench section 4.1: "model selection uses validation AUROC"):
:func:`macro_auroc` scores a model on the validation instances.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from sklearn.metrics import roc_auc_score

from admitdx.contracts import Instance, PredictionItem
from admitdx.errors import UsageError
from admitdx.systems.labels import LabelCounts, instance_labels, label_key

Emit = Literal["top_k", "threshold"]


def title_codes(train: Iterable[Instance]) -> tuple[dict[str, str], int]:
    """Each training title's code (the most frequent one), and how many titles had several."""
    seen: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for inst in train:
        for r in inst.references:
            if r.code and r.text.strip():
                seen[label_key(r.text)][r.code] += 1
    return {key: codes.most_common(1)[0][0] for key, codes in seen.items()}, sum(
        len(c) > 1 for c in seen.values()
    )


@dataclass(frozen=True)
class LabelSpace:
    keys: list[str]  # the learnable labels, most frequent first
    titles: list[str]  # how each is written in predictions
    summary: dict[str, float]
    codes: list[str | None] | None = None  # per label, its code (``with_codes``); None: emit no codes

    @classmethod
    def from_instances(
        cls, train: Sequence[Instance], min_label_count: int, with_codes: bool = False
    ) -> LabelSpace:
        counts = LabelCounts.from_instances(train)
        keys = [k for k in counts.most_frequent() if counts.encounters[k] >= min_label_count]
        total = sum(counts.encounters.values())
        kept = sum(counts.encounters[k] for k in keys)
        if not keys:
            raise UsageError(
                f"no training title is carried by {min_label_count} or more encounters: nothing to learn",
                hint="lower min_label_count, or use a larger training split",
            )
        summary = {
            "labels": len(keys),
            "rare_labels_set_aside": len(counts.encounters) - len(keys),
            "share_of_label_occurrences_set_aside": round(1 - kept / total, 4),
            "min_label_count": min_label_count,
        }
        codes: list[str | None] | None = None
        if with_codes:
            by_title, ambiguous = title_codes(train)
            codes = [by_title.get(k) for k in keys]
            summary = {"titles_with_several_codes": ambiguous, **summary}
        return cls(keys, [counts.spelling[k] for k in keys], summary, codes)

    def indicator(self, instances: Sequence[Instance]) -> np.ndarray:
        """(n instances × n labels) 0/1 matrix of the instances' learnable labels."""
        column = {k: j for j, k in enumerate(self.keys)}
        y = np.zeros((len(instances), len(self.keys)), dtype=np.int8)
        for i, inst in enumerate(instances):
            for key in instance_labels(inst):
                if key in column:
                    y[i, column[key]] = 1
        return y


Validation = Literal["split", "carve"]
VALIDATIONS: tuple[str, ...] = ("split", "carve")


class TakesValidation:
    """What a trained classifier chooses its epoch and thresholds on (``validation``):

    * ``split`` (default; CliniBench §4.1, A.2: the dataset's own 10 % validation split): the
      runner hands the dataset's ``val`` split to :meth:`use_validation` and the model is fitted
      on the whole training split; a dataset without one falls back to a carve, recorded in the fit
      summary as ``validation_source``;
    * ``carve``: ``validation_fraction`` of the training patients are held out
      (:func:`carve_validation`; admitdx before issue 20).
    """

    def __init__(self, validation: Validation, fraction: float) -> None:
        if validation not in VALIDATIONS:
            raise UsageError(f"validation must be one of {', '.join(VALIDATIONS)}, got {validation!r}")
        self.validation, self.validation_fraction = validation, fraction
        self._given_validation: list[Instance] = []

    def use_validation(self, instances: list[Instance]) -> None:
        """The runner's hook: the dataset's ``val`` split (empty when it has none)."""
        self._given_validation = list(instances)

    def split_for_validation(
        self, train: Sequence[Instance], seed: int
    ) -> tuple[list[Instance], list[Instance], dict[str, str]]:
        """(instances to fit on, validation instances, ``{"validation_source": …}``)."""
        if self.validation == "split" and self._given_validation:
            return list(train), self._given_validation, {"validation_source": "the dataset's val split"}
        fit, val = carve_validation(train, self.validation_fraction, seed)
        why = " (the dataset has no val split)" if self.validation == "split" else ""
        return (
            fit,
            val,
            {"validation_source": f"{self.validation_fraction:.0%} of the training patients{why}"},
        )


def carve_validation(
    train: Sequence[Instance], fraction: float, seed: int
) -> tuple[list[Instance], list[Instance]]:
    """Split the training instances by patient (all of a patient's encounters on one side), so a
    threshold is never tuned on an encounter of a patient the model was fitted on."""

    def held_out(subject_id: int) -> bool:
        digest = hashlib.sha256(f"{seed}:{subject_id}".encode()).digest()
        return int.from_bytes(digest[:8], "little") / 2**64 < fraction

    fit = [i for i in train if not held_out(i.subject_id)]
    val = [i for i in train if held_out(i.subject_id)]
    if not fit or not val:
        raise UsageError(
            f"a {fraction:.0%} validation split of {len(train)} training instances leaves one side empty",
            hint="change validation_fraction, or use a larger training split",
        )
    return fit, val


def macro_auroc(scores: np.ndarray, truth: np.ndarray) -> float | None:
    """Mean ROC AUC over the labels that have both a positive and a negative validation encounter
    (AUROC is undefined for the others); None when no label has both."""
    both = (truth.min(axis=0) == 0) & (truth.max(axis=0) == 1)
    if not both.any():
        return None
    return float(roc_auc_score(truth[:, both], scores[:, both], average="macro"))


def tune_threshold(scores: np.ndarray, truth: np.ndarray, epsilon: float) -> float:
    """CliniBench's threshold for one label (appendix figure 6), from validation scores and truth.

    Never a positive prediction that is right (best F1 = 0): just above every observed score and
    at least 0.5. Every threshold equally good: just below every observed score and at most 0.5.
    Otherwise the midpoint between the F1-maximising observed score (ties: the lowest, more
    sensitive one) and the next lower observed score. The figure's formula is garbled in the
    paper; this reading keeps the best threshold's validation decisions with a margin either side.
    """
    candidates = np.unique(scores)  # ascending
    order = np.argsort(-scores, kind="stable")
    sorted_scores, sorted_truth = scores[order], truth[order]
    # predicting positive for score >= t: true positives among the scores >= t
    tp_at = np.cumsum(sorted_truth)[np.searchsorted(-sorted_scores, -candidates, side="right") - 1]
    n_pred = np.searchsorted(-sorted_scores, -candidates, side="right")
    f1 = 2 * tp_at / (n_pred + truth.sum())
    if f1.max() == 0:
        return float(max(candidates.max() + epsilon, 0.5))
    if f1.min() == f1.max():
        return float(min(candidates.min() - epsilon, 0.5))
    best = int(np.argmax(f1))  # among equal F1, the lowest threshold (the more sensitive one)
    if best == 0:
        return float(candidates[0] - epsilon)
    return float((candidates[best] + candidates[best - 1]) / 2)


def tune_thresholds(scores: np.ndarray, truth: np.ndarray, epsilon: float = 1e-4) -> np.ndarray:
    return np.array([tune_threshold(scores[:, j], truth[:, j], epsilon) for j in range(scores.shape[1])])


@dataclass
class Emission:
    """Turns one encounter's label scores into ranked prediction items and a raw ranking."""

    titles: list[str]
    emit: Emit = "top_k"
    codes: list[str | None] | None = None
    k: int = 2
    max_items: int = 20
    rank_depth: int = 20
    thresholds: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.emit not in ("top_k", "threshold"):
            raise UsageError(f"emit must be top_k or threshold (got {self.emit!r})")

    def use(self, labels: LabelSpace) -> None:
        """Name the fitted label space's titles (and codes, where it has them) in predictions."""
        self.titles, self.codes = labels.titles, labels.codes

    def items(self, scores: np.ndarray) -> tuple[list[PredictionItem], str]:
        order = np.argsort(-scores, kind="stable")
        if self.emit == "top_k":
            chosen = order[: self.k]
        else:
            assert self.thresholds is not None, "threshold emission needs tuned thresholds"
            chosen = [j for j in order if scores[j] >= self.thresholds[j]][: self.max_items]
        codes = self.codes or [None] * len(self.titles)
        items = [PredictionItem(self.titles[j], score=float(scores[j]), code=codes[j]) for j in chosen]
        ranking = [[self.titles[j], round(float(scores[j]), 6)] for j in order[: self.rank_depth]]
        return items, json.dumps({"ranking": ranking})
