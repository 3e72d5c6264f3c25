"""Term-based retrieval with Okapi BM25 (the ``bm25s`` library).

CliniBench (section 4.3, table 8) found BM25 the strongest off-the-shelf retriever for clinical
notes, ahead of every sentence-transformer. Its BM25 variant and tokenisation are not stated; we use
``bm25s``'s Lucene variant with k1 = 1.5, b = 0.75, lower-casing, the English stop-word list and no
stemming (the parameters below), which is what a Lucene/Elasticsearch index does by default.
"""

from __future__ import annotations

from collections.abc import Sequence

import bm25s
import numpy as np

from admitdx.retrieval.base import Hit, check_corpus, top_k


class BM25Retriever:
    kind = "bm25"

    def __init__(
        self, *, k1: float = 1.5, b: float = 0.75, method: str = "lucene", stopwords: str | None = "english"
    ) -> None:
        self.k1, self.b, self.method, self.stopwords = k1, b, method, stopwords
        self._index: bm25s.BM25 | None = None
        self._size = 0

    def _tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        return bm25s.tokenize(list(texts), stopwords=self.stopwords, return_ids=False, show_progress=False)

    def fit(self, texts: Sequence[str]) -> None:
        corpus = check_corpus(texts)
        tokens = self._tokenize(corpus)
        self._size = len(corpus)
        self._index = None
        if any(tokens):  # bm25s cannot index a corpus without a single word; it then matches nothing
            self._index = bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
            self._index.index(tokens, show_progress=False)

    def query(self, text: str, k: int) -> list[Hit]:
        return self.query_many([text], k)[0]

    def query_many(self, texts: Sequence[str], k: int) -> list[list[Hit]]:
        if not self._size:
            raise RuntimeError("BM25Retriever.query before fit")
        # get_scores gives the full score vector, so ties are broken by corpus order (top_k)
        # rather than by bm25s's partition order, which varies between runs.
        return [top_k(self._scores(tokens), k) for tokens in self._tokenize(texts)]

    def _scores(self, tokens: list[str]) -> np.ndarray:
        """A query with no indexable word (empty, or stop words only) scores 0 against every text."""
        if not tokens or self._index is None:
            return np.zeros(self._size, dtype=np.float32)
        return self._index.get_scores(tokens)
