"""The training labels as the baselines see them: open-vocabulary diagnosis titles.

EarlyDx scores free-text titles, so baselines predict titles, not codes. Two references that differ
only in case or spacing (``"CHEST PAIN, UNSPECIFIED"`` / ``"Chest pain, unspecified"``) are one
label: they are counted under one key, and shown in the spelling most training encounters use.

Which encounters and labels a system learns from (§4.1): the paper's training set is the
*retained* encounters — those with at least one supported or partially supported label after the
audit — with those labels only ("Discarding unsupported labels leaves 120,789 of the 154,834 …
encounters"). :func:`training_view` gives that by default (``train_labels: retained``) and the
whole audited training split with ``train_labels: all``; :func:`benchmark_set` is the same
encounter rule for the evaluated split. A dataset that was never audited carries no evidence
classes and is the same under both.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from admitdx.auditing.dataset import RETAINED, RETAINED_CLASSES
from admitdx.contracts import Instance
from admitdx.errors import UsageError

TrainLabels = Literal["retained", "all"]
TRAIN_LABELS: tuple[str, ...] = ("retained", "all")


def is_retained(instance: Instance) -> bool:
    """Whether the encounter is in the benchmark set: the audit's ``meta["retained"]`` mark, or,
    for an older audited dataset without it, a supported or partial label; an unaudited instance
    (no evidence class on any label) is retained."""
    mark = instance.meta.get(RETAINED)
    if mark is not None:
        return bool(mark)
    classes = [r.evidence_class for r in instance.references if r.evidence_class is not None]
    return not classes or any(c in RETAINED_CLASSES for c in classes)


def benchmark_set(instances: Iterable[Instance], *, keep_unsupported_only: bool = False) -> list[Instance]:
    """The encounters a run learns from or is scored on: the retained ones (§4.1), or all of them
    with ``keep_unsupported_only`` (for analysis of what the audit set aside)."""
    return [i for i in instances if keep_unsupported_only or is_retained(i)]


def training_view(train: Sequence[Instance], train_labels: str = "retained") -> list[Instance]:
    """The training instances as a system learns from them. ``retained``: the retained encounters
    with their supported and partial labels only (the paper's training set); ``all``: every
    training encounter with every label (admitdx before issue 14)."""
    if train_labels not in TRAIN_LABELS:
        raise UsageError(
            f"train_labels must be one of {', '.join(TRAIN_LABELS)}, got {train_labels!r}",
            hint="retained: the paper's training set (supported + partial labels); all: every label",
        )
    if train_labels == "all":
        return list(train)
    out = []
    for inst in benchmark_set(train):
        audited = any(r.evidence_class is not None for r in inst.references)
        refs = [r for r in inst.references if r.evidence_class in RETAINED_CLASSES] if audited else None
        out.append(inst if refs is None else replace(inst, references=refs))
    return out


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
