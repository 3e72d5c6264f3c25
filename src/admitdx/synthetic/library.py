"""The (code, version) pairs the generator can bill: the scenario and comorbidity libraries' codes.

``d_icd_diagnoses`` lists exactly these, so every billed code has its dictionary row.
"""

from __future__ import annotations

from functools import lru_cache

from admitdx.synthetic.comorbidities import COMORBIDITIES
from admitdx.synthetic.scenarios import GENERIC_CODES, SCENARIOS


@lru_cache(maxsize=1)
def _library_codes() -> tuple[tuple[str, int], ...]:
    pairs: set[tuple[str, str]] = set(GENERIC_CODES)
    for sc in SCENARIOS:
        pairs.update((d.icd10, d.icd9) for d in (sc.primary, *sc.secondary))
        pairs.update(sc.symptoms)
        pairs.update(sc.external)
    for c in COMORBIDITIES:
        pairs.add((c.icd10, c.icd9))
        if c.status:
            pairs.add(c.status)
    return tuple(sorted({(a, 10) for a, _ in pairs} | {(b, 9) for _, b in pairs}, key=lambda x: (x[1], x[0])))


def library_codes() -> list[tuple[str, int]]:
    """Every (code, version) the scenario and comorbidity libraries can write, sorted."""
    return list(_library_codes())
