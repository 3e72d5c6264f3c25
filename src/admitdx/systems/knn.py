"""Retrieval kNN: copy the diagnoses of the most similar training encounters.

EarlyDx section 5.1 copies the single nearest training encounter's diagnoses (0.13 supported F1).
CliniBench section 4.3 / table 8 votes over the labels of the five nearest encounters and keeps
the 20 most frequent, "labels from documents with a higher document similarity are prioritized in
case of equal frequency". Both are this one algorithm: ``neighbours=1`` copies the nearest
encounter's labels verbatim in its reference order; ``neighbours=5, max_labels=20`` is CliniBench's
majority vote. Labels that differ only in case or spacing vote together, and are written as the
nearest neighbour carrying them wrote them.

Ranking: more votes first; among equal votes, the label whose best-ranked neighbour is nearer
first; then the label's position within that neighbour's references. The score is the vote share
(votes / neighbours retrieved).

Code-aware: on a diagnosis task scored without a matcher (CliniBench: the suite reads
``PredictionItem.code``), labels vote by their code, and each item carries the code with its
title as text; elsewhere (EarlyDx, judged on text) they vote by title as above. ``by`` forces
either.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from functools import partial
from typing import Any, Literal

from admitdx.contracts import Instance, Prediction, PredictionItem
from admitdx.errors import UsageError
from admitdx.retrieval import Hit, make_retriever
from admitdx.systems import register
from admitdx.systems.labels import instance_labels
from admitdx.tasks.spec import TaskSpec


def scores_codes(task: TaskSpec | None) -> bool:
    """A diagnosis task scored without a matcher is scored on the codes a system assigns."""
    return task is not None and task.answer == "diagnoses" and task.matcher is None


def instance_codes(instance: Instance) -> dict[str, str]:
    """An instance's distinct coded labels in reference order, code -> its title."""
    labels: dict[str, str] = {}
    for r in instance.references:
        if r.code:
            labels.setdefault(r.code, r.text)
    return labels


class RetrievalKNN:
    """``retriever``: ``bm25``, ``dense`` or ``random``; ``retriever_options`` go to it
    (e.g. ``{model: /path/to/encoder}`` for dense); ``by``: vote by ``code`` or ``text``
    (``auto``: codes when the task is scored on codes)."""

    def __init__(
        self,
        *,
        retriever: str = "bm25",
        neighbours: int = 1,
        max_labels: int | None = None,
        batch_size: int = 256,
        retriever_options: dict[str, Any] | None = None,
        by: Literal["auto", "code", "text"] = "auto",
        task: TaskSpec | None = None,
    ) -> None:
        if by not in ("auto", "code", "text"):
            raise UsageError(f"knn: by must be auto, code or text, got {by!r}")
        self.by_code = by == "code" or (by == "auto" and scores_codes(task))
        self.name = f"knn-{retriever}"
        self.neighbours = neighbours
        self.max_labels = max_labels
        self.batch_size = batch_size
        self.retriever = make_retriever(retriever, **(retriever_options or {}))
        self._train_labels: list[dict[str, str]] = []  # per training instance: label key -> its text
        self._train_ids: list[str] = []

    def fit(self, train: list[Instance]) -> None:
        self.retriever.fit([inst.text for inst in train])
        read = instance_codes if self.by_code else instance_labels
        self._train_labels = [read(inst) for inst in train]
        self._train_ids = [inst.id for inst in train]

    def vote(self, hits: list[Hit]) -> list[PredictionItem]:
        """Labels of the retrieved neighbours, ranked as the module docstring says."""
        votes: dict[str, int] = {}
        first_seen: dict[str, tuple[int, int]] = {}  # (neighbour rank, position in its references)
        text: dict[str, str] = {}
        for rank, hit in enumerate(hits):
            for position, (key, label) in enumerate(self._train_labels[hit.index].items()):
                votes[key] = votes.get(key, 0) + 1
                if key not in first_seen:
                    first_seen[key], text[key] = (rank, position), label
        ranked = sorted(votes, key=lambda key: (-votes[key], first_seen[key]))[: self.max_labels]
        return [
            PredictionItem(text[key], score=votes[key] / len(hits), code=key if self.by_code else None)
            for key in ranked
        ]

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        batch: list[Instance] = []
        for inst in instances:
            batch.append(inst)
            if len(batch) == self.batch_size:
                yield from self._predict_batch(batch)
                batch = []
        yield from self._predict_batch(batch)

    def _predict_batch(self, batch: list[Instance]) -> Iterator[Prediction]:
        if not batch:
            return
        all_hits = self.retriever.query_many([inst.text for inst in batch], self.neighbours)
        for inst, hits in zip(batch, all_hits, strict=True):
            # raw: the neighbours the labels came from, so a surprising prediction can be traced.
            neighbours = [{"train_id": self._train_ids[h.index], "similarity": h.score} for h in hits]
            yield Prediction(
                instance_id=inst.id, system=self.name, items=self.vote(hits), raw=json.dumps(neighbours)
            )


register("knn", "retrieval kNN with options: retriever (bm25/dense/random), neighbours, max_labels")(
    RetrievalKNN
)
register("knn-bm25", "copy the nearest training encounter's diagnoses, BM25 similarity (EarlyDx)")(
    partial(RetrievalKNN, retriever="bm25")
)
register("knn-dense", "copy the nearest training encounter's diagnoses, embedding similarity")(
    partial(RetrievalKNN, retriever="dense")
)
register("knn-vote", "majority vote over the 5 BM25-nearest encounters, top 20 labels (CliniBench)")(
    partial(RetrievalKNN, retriever="bm25", neighbours=5, max_labels=20)
)
register("knn-random", "labels of 5 random training encounters by vote (CliniBench's random control)")(
    partial(RetrievalKNN, retriever="random", neighbours=5, max_labels=20)
)
