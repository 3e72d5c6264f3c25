"""Final-diagnosis baselines that answer with a code (``PredictionItem.code``), ER-Reason task 4.

``code-frequency``: everyone gets the most common main (lowest ``seq_num``) training code.
``code-tfidf``: the main codes of the ``k`` most similar training encounters (cosine of word
unigram+bigram TF-IDF of the input) vote, weighted by similarity; the ranked list is emitted, the
first is what the final-diagnosis suite scores. Ties go to the alphabetically first code. A code
is kept with its coding system, so ICD-9 and ICD-10 training stays never merge one code string.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from admitdx.contracts import Instance, Prediction, PredictionItem, Reference
from admitdx.errors import UsageError
from admitdx.systems import register
from admitdx.tasks.spec import TaskSpec


def main_code(references: list[Reference]) -> Reference | None:
    """The coded reference with the lowest ``seq_num`` (the final diagnosis)."""
    coded = [r for r in references if r.code]
    return (
        min(coded, key=lambda r: (r.seq_num if r.seq_num is not None else 10**9, r.code)) if coded else None
    )


def _item(ref: Reference, score: float) -> PredictionItem:
    return PredictionItem(f"{ref.code} {ref.ed_title or ref.text}", score=score, code=ref.code)


def _mains(train: list[Instance], system: str) -> list[tuple[Instance, Reference]]:
    pairs = [(i, m) for i in train if (m := main_code(i.references)) is not None]
    if not pairs:
        raise UsageError(f"{system}: the training split has no coded diagnoses")
    return pairs


@register("code-frequency", "final diagnosis: the most common main training code for everyone (k=1)")
class CodeFrequency:
    name = "code-frequency"

    def __init__(self, *, task: TaskSpec, k: int = 1) -> None:
        self.k = k

    def fit(self, train: list[Instance]) -> None:
        pairs = _mains(train, self.name)
        counts = Counter(m.code for _, m in pairs)
        spelled = {m.code: m for _, m in sorted(pairs, key=lambda p: p[0].id)}
        ranked = sorted(counts, key=lambda c: (-counts[c], c))[: self.k]
        self.items = [_item(spelled[c], counts[c] / len(pairs)) for c in ranked]

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        for inst in instances:
            yield Prediction(instance_id=inst.id, system=self.name, items=list(self.items))


@register("code-tfidf", "final diagnosis: similarity-weighted vote of the k nearest training main codes")
class CodeTfidf:
    name = "code-tfidf"

    def __init__(self, *, task: TaskSpec, k: int = 10, max_items: int = 5) -> None:
        self.k = k
        self.max_items = max_items

    def fit(self, train: list[Instance]) -> None:
        pairs = _mains(train, self.name)
        self.codes = [m for _, m in pairs]
        self.vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
        self.matrix = self.vectorizer.fit_transform([i.text for i, _ in pairs])

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        batch = list(instances)
        if not batch:
            return
        similarity = (self.vectorizer.transform([i.text for i in batch]) @ self.matrix.T).toarray()
        for inst, row in zip(batch, similarity, strict=True):
            nearest = np.argsort(-row, kind="stable")[: self.k]
            votes: dict[str, float] = defaultdict(float)
            spelled: dict[str, Reference] = {}
            for j in nearest:
                ref = self.codes[int(j)]
                votes[ref.code or ""] += float(row[j])
                spelled.setdefault(ref.code or "", ref)
            ranked = sorted(votes, key=lambda c: (-votes[c], c))[: self.max_items]
            items = [_item(spelled[c], votes[c]) for c in ranked]
            yield Prediction(instance_id=inst.id, system=self.name, items=items)
