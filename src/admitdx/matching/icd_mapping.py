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

**Hybrid search ranks BM25 candidates, not the whole dictionary** (``candidates``, default
:data:`DEFAULT_CANDIDATES`). Embedding all 74,724 billable ICD-10-CM titles once took 19 silent
minutes on a loaded 2-core machine (65 titles/s), and a cold embedding cache pays it again.
So each text's embedding ranking covers only its top ``candidates`` BM25 titles (BM25 order, ties
by code), and only those titles are embedded (and cached): about a thousand for 100 predictions.
This can change a mapping in two ways (on 200 diverse predicted texts, 92 % kept their ICD-10
code and the unmapped share rose from 7 % to 12 %; see ``README.md`` beside this module):

- a title that shares no indexed word with the text, or ranks below the candidate cut, cannot
  win; with the whole dictionary it could, on its cosine rank alone. A text sharing no word with
  any title is therefore unmapped (the whole-dictionary search maps it to its nearest title if
  that reaches the floor);
- the cosine rank fused with the BM25 rank is the rank *among the candidates*, not among all
  titles, which can reorder two close candidates.

``candidates=0`` embeds the whole dictionary and ranks all of it: the protocol before this option
existed, with identical results. ``"embedding"`` search always covers the whole dictionary (a
lexical pre-filter would defeat its purpose: naming a condition in other words). Both report their
progress through ``on_progress`` while the titles are embedded.

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

from collections.abc import Callable, Sequence
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
#: BM25 titles per text that hybrid search embeds and ranks (see the module docstring and README).
DEFAULT_CANDIDATES = 20
#: ``(step, done, total)``: progress of a one-time step that can take long ("embedding ICD-10 titles").
StepProgress = Callable[[str, int, int], None]
_REPORT_EVERY = 10_000  # dictionary rows between two progress reports while indexing


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
    """Exact, BM25 and embedding look-up over one dictionary's titles.

    Title vectors are embedded on first use, only for the titles a search needs, and kept for the
    life of the index (and in the embedder's disk cache across runs).
    """

    def __init__(
        self,
        rows: Sequence[tuple[str, str, str]],
        version: int,
        embedder: Embedder | None,
        on_progress: StepProgress | None = None,
    ) -> None:
        self.version = version
        self.embedder = embedder
        self.on_progress = on_progress
        words = _words_of(tuple(rows), version, self._report)
        self.codes, self.titles, self.strict, self.loose, self.bm25 = words
        self._title_vectors: dict[int, np.ndarray] = {}
        self._all_vectors: np.ndarray | None = None
        self.embedded = 0  # titles this index had to embed (not found in the embedder's cache)
        self.queried = 0  # texts this index has embedded to search for, over all calls

    def _report(self, step: str, done: int, total: int) -> None:
        if self.on_progress is not None:
            self.on_progress(step, done, total)

    def title_vectors(self, ids: Sequence[int]) -> np.ndarray:
        """(len(ids), d) unit vectors of these titles, embedding each the first time it is needed."""
        assert self.embedder is not None, "embedding search needs an embedder"
        missing = [i for i in dict.fromkeys(ids) if i not in self._title_vectors]
        if missing:
            before = self.embedded

            def report(done: int, total: int) -> None:  # counts add up over calls (runner chunks)
                self.embedded = before + done
                self._report(f"embedding ICD-{self.version} titles", before + done, before + total)

            vectors = self.embedder.encode([expand_diagnosis(self.titles[i]) for i in missing], report)
            self._title_vectors.update(zip(missing, vectors, strict=True))
        if not ids:
            return np.zeros((0, self.embedder.dimension), dtype=np.float32)
        return np.stack([self._title_vectors[i] for i in ids])

    def vectors(self) -> np.ndarray:
        """Every title's vector, in dictionary order (the whole-dictionary protocols)."""
        if self._all_vectors is None:
            self._all_vectors = self.title_vectors(range(len(self.titles)))
        return self._all_vectors

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

    def search(
        self, texts: Sequence[str], how: Search, min_similarity: float, candidates: int = 0
    ) -> list[CodeMapping | None]:
        """Map texts that the exact step did not resolve (see the module docstring).

        ``candidates`` (hybrid only): how many BM25 titles per text are embedded and ranked;
        0 ranks the whole dictionary.
        """
        if not texts:
            return []
        bm25 = self.bm25_scores(texts) if how in ("bm25", "hybrid") else None
        if how == "bm25":
            return [self._best_bm25(text, row) for text, row in zip(texts, bm25, strict=True)]
        assert self.embedder is not None, "embedding search needs an embedder"
        queries = self._queries(texts)
        if how == "hybrid" and candidates > 0:
            pools = [_top_bm25(row, candidates) for row in bm25]
            needed = sorted({int(i) for pool in pools for i in pool})
            pooled = self.title_vectors(needed) if needed else None
            position = {title: k for k, title in enumerate(needed)}
            cosines = [
                pooled[[position[int(i)] for i in pool]] @ q if len(pool) else None
                for pool, q in zip(pools, queries, strict=True)
            ]
        else:  # the whole dictionary: every title is a candidate of every text
            everything = np.arange(len(self.titles))
            pools = [everything] * len(texts)
            cosines = list(queries @ self.vectors().T)
        out: list[CodeMapping | None] = []
        for n, (ids, cosine) in enumerate(zip(pools, cosines, strict=True)):
            if not normalize_diagnosis(texts[n]) or cosine is None:
                out.append(None)  # nothing to search for ("", "NOS"), or no title shares a word
                continue
            if how == "embedding":
                best = int(np.argmax(cosine))
            else:
                lexical = bm25[n, ids]
                fused = _reciprocal_rank(cosine) + np.where(lexical > 0, _reciprocal_rank(lexical), 0.0)
                best = int(np.argmax(fused))
            sim, title = float(cosine[best]), int(ids[best])
            out.append(
                CodeMapping(self.codes[title], self.titles[title], how, sim)
                if sim >= min_similarity
                else None
            )
        return out

    def _queries(self, texts: Sequence[str]) -> np.ndarray:
        """The texts' vectors, reported as a step (counts add up over the runner's chunks). The first
        call loads the embedding model, which is what the step's first seconds are. The embedder is
        not handed the callback: it would embed in smaller blocks, and batches of other sizes can
        move a vector in its last digits (and a match file's scores with it)."""
        assert self.embedder is not None, "embedding search needs an embedder"
        step, before = f"embedding texts to map into ICD-{self.version}", self.queried
        self._report(step, before, before + len(texts))
        queries = self.embedder.encode([expand_diagnosis(t) for t in texts])
        self.queried = before + len(texts)
        self._report(step, self.queried, self.queried)
        return queries

    def _best_bm25(self, text: str, scores: np.ndarray) -> CodeMapping | None:
        if not normalize_diagnosis(text):
            return None
        best = int(np.argmax(scores))
        score = float(scores[best])
        return CodeMapping(self.codes[best], self.titles[best], "bm25", score) if score > 0 else None


