"""Normalised exact matching: equal after :func:`normalize_diagnosis`, one-to-one.

The strictest matcher, and the only one with no model in it: "CHF" equals "congestive heart
failure" and "fracture of hip" equals "Hip fracture", but "heart attack" does not equal "acute
myocardial infarction". It is a floor for the semantic matchers and a sanity check on them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from admitdx.matching.base import Matcher, MatchOutcome, MatchTask, assign_one_to_one
from admitdx.matching.normalize import normalize_diagnosis


class ExactMatcher(Matcher):
    """Pairs a prediction with a reference when their normalised forms are identical.

    ``drop_qualifiers`` (default True) ignores "unspecified", "NOS" and "NEC", which ICD titles
    append without changing the condition. An empty normalised form never matches.
    """

    name = "exact"

    def __init__(self, drop_qualifiers: bool = True) -> None:
        self.drop_qualifiers = drop_qualifiers

    def params(self) -> dict[str, Any]:
        return {"drop_qualifiers": self.drop_qualifiers}

    def match(self, task: MatchTask) -> MatchOutcome:
        preds = [normalize_diagnosis(t, drop_qualifiers=self.drop_qualifiers) for t in task.predictions]
        refs = [normalize_diagnosis(t, drop_qualifiers=self.drop_qualifiers) for t in task.references]
        acceptable = np.array([[bool(p) and p == r for r in refs] for p in preds], dtype=bool)
        return MatchOutcome(pairs=assign_one_to_one(acceptable.reshape(len(preds), len(refs))))
