"""What every retriever shares: the hit record, the interface, and a deterministic top-k.

A retriever indexes the training encounters' texts once (``fit``) and answers "which training
encounters are most like this one?" (``query``). The same retrievers serve two consumers: the
retrieval kNN baseline (copy the neighbours' labels) and the LLM predictor's few-shot exemplar
selection (CliniBench section 4.3), so they know nothing about labels — only texts and indices.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np

from admitdx.errors import UsageError


class Hit(NamedTuple):
    """One retrieved training text: its position in the fitted corpus and its similarity."""

    index: int
    score: float


class Retriever(Protocol):
    kind: str

    def fit(self, texts: Sequence[str]) -> None:
        """Index the corpus (the training split's texts). Hits refer to positions in ``texts``."""

    def query(self, text: str, k: int) -> list[Hit]:
        """The ``k`` most similar corpus texts, most similar first (ties: lower index first)."""

    def query_many(self, texts: Sequence[str], k: int) -> list[list[Hit]]:
        """``query`` for many texts at once (batched where the retriever can batch)."""


def check_corpus(texts: Sequence[str]) -> list[str]:
    """Refuse an empty corpus: a retriever with nothing to retrieve is a configuration mistake."""
    corpus = list(texts)
    if not corpus:
        raise UsageError(
            "cannot fit a retriever on zero texts",
            hint="check that the dataset's training split is not empty (`--split` names the test split)",
        )
    return corpus


def top_k(scores: np.ndarray, k: int) -> list[Hit]:
    """The ``k`` highest scores, highest first; equal scores keep corpus order, so results are
    reproducible whatever the numerical library's partition order."""
    k = min(k, scores.shape[0])
    if k <= 0:
        return []
    # lexsort sorts by its last key first: descending score, then ascending index.
    order = np.lexsort((np.arange(scores.shape[0]), -scores))[:k]
    return [Hit(int(i), float(scores[i])) for i in order]
