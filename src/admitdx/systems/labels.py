"""The training labels as the baselines see them: open-vocabulary diagnosis titles.

EarlyDx scores free-text titles, so baselines predict titles, not codes. Two references that differ
only in case or spacing (``"CHEST PAIN, UNSPECIFIED"`` / ``"Chest pain, unspecified"``) are one
label: they are counted under one key, and shown in the spelling most training encounters use.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from admitdx.contracts import Instance


def label_key(text: str) -> str:
    """The identity of a title: case-folded, whitespace collapsed."""
    return " ".join(text.casefold().split())


def instance_labels(instance: Instance) -> dict[str, str]:
    """An instance's distinct labels in reference order, key -> text as written (first spelling)."""
    labels: dict[str, str] = {}
    for r in instance.references:
        if r.text.strip():
            labels.setdefault(label_key(r.text), r.text.strip())
    return labels


@dataclass(frozen=True)
class LabelCounts:
    """For each label key: how many training encounters carry it, and its usual spelling."""

    encounters: dict[str, int]
    spelling: dict[str, str]
    n_instances: int

    @classmethod
    def from_instances(cls, instances: Iterable[Instance]) -> LabelCounts:
        encounters: Counter[str] = Counter()
        spellings: defaultdict[str, Counter[str]] = defaultdict(Counter)
        n = 0
        for inst in instances:
            n += 1
            encounters.update(list(instance_labels(inst)))
            for r in inst.references:
                if r.text.strip():
                    spellings[label_key(r.text)][r.text.strip()] += 1
        # most_common keeps first-seen order among equal counts, so the spelling is deterministic.
        spelling = {key: c.most_common(1)[0][0] for key, c in spellings.items()}
        return cls(dict(encounters), spelling, n)

    def most_frequent(self, k: int | None = None) -> list[str]:
        """Label keys by encounter count, highest first; ties in alphabetical order of the key."""
        ranked = sorted(self.encounters, key=lambda key: (-self.encounters[key], key))
        return ranked if k is None else ranked[:k]