#: the word side of a TitleIndex (codes, titles, strict and loose forms, BM25), by dictionary: the
#: same in every index of one process, and about 10 s to make, so made once (the vectors are not
#: kept here: they belong to an index's embedder)
_WORDS: dict[tuple, tuple] = {}


def _words_of(rows: tuple, version: int, report: Callable[[str, int, int], None]) -> tuple:
    if (made := _WORDS.get(rows)) is not None:
        return made
    codes = [r[0] for r in rows]
    titles = [r[1] for r in rows]
    # Strict forms keep "NOS"/"NEC"/"unspecified" ("Septicemia NOS" is 038.9, "Septicemia NEC"
    # 038.8); loose forms drop them and are used only where they name a single code.
    strict: dict[str, int] = {}
    loose: dict[str, set[int]] = {}
    step = f"indexing ICD-{version} titles"
    report(step, 0, len(rows))
    for i, (_, long_title, short_title) in enumerate(rows):
        for t in {long_title, short_title}:  # ICD-10 short titles are the long ones: normalise once
            strict.setdefault(normalize_diagnosis(t, drop_qualifiers=False), i)
            loose.setdefault(normalize_diagnosis(t), set()).add(i)
        if (i + 1) % _REPORT_EVERY == 0:
            report(step, i + 1, len(rows))
    bm25 = bm25s.BM25()
    bm25.index(_bm25_tokens(titles), show_progress=False)
    report(step, len(rows), len(rows))
    unique = {form: next(iter(ids)) for form, ids in loose.items() if len(ids) == 1}
    if len(_WORDS) >= 4:
        _WORDS.pop(next(iter(_WORDS)))
    _WORDS[rows] = made = (codes, titles, strict, unique, bm25)
    return made


def _top_bm25(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k best titles with a positive score, in dictionary order (ties by index)."""
    positive = np.flatnonzero(scores > 0)
    return np.sort(positive[np.argsort(-scores[positive], kind="stable")[:k]])


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
