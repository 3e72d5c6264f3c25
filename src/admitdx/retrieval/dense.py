"""Dense retrieval: cosine similarity of sentence embeddings (CliniBench's "document-based
semantic similarity", section 4.3), exact search by one matrix product — 10k training encounters
are 15 MB of float32 vectors, far below the size where an approximate index pays off."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from admitdx.embeddings import Embedder
from admitdx.retrieval.base import Hit, check_corpus, top_k


class DenseRetriever:
    kind = "dense"

    def __init__(
        self, *, model: str | Path | None = None, embedder: Embedder | None = None, batch_size: int = 64
    ) -> None:
        self.embedder = embedder or Embedder(model, batch_size=batch_size)
        self._matrix: np.ndarray | None = None

    def fit(self, texts: Sequence[str]) -> None:
        self._matrix = self.embedder.encode(check_corpus(texts))

    def query(self, text: str, k: int) -> list[Hit]:
        return self.query_many([text], k)[0]

    def query_many(self, texts: Sequence[str], k: int, block: int = 1024) -> list[list[Hit]]:
        if self._matrix is None:
            raise RuntimeError("DenseRetriever.query before fit")
        texts = list(texts)
        hits: list[list[Hit]] = []
        for start in range(0, len(texts), block):  # bounded memory: block × corpus similarities
            sims = self.embedder.encode(texts[start : start + block]) @ self._matrix.T
            hits.extend(top_k(row, k) for row in sims)
        return hits
