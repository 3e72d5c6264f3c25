"""Mapping free-text diagnoses to ICD codes through the code dictionary's titles (CliniBench 4.2).

CliniBench generates diagnosis *descriptions* and maps each to the ICD code whose title it
resembles, because LLMs are poor at emitting codes directly. Here a text is mapped in two steps:

1. **exact**: the text, normalised as by the exact matcher (case, punctuation, abbreviations,
   word order, "unspecified"/"NOS"), equals the normalised long or short title of a code, or the
   text is itself a valid code ("I21.4").
2. **search** over the long titles, one of:
   ``"hybrid"`` (default) — BM25 (``bm25s``) and embedding rankings fused by reciprocal rank
   (k = 60, Cormack et al. 2009), so a title that is both lexically and semantically close wins;
   ``"bm25"`` — the best BM25 title; ``"embedding"`` — the nearest title by cosine.

A text stays **unmapped** when no step reaches its floor: BM25 needs a positive score (a shared
content word; CliniBench notes BM25 discards 14 % of texts this way), and embedding or hybrid
search needs cosine similarity ≥ ``min_similarity`` between the text and the chosen title. The
default floor is the embedding matcher's calibrated threshold: the same similarity that says two
diagnosis strings name one condition says a text names a code's condition. (CliniBench's own
semantic mapping has no floor and maps everything; pass ``min_similarity=-1`` for that.)

The dictionary holds billable codes by default (leaves: what a reference code is), or every code
with ``billable_only=False``; ``code_prefixes`` restricts it (e.g. to one chapter).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import bm25s
import numpy as np

from admitdx.embeddings import Embedder
from admitdx.matching.normalize import EMPTY_QUALIFIERS, expand_diagnosis, normalize_diagnosis
from admitdx.ontology import icd

Search = Literal["hybrid", "bm25", "embedding"]
RRF_K = 60


@dataclass(frozen=True)
class CodeMapping:
    """Where a text landed: code (MIMIC form), its title, the step that found it and its score."""

    code: str
    title: str
    method: str  # "exact", "code", "hybrid", "bm25", "embedding"
    score: float | None = None


@lru_cache(maxsize=8)
def dictionary(version: int, billable_only: bool = True, code_prefixes: tuple[str, ...] = ()) -> tuple:
    """``((code, long title, short title), …)`` of one ICD version, sorted by code."""
    codes = icd.codes(version, billable_only)
    if code_prefixes:
        codes = tuple(c for c in codes if c.startswith(tuple(icd.normalize(p) for p in code_prefixes)))
    rows = []
    for code in codes:
        long_title = icd.title(code, version)
        if long_title:
            rows.append((code, long_title, icd.short_title(code, version) or long_title))
    return tuple(rows)


class TitleIndex:
    """Exact, BM25 and embedding look-up over one dictionary's titles."""

    def __init__(self, rows: Sequence[tuple[str, str, str]], version: int, embedder: Embedder | None) -> None:
        self.version = version
        self.codes = [r[0] for r in rows]
        self.titles = [r[1] for r in rows]
        # Strict forms keep "NOS"/"NEC"/"unspecified" ("Septicemia NOS" is 038.9, "Septicemia NEC"
        # 038.8); loose forms drop them and are used only where they name a single code.
        self.strict: dict[str, int] = {}
        loose: dict[str, set[int]] = {}
        for i, (_, long_title, short_title) in enumerate(rows):
            for t in (long_title, short_title):
                self.strict.setdefault(normalize_diagnosis(t, drop_qualifiers=False), i)
                loose.setdefault(normalize_diagnosis(t), set()).add(i)
        self.loose = {form: next(iter(ids)) for form, ids in loose.items() if len(ids) == 1}
        self.bm25 = bm25s.BM25()
        self.bm25.index(_bm25_tokens(self.titles), show_progress=False)
        self.embedder = embedder
        self._vectors: np.ndarray | None = None

    def vectors(self) -> np.ndarray:
        if self._vectors is None:
            assert self.embedder is not None, "embedding search needs an embedder"
            self._vectors = self.embedder.encode([expand_diagnosis(t) for t in self.titles])
        return self._vectors

    def exact(self, text: str) -> CodeMapping | None:
        if not normalize_diagnosis(text):
            return None
        i = self.strict.get(normalize_diagnosis(text, drop_qualifiers=False))
        if i is None:
            i = self.loose.get(normalize_diagnosis(text))
        if i is not None:
            return CodeMapping(self.codes[i], self.titles[i], "exact")
        stripped = text.strip()
        if len(stripped) <= 8 and " " not in stripped and icd.is_valid(stripped, self.version):
            code = icd.normalize(stripped)
            return CodeMapping(code, icd.title(code, self.version) or "", "code")
        return None

    def bm25_scores(self, texts: Sequence[str]) -> np.ndarray:
        """(n_texts, n_titles) BM25 scores of every title for every text."""
        if not texts:
            return np.zeros((0, len(self.codes)))
        zeros = np.zeros(len(self.codes))  # a text with no content word shares nothing with any title
        return np.stack(
            [self.bm25.get_scores(t) if t else zeros for t in _bm25_tokens(texts, return_ids=False)]
        )

    def search(self, texts: Sequence[str], how: Search, min_similarity: float) -> list[CodeMapping | None]:
        """Map texts that the exact step did not resolve (see the module docstring)."""
        if not texts:
            return []
        bm25 = self.bm25_scores(texts) if how in ("bm25", "hybrid") else None
        cosine = None
        if how in ("embedding", "hybrid"):
            assert self.embedder is not None
            cosine = self.embedder.encode([expand_diagnosis(t) for t in texts]) @ self.vectors().T
        out: list[CodeMapping | None] = []
        for n in range(len(texts)):
            if not normalize_diagnosis(texts[n]):
                out.append(None)  # nothing to search for ("", "NOS", punctuation only)
                continue
            if how == "bm25":
                best = int(np.argmax(bm25[n]))
                score = float(bm25[n, best])
                out.append(
                    CodeMapping(self.codes[best], self.titles[best], how, score) if score > 0 else None
                )
                continue
            if how == "embedding":
                best = int(np.argmax(cosine[n]))
            else:
                fused = _reciprocal_rank(cosine[n]) + np.where(bm25[n] > 0, _reciprocal_rank(bm25[n]), 0.0)
                best = int(np.argmax(fused))
            sim = float(cosine[n, best])
            out.append(
                CodeMapping(self.codes[best], self.titles[best], how, sim) if sim >= min_similarity else None
            )
        return out


def _bm25_tokens(texts: Sequence[str], return_ids: bool = True):
    """English stop words and the empty ICD qualifiers ("NOS" is rare in ICD-10 titles, so BM25
    would otherwise weigh it heavily and map "Septicemia NOS" to "Placenta previa NOS")."""
    stopwords = sorted(set(bm25s.stopwords.STOPWORDS_EN) | EMPTY_QUALIFIERS)
    return bm25s.tokenize(
        [expand_diagnosis(t) for t in texts], stopwords=stopwords, show_progress=False, return_ids=return_ids
    )


def _reciprocal_rank(scores: np.ndarray) -> np.ndarray:
    """1 / (k + rank) for every item, rank 1 = highest score."""
    ranks = np.empty(len(scores))
    ranks[np.argsort(-scores, kind="stable")] = np.arange(1, len(scores) + 1)
    return 1.0 / (RRF_K + ranks)
