"""The gold retriever: CliniBench's "ideal retriever" (section 4.3, tables 3 and 8), an upper bound.

It retrieves the training encounters whose *label sets* are most like the query's *label set* by
the Otsuka (Ochiai) coefficient, ``|A ∩ B| / sqrt(|A| · |B|)`` — the cosine of two 0/1 vectors —
so the query is the test encounter's gold labels. No deployed system can know those: the paper
runs it "solely to illustrate the upper limit of few-shot learning". Hence it is not a text
retriever: ``fit`` takes the training label sets and refuses texts, ``query`` takes a label set,
and only a system that declares itself an oracle (the runner then hands it the test targets,
records that in the manifest, and the report marks the run) can use it.

Ties (equal coefficients, including 0 for disjoint sets) keep corpus order, like every retriever
here (:func:`admitdx.retrieval.base.top_k`). An empty set has coefficient 0 with everything.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np
from scipy import sparse

from admitdx.errors import UsageError
from admitdx.retrieval.base import Hit, check_corpus, top_k

ORACLE_NOTE = "oracle: uses the test labels to choose demonstrations (an upper bound, CliniBench 4.3)"


def otsuka(a: Collection[str], b: Collection[str]) -> float:
    """``|A ∩ B| / sqrt(|A| |B|)``; 0 when either set is empty."""
    a, b = set(a), set(b)
    return len(a & b) / float(np.sqrt(len(a) * len(b))) if a and b else 0.0


class GoldRetriever:
    kind = "gold"

    def __init__(self) -> None:
        self._vocabulary: dict[str, int] = {}
        self._matrix: sparse.csr_matrix | None = None
        self._sizes: np.ndarray = np.zeros(0)

    def fit(self, label_sets: Sequence[Collection[str]]) -> None:
        """Index the training encounters' label sets (hits refer to positions in ``label_sets``)."""
        corpus = check_corpus(label_sets)
        if any(isinstance(labels, str) for labels in corpus):
            raise UsageError(
                "the gold retriever retrieves by label sets, not by texts",
                hint="only a system that declares itself an oracle can use it: `kind: llm-codes` with "
                "`prompt: few-shot, retriever: gold`",
            )
        sets = [set(labels) for labels in corpus]
        self._vocabulary = {lab: j for j, lab in enumerate(sorted(set().union(*sets)))}
        self._matrix = self._indicators(sets)
        self._sizes = np.asarray([len(s) for s in sets], dtype=np.float64)

    def _indicators(self, sets: Sequence[set[str]]) -> sparse.csr_matrix:
        rows, cols = [], []
        for i, labels in enumerate(sets):
            known = [self._vocabulary[lab] for lab in labels if lab in self._vocabulary]
            rows += [i] * len(known)
            cols += known
        return sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(sets), len(self._vocabulary)))

    def query(self, labels: Collection[str], k: int) -> list[Hit]:
        return self.query_many([labels], k)[0]

    def query_many(self, label_sets: Sequence[Collection[str]], k: int) -> list[list[Hit]]:
        if self._matrix is None:
            raise RuntimeError("GoldRetriever.query before fit")
        sets = [set(labels) for labels in label_sets]
        overlap = np.asarray((self._indicators(sets) @ self._matrix.T).todense())
        sizes = np.asarray([len(s) for s in sets], dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            scores = overlap / np.sqrt(np.outer(sizes, self._sizes))
        return [top_k(np.nan_to_num(row, nan=0.0), k) for row in scores]
