"""Clinical concepts in a text, for ER-Reason's concept recall |C_model ∩ C_physician| / |C_physician|
(task 3; the paper extracts UMLS CUIs with cTAKES).

Every score says which extractor produced it (``Extractor.name``); there is one today:

- ``offline`` (default, no licence needed): conditions from an ICD-10-CM phrase lexicon
  (:mod:`admitdx.metrics.concepts_icd`; concept = 3-character category, ``ICD10:J18``) and drugs
  from the ``drug-named-entity-recognition`` package's lexicon (DrugBank, MeSH, NHS, MedlinePlus;
  concept = DrugBank id, else its name, ``DRUG:DB00945``). Matching is greedy longest-first on
  lower-case words; a drug and a condition overlapping keep the longer match. Negated mentions are
  dropped by NegEx (``negspacy``, its ``en_clinical`` termset, on spaCy's rule-based tokenizer and
  sentencizer — no statistical model), so "no chest pain" does not count as chest pain.

A QuickUMLS extractor over the user's own UMLS index (the paper's CUI space) would sit beside it
behind the same protocol; it is not built, as ``quickumls`` did not install here (its ``leveldb``
dependency compiles from source). The extractor needs the ``concepts`` extra
(``pip install 'admitdx[concepts]'``); :func:`offline_available` says whether it is installed.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from typing import Any, Protocol

from admitdx.errors import UsageError
from admitdx.metrics.concepts_icd import MAX_TOKENS, condition_lexicon

EXTRA_HINT = "install the concepts extra: pip install 'admitdx[concepts]'"


class Extractor(Protocol):
    name: str

    def concepts(self, text: str) -> set[str]:
        """The affirmed concepts of ``text`` (negated mentions left out)."""


def offline_available() -> bool:
    return all(
        importlib.util.find_spec(m) is not None
        for m in ("spacy", "negspacy", "drug_named_entity_recognition")
    )


@cache
def _pipeline() -> Any:
    import spacy
    from negspacy.negation import Negex  # noqa: F401  (registers the "negex" factory)
    from negspacy.termsets import termset

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("negex", config={"neg_termset": termset("en_clinical").get_patterns()})
    return nlp


class OfflineExtractor:
    """ICD-10-CM conditions + drug lexicon, NegEx negation (see the module docstring)."""

    name = "offline"

    def __init__(self) -> None:
        if not offline_available():
            raise UsageError(
                "the offline concept extractor needs spaCy, negspacy and a drug lexicon", hint=EXTRA_HINT
            )
        from drug_named_entity_recognition import find_drugs

        self._find_drugs = find_drugs
        self._conditions = condition_lexicon()
        self._nlp = _pipeline()

    def _matches(self, doc: Any) -> list[tuple[int, int, str]]:
        words = [t.lower_ for t in doc]
        found: list[tuple[int, int, str]] = []
        i = 0
        while i < len(words):
            for n in range(min(MAX_TOKENS, len(words) - i), 0, -1):
                category = self._conditions.get(" ".join(words[i : i + n]))
                if category is not None:
                    found.append((i, i + n, f"ICD10:{category}"))
                    i += n
                    break
            else:
                i += 1
        for drug, start, end in self._find_drugs([t.text for t in doc], is_ignore_case=True):
            concept = f"DRUG:{drug.get('drugbank_id') or drug['name']}"
            found.append((start, end, concept))  # end is exclusive
        found.sort(key=lambda m: (m[0], -(m[1] - m[0])))
        kept: list[tuple[int, int, str]] = []
        for match in found:  # longest first at each start; later overlapping matches are dropped
            if not kept or match[0] >= kept[-1][1]:
                kept.append(match)
        return kept

    def concepts(self, text: str) -> set[str]:
        from spacy.tokens import Span

        doc = self._nlp.make_doc(text)
        spans = [Span(doc, s, e, label=c) for s, e, c in self._matches(doc)]
        doc.ents = spans
        for _, proc in self._nlp.pipeline:
            doc = proc(doc)
        return {ent.label_ for ent in doc.ents if not ent._.negex}


def concept_recall(extractor: Extractor, model_text: str, reference_text: str) -> float | None:
    """|C_model ∩ C_reference| / |C_reference|; None when the reference names no concept."""
    reference = extractor.concepts(reference_text)
    if not reference:
        return None
    return len(extractor.concepts(model_text) & reference) / len(reference)


def choose_extractor() -> str | None:
    """Which extractor scores concept recall here: ``offline`` when its packages are installed,
    else None (concept recall is then not scored, and the results say how to enable it)."""
    return "offline" if offline_available() else None


@cache
def get_extractor(choice: str) -> Extractor:
    """The extractor named by :func:`choose_extractor` (built once per process: the lexicons are large)."""
    if choice == "offline":
        return OfflineExtractor()
    raise UsageError(f"unknown concept extractor {choice!r}", hint="the available one is: offline")
