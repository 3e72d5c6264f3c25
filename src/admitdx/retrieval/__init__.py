"""Find the training encounters most similar to a given one.

One interface (:class:`Retriever`: ``fit(texts)``, ``query(text, k)`` → ``[Hit(index, score)]``)
and the kinds made by :func:`make_retriever`:

``bm25``    term overlap (Okapi BM25, ``bm25s``) — CliniBench's strongest off-the-shelf retriever
``dense``   cosine similarity of sentence embeddings (:mod:`admitdx.embeddings`)
``latent``  cosine similarity of a fine-tuned encoder's pooled vectors (CliniBench's BioMedBERT_ft)
``random``  random training encounters — the control
``gold``    the oracle: label sets by the Otsuka coefficient, queried with the *test* labels
            (:mod:`admitdx.retrieval.gold`; fitted on label sets, not texts — an upper bound only)

Example::

    r = make_retriever("bm25")
    r.fit([inst.text for inst in train])
    for hit in r.query(test_instance.text, k=5):
        exemplar = train[hit.index]
"""

from __future__ import annotations

from typing import Any

from admitdx.errors import UsageError
from admitdx.retrieval.base import Hit, Retriever

RETRIEVER_KINDS: dict[str, str] = {
    "bm25": "Okapi BM25 term matching (bm25s, Lucene variant)",
    "dense": "cosine similarity of sentence embeddings (all-MiniLM-L6-v2 by default)",
    "latent": "cosine similarity of a fine-tuned encoder's pooled vectors (model_dir: the encoder)",
    "random": "random training encounters (a control)",
    "gold": "oracle: Otsuka coefficient of label sets, queried with the test labels (an upper bound)",
}


def make_retriever(kind: str, **options: Any) -> Retriever:
    """Build an unfitted retriever of ``kind`` with its options (see each class for them)."""
    if kind == "bm25":
        from admitdx.retrieval.bm25 import BM25Retriever

        return BM25Retriever(**options)
    if kind == "dense":
        from admitdx.retrieval.dense import DenseRetriever  # imports torch: only when asked for

        return DenseRetriever(**options)
    if kind == "latent":
        from admitdx.retrieval.latent import LatentRetriever  # imports torch: only when asked for

        return LatentRetriever(**options)
    if kind == "gold":
        from admitdx.retrieval.gold import GoldRetriever

        return GoldRetriever(**options)  # type: ignore[return-value]  # label sets, not texts
    if kind == "random":
        from admitdx.retrieval.random_pick import RandomRetriever

        return RandomRetriever(**options)
    raise UsageError(f"unknown retriever {kind!r}", hint=f"choose one of: {', '.join(RETRIEVER_KINDS)}")


__all__ = ["RETRIEVER_KINDS", "Hit", "Retriever", "make_retriever"]
