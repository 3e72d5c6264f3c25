"""Codes for scoring over codes: gold codes of an instance and the codes a system predicted.

A predicted item's code is the one the system assigned itself (``PredictionItem.code``: a
classifier over codes, or an LLM whose last step maps its text to codes). Every code is rolled
up to its category by the one roll-up (:func:`admitdx.ontology.icd.roll_up`), read in the gold
code's version, since a system predicts in the vocabulary of the dataset it was trained on.
"""

from __future__ import annotations

from collections.abc import Sequence

from admitdx.contracts import Instance, Prediction, Reference
from admitdx.metrics.memo import per_labels
from admitdx.ontology import icd

VERSIONS = {"ICD-9-CM": 9, "ICD-10-CM": 10}


def version_of(references: Sequence[Reference]) -> int:
    """The dataset's ICD version for this instance (ICD-10 when no reference says)."""
    return next((VERSIONS[r.code_system] for r in references if r.code_system in VERSIONS), 10)


def by_sequence(references: Sequence[Reference]) -> list[Reference]:
    return sorted(references, key=lambda r: (r.seq_num is None, r.seq_num or 0))


@per_labels
def gold_categories(references: Sequence[Reference]) -> list[str]:
    """The 3-character gold codes, main diagnosis (lowest ``seq_num``) first, duplicates removed."""
    out: list[str] = []
    for r in by_sequence(references):
        if r.code:
            label = icd.roll_up(r.code, VERSIONS.get(r.code_system or "", version_of(references)))
            if label not in out:
                out.append(label)
    return out


def predicted_categories(inst: Instance, prediction: Prediction | None) -> list[str | None]:
    """A category per predicted item in rank order (None for an item without a code)."""
    version = version_of(inst.references)
    items = prediction.items if prediction else []
    return [icd.roll_up(it.code, version) if it.code else None for it in items]


def main_reference(references: Sequence[Reference]) -> Reference | None:
    """The coded label with the lowest ``seq_num`` (the main or final diagnosis)."""
    coded = [r for r in by_sequence(references) if r.code]
    return coded[0] if coded else None
