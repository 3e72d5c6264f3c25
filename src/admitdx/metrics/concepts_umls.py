"""QuickUMLS over the user's own UMLS installation: UMLS CUIs, the concept space of ER-Reason's
cTAKES extraction, for a licensed user (``score --concept-extractor quickumls --umls-index DIR``).

DIR is the index QuickUMLS's own installer writes from a UMLS release's ``MRCONSO.RRF`` and
``MRSTY.RRF`` (``python -m quickumls.install -L META DIR``; see the metrics README for the offline
recipe). Two of QuickUMLS's steps would otherwise download at run time, and neither happens here:

- **spaCy model.** QuickUMLS standing alone loads ``en_core_web_sm``. Constructed with
  ``spacy_component=True`` it loads none, and its matcher runs on a Doc we tokenize with a blank
  English pipeline (:func:`admitdx.metrics.concepts_negation.pipeline`, no statistical model), as QuickUMLS's
  own spaCy component does by calling ``QuickUMLS._match(doc)``. Without a tagger every token's
  part of speech is empty, so QuickUMLS's POS rules (no span starting or ending on a determiner,
  adposition or conjunction) do not fire; its stop-word, punctuation and number rules do.
- **NLTK stop words.** QuickUMLS reads NLTK's ``stopwords`` corpus and calls ``nltk.download`` when
  it is missing; we check for it first and stop with the command that installs it once.

A span's concepts are the CUIs of its best-scoring term (QuickUMLS ranks a span's candidate terms
by similarity, preferred names first); a tie keeps every CUI of that score, as an ambiguous string
names each. Negated spans are dropped by the same NegEx pipeline as the offline extractor.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from admitdx.errors import UsageError
from admitdx.metrics.concepts_negation import pipeline

INSTALL_HINT = "pip install 'admitdx[concepts,umls]', then index your UMLS release (metrics README)"
INDEX_FILES = ("umls-simstring.db", "cui-semtypes.db")
DEFAULT_THRESHOLD = 0.7
DEFAULT_SIMILARITY = "jaccard"


def quickumls_available() -> bool:
    return importlib.util.find_spec("quickumls") is not None


def _check_index(index: Path) -> None:
    missing = [f for f in INDEX_FILES if not (index / f).exists()]
    if not index.is_dir() or missing:
        raise UsageError(
            f"{index} is not a QuickUMLS index (missing: {', '.join(missing) or 'the folder'})",
            hint="build it from your UMLS release: python -m quickumls.install -L UMLS/META " + str(index),
        )


def _check_stopwords() -> None:
    import nltk

    try:
        nltk.data.find("corpora/stopwords")
    except LookupError:
        raise UsageError(
            "QuickUMLS needs NLTK's stopwords corpus, which is not installed "
            "(admitdx never downloads it at run time)",
            hint="install it once: python -m nltk.downloader stopwords",
        ) from None


class QuickUmlsExtractor:
    """UMLS CUIs (``UMLS:C0032285``) found by QuickUMLS in ``index``; negated spans left out."""

    name = "quickumls"

    def __init__(
        self, index: Path, threshold: float = DEFAULT_THRESHOLD, similarity: str = DEFAULT_SIMILARITY
    ) -> None:
        if not quickumls_available():
            raise UsageError("the quickumls concept extractor needs the quickumls package", hint=INSTALL_HINT)
        self.index = Path(index)
        _check_index(self.index)
        _check_stopwords()
        from quickumls import QuickUMLS

        try:
            self._matcher = QuickUMLS(
                str(self.index), threshold=threshold, similarity_name=similarity, spacy_component=True
            )
        except (OSError, LookupError, ValueError, AssertionError) as e:
            raise UsageError(f"QuickUMLS could not open {self.index}: {e}", hint=INSTALL_HINT) from e
        self._nlp = pipeline()
        self.params = {"index": str(self.index.resolve()), "threshold": threshold, "similarity": similarity}

    def _spans(self, doc: Any) -> dict[tuple[int, int], set[str]]:
        """(start char, end char) → the CUIs of the span's best term."""
        spans: dict[tuple[int, int], set[str]] = {}
        for group in self._matcher._match(doc, best_match=True, ignore_syntax=False):
            best = max(m["similarity"] for m in group)
            for m in group:
                if m["similarity"] == best:
                    spans.setdefault((int(m["start"]), int(m["end"])), set()).add(f"UMLS:{m['cui']}")
        return spans

    def concepts(self, text: str) -> set[str]:
        doc = self._nlp.make_doc(text)
        spans = self._spans(doc)
        ents, cuis = [], []
        for (start, end), found in sorted(spans.items()):
            span = doc.char_span(start, end, label=f"m{len(ents)}", alignment_mode="expand")
            if span is None:  # QuickUMLS builds its n-grams from tokens, so a span always aligns
                raise ValueError(f"QuickUMLS span {start}:{end} does not align with the tokens of {text!r}")
            ents.append(span)
            cuis.append(found)
        doc.ents = ents  # best_match keeps non-overlapping spans only
        for _, proc in self._nlp.pipeline:
            doc = proc(doc)
        return {cui for ent in doc.ents if not ent._.negex for cui in cuis[int(ent.label_[1:])]}
