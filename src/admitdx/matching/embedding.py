"""Embedding matcher: cosine similarity above a calibrated threshold, one-to-one by Hungarian.

Both sides are embedded with :class:`admitdx.embeddings.Embedder` (all-MiniLM-L6-v2 by default)
after spelling out abbreviations (:func:`expand_diagnosis`), because a general-domain sentence
encoder knows "congestive heart failure" far better than "CHF". A pair is acceptable when its
cosine similarity reaches ``threshold``; among acceptable pairs the assignment keeps the most
pairs, then the highest total similarity (see :func:`assign_one_to_one`).

Vectors are computed in float32 by default (``precision``), not in the faster bfloat16 some CPUs
offer: a match decided near the threshold must not depend on the machine that computed it.

The default threshold is the one recorded by :mod:`admitdx.matching.calibration` for the default
model. With another model there is no recorded value, so a threshold must be given (or
calibrated with :func:`calibrate_threshold`): a threshold tuned for one encoder means nothing for
another.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from admitdx.embeddings import Embedder
from admitdx.errors import UsageError
from admitdx.matching.base import Matcher, MatchOutcome, MatchTask, assign_one_to_one
from admitdx.matching.calibration import recorded_calibration
from admitdx.matching.normalize import expand_diagnosis


class EmbeddingMatcher(Matcher):
    """``EmbeddingMatcher(threshold=None, model=None)``; ``threshold=None`` uses the calibration.

    ``embedder`` passes a ready :class:`Embedder` (its model and precision win over ``model`` and
    ``precision``).
    """

    name = "embedding"

    def __init__(
        self,
        threshold: float | None = None,
        model: str | Path | None = None,
        expand_abbreviations: bool = True,
        precision: str = "float32",
        embedder: Embedder | None = None,
    ) -> None:
        self.embedder = embedder or Embedder(model, precision=precision)
        self.expand_abbreviations = expand_abbreviations
        if threshold is None:
            recorded = recorded_calibration()
            if recorded is None or recorded.model_id != self.embedder.model_id:
                raise UsageError(
                    f"no calibrated threshold recorded for embedding model {self.embedder.model_id}",
                    hint="pass threshold=… (e.g. --param threshold=0.7) or calibrate it with "
                    "admitdx.matching.calibration.calibrate_threshold",
                )
            threshold = recorded.threshold
        self.threshold = float(threshold)

    def params(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "model_id": self.embedder.model_id,
            "expand_abbreviations": self.expand_abbreviations,
        }

    def _prepare(self, text: str) -> str:
        return expand_diagnosis(text) if self.expand_abbreviations else text

    def match(self, task: MatchTask) -> MatchOutcome:
        return self.match_many([task])[0]

    def match_many(self, tasks: Sequence[MatchTask]) -> list[MatchOutcome]:
        """Embed every distinct text of all tasks in one batch, then assign per task."""
        texts = sorted({self._prepare(t) for task in tasks for t in (*task.predictions, *task.references)})
        vectors = dict(zip(texts, self.embedder.encode(texts), strict=True)) if texts else {}
        outcomes = []
        for task in tasks:
            if not task.predictions or not task.references:
                outcomes.append(MatchOutcome(pairs=[], details={"similarity": []}))
                continue
            p = np.stack([vectors[self._prepare(t)] for t in task.predictions])
            r = np.stack([vectors[self._prepare(t)] for t in task.references])
            similarity = p @ r.T
            pairs = assign_one_to_one(similarity >= self.threshold, similarity)
            outcomes.append(
                MatchOutcome(
                    pairs=pairs, details={"similarity": [round(float(similarity[i, j]), 4) for i, j in pairs]}
                )
            )
        return outcomes
