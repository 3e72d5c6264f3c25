"""Random retrieval: CliniBench's "random demonstrations" control (section 4.3, table 8).

Each query draws ``k`` distinct corpus positions from a generator seeded by the run seed and the
query text, so a query gets the same neighbours whatever order or batch it arrives in (a resumed
run reproduces an interrupted one). Scores are uniform draws sorted high to low: meaningless as
similarities, present so every retriever returns the same record.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from admitdx.retrieval.base import Hit, check_corpus


class RandomRetriever:
    kind = "random"

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed
        self._n = 0

    def fit(self, texts: Sequence[str]) -> None:
        self._n = len(check_corpus(texts))

    def query(self, text: str, k: int) -> list[Hit]:
        if self._n == 0:
            raise RuntimeError("RandomRetriever.query before fit")
        digest = hashlib.sha256(f"{self.seed}\0{text}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        chosen = rng.choice(self._n, size=min(k, self._n), replace=False)
        scores = np.sort(rng.random(len(chosen)))[::-1]
        return [Hit(int(i), float(s)) for i, s in zip(chosen, scores, strict=True)]

    def query_many(self, texts: Sequence[str], k: int) -> list[list[Hit]]:
        return [self.query(t, k) for t in texts]
