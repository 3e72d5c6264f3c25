"""CliniBench labels (§3.1): an admission's billed ICD codes cut to their category.

Every code goes through the one roll-up, :func:`admitdx.ontology.icd.roll_up`: the first three
characters, except ICD-9-CM E codes (external causes), which keep four (``E8889`` → ``E888``),
because three would merge ten unrelated categories; ICD-9 V codes are cut to three like any other
(``V5861`` → ``V58``). Duplicates after the cut are removed, first (lowest ``seq_num``) kept, so
the main diagnosis (``seq_num`` 1) comes first.

A label's text is its category's title: ``d_icd_diagnoses.long_title`` of the category code when
MIMIC lists it, else the ICD-9-CM / ICD-10-CM dictionary title (:func:`admitdx.ontology.icd.title`),
else the code itself. This text is what few-shot demonstrations show (the paper's "diagnosis short
descriptions").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from admitdx.ontology import icd

CODE_SYSTEMS = {9: "ICD-9-CM", 10: "ICD-10-CM"}


@dataclass(frozen=True)
class Label:
    """One 3-character (ICD-9 E: 4-character) label of an admission."""

    code: str
    seq_num: int  # of the first billed code in this category
    full_codes: tuple[str, ...]  # the billed codes it stands for, in billing order


def roll_up_codes(codes: Iterable[tuple[int, str]], version: int) -> list[Label]:
    """(seq_num, billed code) pairs → labels in billing order, duplicates after the roll-up removed."""
    order: list[str] = []
    first: dict[str, int] = {}
    full: dict[str, list[str]] = {}
    for seq, code in sorted(codes):
        label = icd.roll_up(code, version)
        if label not in first:
            order.append(label)
            first[label] = seq
            full[label] = []
        if icd.normalize(code) not in full[label]:
            full[label].append(icd.normalize(code))
    return [Label(lab, first[lab], tuple(full[lab])) for lab in order]


class Titles:
    """Category titles: MIMIC's own dictionary first, then the packaged ICD dictionaries."""

    def __init__(self, dictionary: Mapping[tuple[str, int], str]) -> None:
        self.dictionary = dictionary

    def __call__(self, code: str, version: int) -> str:
        return self.dictionary.get((code, version)) or _packaged_title(code, version) or code


@lru_cache(maxsize=65536)
def _packaged_title(code: str, version: int) -> str | None:
    return icd.title(code, version)
