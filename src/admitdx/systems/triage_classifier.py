"""Triage-vitals classifier for the category tasks (acuity, disposition): a multinomial logistic
regression over the numbers triage records, trained on the training split.

Features (from ``Instance.meta``, written by the ER-Reason builders): the six triage vitals
(temperature, heart rate, respiratory rate, SpO2, systolic and diastolic pressure), age, sex and —
when the task shows it (disposition, not acuity) — the ESI acuity. A missing number is replaced by
the training median and flagged by its own indicator column, so "not measured" can carry signal
(a patient too unwell to have a temperature taken). Features are standardised; ``C = 1``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from admitdx.contracts import Instance, Prediction
from admitdx.errors import UsageError
from admitdx.systems import register
from admitdx.tasks.spec import TaskSpec

VITALS = ("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp")
NUMBERS = (*(f"triage_{v}" for v in VITALS), "age", "acuity")


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else np.nan


@register(
    "triage-classifier",
    "logistic regression over triage vitals, age, sex (and acuity when shown)",
    answers=("category",),
)
class TriageClassifier:
    name = "triage-classifier"

    def __init__(self, *, task: TaskSpec, C: float = 1.0, seed: int = 0) -> None:
        self.categories = task.categories
        self.C = C
        self.seed = seed

    def _raw(self, instances: list[Instance]) -> np.ndarray:
        rows = [[_number(i.meta.get(f)) for f in self.fields] for i in instances]
        sex = [[1.0 if str(i.meta.get("sex", "")).upper().startswith("F") else 0.0] for i in instances]
        return np.hstack([np.array(rows, dtype=float).reshape(len(instances), -1), np.array(sex)])

    def _features(self, instances: list[Instance]) -> np.ndarray:
        raw = self._raw(instances)
        missing = np.isnan(raw)
        filled = np.where(missing, self.medians, raw)
        return np.hstack([filled, missing[:, : len(self.fields)].astype(float)])

    def fit(self, train: list[Instance]) -> None:
        train = [i for i in train if i.target in self.categories]
        if len({i.target for i in train}) < 2:
            raise UsageError(f"{self.name}: the training split needs at least two answer classes")
        # a field no training instance carries (acuity on the acuity task: it is the target) is unused
        self.fields = [f for f in NUMBERS if any(not np.isnan(_number(i.meta.get(f))) for i in train)]
        raw = self._raw(train)
        self.medians = np.nan_to_num(np.nanmedian(raw, axis=0))
        x = self._features(train)
        self.scaler = StandardScaler().fit(x)
        self.model = LogisticRegression(C=self.C, max_iter=2000, random_state=self.seed)
        self.model.fit(self.scaler.transform(x), [i.target for i in train])

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        batch = list(instances)
        if not batch:
            return
        proba = self.model.predict_proba(self.scaler.transform(self._features(batch)))
        classes = list(self.model.classes_)
        for inst, p in zip(batch, proba, strict=True):
            best = int(np.argmax(p))
            yield Prediction(
                instance_id=inst.id,
                system=self.name,
                items=[],
                answer=classes[best],
                rationale=f"p={p[best]:.3f}",
            )
