"""Clinical concepts in a text, for ER-Reason's concept recall |C_model ∩ C_physician| / |C_physician|
(task 3; the paper extracts UMLS CUIs with cTAKES).

Every score says which extractor produced it (``Extractor.name``; ``score --concept-extractor``):

- ``offline`` (default, no licence needed): conditions from an ICD-10-CM phrase lexicon of whole
  titles and inclusion terms (:mod:`admitdx.metrics.concepts_icd`; concept = 3-character category,
  ``ICD10:J18``), abbreviations, tests, imaging and procedures from admitdx's term table
  (:mod:`admitdx.metrics.concepts_terms`; ``ICD10:I21`` for "NSTEMI", ``LAB:TROPONIN``), and drugs
  from the ``drug-named-entity-recognition`` package's lexicon (DrugBank, MeSH, NHS, MedlinePlus;
  concept = DrugBank id, else its name, ``DRUG:DB00945``). Conditions and terms are matched
  greedily, longest first, on lower-case words (a term spelled like an ICD phrase is the term's);
  drugs as one or two words (as the package's ``find_drugs``); a drug and a condition overlapping
  keep the longer match, the condition on a tie. The ICD and drug tables are cached on disk
  (:mod:`admitdx.metrics.concepts_lexicon`). Its scores are not comparable with ER-Reason's
  table 4, which counts UMLS CUIs found by cTAKES.
- ``quickumls``: UMLS CUIs from the user's own UMLS installation
  (:mod:`admitdx.metrics.concepts_umls`), the paper's concept space.

Both drop negated mentions with NegEx (``negspacy``, its ``en_clinical`` termset, on spaCy's
rule-based tokenizer and sentencizer — no statistical model), so "no chest pain" does not count as
chest pain; "rule out PE", "r/o" and "evaluate for" are not negations here
(:mod:`admitdx.metrics.concepts_negation`).
They need the ``concepts`` extra (``pip install 'admitdx[concepts]'``);
:func:`offline_available` says whether it is installed. The LLM-judge variant of concept recall is
not an extractor: it reads judgements written by ``admitdx judge-concepts``
(:mod:`admitdx.matching.concept_judge`).
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from admitdx.errors import UsageError
from admitdx.metrics.concepts_icd import MAX_TOKENS, words
from admitdx.metrics.concepts_negation import pipeline

EXTRA_HINT = "install the concepts extra: pip install 'admitdx[concepts]'"
EXTRACTORS = ("offline", "quickumls")
DRUG_MAX_TOKENS = 2  # find_drugs looks at word pairs and single words only


class Extractor(Protocol):
    name: str
    params: dict[str, Any]

    def concepts(self, text: str) -> set[str]:
        """The affirmed concepts of ``text`` (negated mentions left out)."""


def offline_available() -> bool:
    return all(
        importlib.util.find_spec(m) is not None
        for m in ("spacy", "negspacy", "drug_named_entity_recognition", "simple_icd_10_cm")
    )


def _greedy(words: list[str], table: dict[str, str], max_tokens: int) -> list[tuple[int, int, str]]:
    """Non-overlapping (start, end, concept) matches, longest first from left to right."""
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(words):
        for n in range(min(max_tokens, len(words) - i), 0, -1):
            concept = table.get(" ".join(words[i : i + n]))
            if concept is not None:
                found.append((i, i + n, concept))
                i += n
                break
        else:
            i += 1
    return found


#: punctuation that joins words into one phrase ("x-ray", "n/v", "I&D"); any other separates them
JOINERS = frozenset("-/&–")


def phrase_words_of(doc: Any) -> tuple[list[str], list[int]]:
    """The words ICD phrases and terms are matched on (:func:`admitdx.metrics.concepts_icd.words`
    of each token), and the token each came from. spaCy splits "x-ray" into three tokens; a joiner
    is skipped so the words are "x ray", as the table spells them, while a comma stays a break
    (an empty word no phrase contains)."""
    out: list[str] = []
    owner: list[int] = []
    for token in doc:
        found = words(token.text)
        if not found and token.text in JOINERS:
            continue
        for word in found or [""]:
            out.append(word)
            owner.append(token.i)
    return out, owner


class OfflineExtractor:
    """ICD-10-CM conditions, admitdx's terms, drug lexicon, NegEx negation (module docstring)."""

    name = "offline"

    def __init__(self) -> None:
        if not offline_available():
            raise UsageError(
                "the offline concept extractor needs spaCy, negspacy and a drug lexicon", hint=EXTRA_HINT
            )
        from admitdx.metrics.concepts_lexicon import lexicon_key, lexicons
        from admitdx.metrics.concepts_terms import term_concepts

        conditions, drugs = lexicons()
        self._conditions = {k: f"ICD10:{v}" for k, v in conditions.items()} | term_concepts()
        self._drugs = drugs
        self._nlp = pipeline()
        self.params = {"lexicon": lexicon_key()}

    def _matches(self, doc: Any) -> list[tuple[int, int, str]]:
        phrase_words, owner = phrase_words_of(doc)
        found = [
            (owner[s], owner[e - 1] + 1, c) for s, e, c in _greedy(phrase_words, self._conditions, MAX_TOKENS)
        ]
        found += _greedy([t.lower_ for t in doc], self._drugs, DRUG_MAX_TOKENS)
        found.sort(key=lambda m: (m[0], -(m[1] - m[0])))
        kept: list[tuple[int, int, str]] = []
        for match in found:  # longest first at each start; later overlapping matches are dropped
            if not kept or match[0] >= kept[-1][1]:
                kept.append(match)
        return kept

    def concepts(self, text: str) -> set[str]:
        from spacy.tokens import Span

        doc = self._nlp.make_doc(text)
        doc.ents = [Span(doc, s, e, label=c) for s, e, c in self._matches(doc)]
        for _, proc in self._nlp.pipeline:
            doc = proc(doc)
        return {ent.label_ for ent in doc.ents if not ent._.negex}


def concept_recall(extractor: Extractor, model_text: str, reference_text: str) -> float | None:
    """|C_model ∩ C_reference| / |C_reference|; None when the reference names no concept."""
    reference = extractor.concepts(reference_text)
    if not reference:
        return None
    return len(extractor.concepts(model_text) & reference) / len(reference)


@cache
def get_extractor(choice: str, umls_index: str | None = None) -> Extractor:
    """The extractor ``choice`` (built once per process; QuickUMLS reads ``umls_index``)."""
    if choice == "offline":
        return OfflineExtractor()
    if choice == "quickumls":
        if not umls_index:
            raise UsageError(
                "the quickumls concept extractor needs your QuickUMLS index",
                hint="pass --umls-index DIR (built by python -m quickumls.install from your UMLS release)",
            )
        from admitdx.metrics.concepts_umls import QuickUmlsExtractor

        return QuickUmlsExtractor(Path(umls_index))
    raise UsageError(f"unknown concept extractor {choice!r}", hint=f"choose one of: {', '.join(EXTRACTORS)}")
