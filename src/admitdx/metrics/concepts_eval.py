"""How well an extractor finds concepts: micro precision and recall over phrases with the concepts
a reader expects (``tests/data/concept_phrases.tsv``, run by ``bench/bench_concepts.py`` and the
concept tests), overall and per concept kind (the prefix: ``ICD10``, ``DRUG``, ``LAB`` …), and the
phrases it got wrong, so a change to the lexicons shows what it gained and lost."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from admitdx.metrics.concepts import Extractor


@dataclass
class ConceptScores:
    """Counts over phrases; ``misses`` lists (phrase, missed, spurious) for each imperfect one."""

    true_positive: Counter[str] = field(default_factory=Counter)
    false_positive: Counter[str] = field(default_factory=Counter)
    false_negative: Counter[str] = field(default_factory=Counter)
    misses: list[tuple[str, list[str], list[str]]] = field(default_factory=list)

    def precision(self, kind: str | None = None) -> float | None:
        tp, fp = self._count(self.true_positive, kind), self._count(self.false_positive, kind)
        return tp / (tp + fp) if tp + fp else None

    def recall(self, kind: str | None = None) -> float | None:
        tp, fn = self._count(self.true_positive, kind), self._count(self.false_negative, kind)
        return tp / (tp + fn) if tp + fn else None

    def kinds(self) -> list[str]:
        return sorted({*self.true_positive, *self.false_positive, *self.false_negative})

    @staticmethod
    def _count(counter: Counter[str], kind: str | None) -> int:
        return counter[kind] if kind else sum(counter.values())


def read_phrases(path: Path) -> list[tuple[str, set[str]]]:
    """(phrase, expected concepts) from a tab-separated file; ``#`` lines are comments, ``-`` none."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        phrase, concepts = line.split("\t")
        rows.append((phrase, set() if concepts.strip() == "-" else set(concepts.split())))
    return rows


def score_phrases(extractor: Extractor, rows: Iterable[tuple[str, set[str]]]) -> ConceptScores:
    """Micro counts of found vs expected concepts, by kind."""
    scores = ConceptScores()
    for phrase, expected in rows:
        found = extractor.concepts(phrase)
        for concept in found & expected:
            scores.true_positive[concept.split(":")[0]] += 1
        for concept in found - expected:
            scores.false_positive[concept.split(":")[0]] += 1
        for concept in expected - found:
            scores.false_negative[concept.split(":")[0]] += 1
        if found != expected:
            scores.misses.append((phrase, sorted(expected - found), sorted(found - expected)))
    return scores
