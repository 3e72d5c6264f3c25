"""kNN one-liner: copy the reference of the most similar training patient.

The retrieval control of ER-Reason's one-liner task: if a neighbour's one-liner already scores a
given ROUGE, a model's summary must beat it to show it read this patient's notes. Similarity is the
cosine of word unigram+bigram TF-IDF vectors (sublinear tf) of the whole input; ties go to the
earliest training instance. Multi-part targets (planning rationales) are copied whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from admitdx.contracts import Instance, Prediction
from admitdx.errors import UsageError
from admitdx.systems import register
from admitdx.tasks.spec import TaskSpec


@register(
    "knn-text",
    "kNN for text tasks: the nearest training patient's reference (TF-IDF cosine)",
    answers=("text",),
)
class NearestReference:
    name = "knn-text"

    def __init__(self, *, task: TaskSpec) -> None:
        """``task``: a text task (the runner and :func:`admitdx.systems.create` check its answer kind)."""

    def fit(self, train: list[Instance]) -> None:
        self.train = [i for i in train if i.target]
        if not self.train:
            raise UsageError(f"{self.name}: the training split has no references")
        self.vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
        self.matrix = self.vectorizer.fit_transform([i.text for i in self.train])

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        batch = list(instances)
        if not batch:
            return
        similarity = (self.vectorizer.transform([i.text for i in batch]) @ self.matrix.T).toarray()
        for inst, row in zip(batch, similarity, strict=True):
            best = int(np.argmax(row))  # first maximum: the earliest training instance
            neighbour = self.train[best]
            yield Prediction(
                instance_id=inst.id,
                system=self.name,
                items=[],
                answer=neighbour.target,
                rationale=f"copied from {neighbour.id} (cosine {row[best]:.3f})",
            )
