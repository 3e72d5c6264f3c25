"""Guarded matcher: similar wording is not enough — the codes must agree, and no contrast may separate
the two texts. The default offline matcher (issue 33).

The embedding matcher credits different diseases whose names are close in a sentence encoder
(heart failure ↔ acute kidney failure at cosine 0.63, pneumonia ↔ sepsis, hypo- ↔ hyperkalemia).
This matcher accepts a (prediction, reference) pair only when the texts agree clinically:

1. **identical** content words after spelling out terms (:mod:`admitdx.matching.guard_text`):
   accepted ("CHF" ↔ "congestive heart failure", "AC DIASTOLIC HRT FAILURE" ↔ "acute diastolic
   heart failure");
2. a **contrast** (hypo ↔ hyper, acute ↔ chronic, left ↔ right, with ↔ without, …): refused;
3. both sides read as **ICD-10-CM codes** (:mod:`admitdx.matching.guard_codes`: the reference's own
   code, else dictionary wording, else the ICD matcher's hybrid search over the titles): when the
   codes agree (same code, or a parent and its child) the pair is accepted at a lower similarity
   (``agree_threshold``); so it is when one text names the other with more detail across ICD
   categories (``contained``: alcoholic cirrhosis ↔ unspecified cirrhosis of liver, see
   :func:`_one_names_the_other`); otherwise it is refused unless the texts are near-identical
   (``near_identical``);
4. otherwise (a side without codes) the cosine similarity must reach ``threshold``.

A text with an ambiguous abbreviation (ICH, MS, ARF …: a term on several rows of the term table) is
assessed once per meaning (:func:`admitdx.matching.guard_text.readings`), and the pair keeps the
reading that goes furthest: an abbreviation matches when any of its meanings does.

Similarity is the cosine of the spelled-out texts (all-MiniLM-L6-v2, float32, as the embedding
matcher), taking for a coded reference the better of its text and its code's long title (MIMIC's
``d_icd_diagnoses``), so "EPILEP NOS W/O INTR EPIL" is also read as "Epilepsy, unspecified, without
mention of intractable epilepsy". The three thresholds are chosen on the adjudicated pair set with a
precision floor (:mod:`admitdx.matching.guard_calibration`) and recorded with the set's version and
the precision and recall reached; every match summary carries that record.

Each Match keeps, per accepted pair and per refused near miss (a refused pair whose similarity
reached ``threshold``, or one within ``NEAR_MISS_MARGIN`` of the threshold its case needs), the
similarity and the verdict with its reason, so the encounter browser can show why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from admitdx.embeddings import Embedder
from admitdx.errors import UsageError
from admitdx.matching.base import Matcher, MatchOutcome, MatchTask, assign_one_to_one
from admitdx.matching.calibration import recorded_calibration
from admitdx.matching.guard_calibration import GuardThresholds, recorded_guard_calibration
from admitdx.matching.guard_clauses import (
    added_complication,
    only_the_cause,
    uncovered_complication,
    uncovered_sequel,
)
from admitdx.matching.guard_codes import (
    any_compatible,
    chapter,
    code_descriptions,
    code_titles,
    codes_less_organism,
    exact_codes,
    given_codes,
    is_open,
    names_other,
)
from admitdx.matching.guard_compare import contrast
from admitdx.matching.guard_contained import contained
from admitdx.matching.guard_text import GENERIC, content_words, guard_expand, readings, terms
from admitdx.matching.icd_mapping import DEFAULT_CANDIDATES, TitleIndex, dictionary
from admitdx.matching.normalize import normalize_diagnosis

NEAR_MISS_MARGIN = 0.1
#: which reading of an ambiguous pair goes furthest: the case that needs the least, then similarity
_RANK = {"identical": 6, "same_code": 5, "agree": 4, "contained": 4, "uncoded": 3, "unsure": 3, "conflict": 2,
         "contrast": 0}  # fmt: skip


@dataclass(frozen=True)
class Reading:
    """A text's ICD-10-CM codes, and whether the dictionary's wording (or the reference's own code)
    names them (firm) or only the search guessed them."""

    codes: frozenset[str]
    firm: bool


@dataclass(frozen=True)
class Assessment:
    """What the guard found about one pair, before any threshold: its case and similarity."""

    case: str  # "identical", "same_code", "contrast", "agree", "contained", "conflict", "unsure", "uncoded"
    similarity: float
    why: str  # the contrast, or the codes compared

    def accepted(self, t: GuardThresholds) -> bool:
        if self.case in ("identical", "same_code"):
            return True
        if self.case == "contrast":
            return False
        return self.similarity >= self.needed(t)

    def needed(self, t: GuardThresholds) -> float:
        """The similarity this pair's case needs."""
        return {"agree": t.agree_threshold, "contained": t.agree_threshold, "conflict": t.near_identical}.get(
            self.case, t.threshold
        )

    def reason(self, t: GuardThresholds) -> str:
        s = f"similarity {self.similarity:.2f}"
        if self.case == "identical":
            return "identical wording"
        if self.case == "same_code":
            return f"the dictionary names one code for both ({self.why})"
        if self.case == "contrast":
            return f"contrast: {self.why}"
        verdict = ">=" if self.accepted(t) else "<"
        what = {"agree": "codes agree", "contained": "one names the other with more detail",
                "conflict": "codes differ", "unsure": "codes differ, one guessed",
                "uncoded": "no codes to compare"}[self.case]  # fmt: skip
        return (
            f"{what} ({self.why}); {s} {verdict} {self.needed(t):.2f}"
            if self.why
            else f"{what}; {s} {verdict} {self.needed(t):.2f}"
        )


class GuardedMatcher(Matcher):
    """``GuardedMatcher(threshold=None, agree_threshold=None, near_identical=None, search=True)``.

    Thresholds left None come from the recorded calibration for the default model. ``search``
    (default True) maps a text the dictionary wording does not name through the ICD matcher's
    hybrid search (BM25 candidates ranked with the embedding, ``candidates`` titles per text).
    """

    name = "guarded"
    uses_codes = True

    def __init__(
        self,
        threshold: float | None = None,
        agree_threshold: float | None = None,
        near_identical: float | None = None,
        search: bool = True,
        candidates: int = DEFAULT_CANDIDATES,
        model: str | Path | None = None,
        precision: str = "float32",
        embedder: Embedder | None = None,
    ) -> None:
        self.embedder = embedder or Embedder(model, precision=precision)
        recorded = recorded_guard_calibration()
        given = (threshold, agree_threshold, near_identical)
        if None in given and (recorded is None or recorded.model_id != self.embedder.model_id):
            raise UsageError(
                f"no guarded-matcher calibration recorded for embedding model {self.embedder.model_id}",
                hint="pass threshold=…, agree_threshold=… and near_identical=…, or run "
                "`admitdx match --calibrate --pairs PAIRS.jsonl`",
            )
        base = recorded.thresholds if recorded else GuardThresholds(0.0, 0.0, 0.0)
        self.thresholds = GuardThresholds(
            float(threshold if threshold is not None else base.threshold),
            float(agree_threshold if agree_threshold is not None else base.agree_threshold),
            float(near_identical if near_identical is not None else base.near_identical),
        )
        self.calibration = recorded if recorded and recorded.thresholds == self.thresholds else None
        self.search = search
        self.candidates = candidates
        # the ICD matcher's floor (the embedding matcher's calibrated threshold): fixed, so that a
        # text's codes do not move with the thresholds being calibrated
        embedding = recorded_calibration()
        self.search_floor = embedding.threshold if embedding else 0.5
        self._index: TitleIndex | None = None
        self._searched: dict[str, frozenset[str]] = {}

    def params(self) -> dict[str, Any]:
        return {
            **self.thresholds.to_dict(),
            "search": self.search,
            "candidates": self.candidates if self.search else 0,
            "search_floor": self.search_floor,
            "model_id": self.embedder.model_id,
            "terms_sha256": terms().sha256,
        }

    # -- reading texts ---------------------------------------------------------------------------
    def _search_codes(self, texts: Sequence[str]) -> None:
        """Map texts the dictionary wording does not name: by the wording less an organism
        (:func:`codes_less_organism`), else by hybrid search (cached per text)."""
        todo = sorted({t for t in texts if t not in self._searched})
        self._searched.update({t: c for t in todo if (c := codes_less_organism(t))})
        todo = [t for t in todo if t not in self._searched]
        if not todo:
            return
        if not self.search:
            self._searched.update(dict.fromkeys(todo, frozenset()))
            return
        if self._index is None:
            self._index = TitleIndex(dictionary(10), 10, self.embedder)
        found = self._index.search(
            [guard_expand(t) for t in todo], "hybrid", self.search_floor, self.candidates
        )
        self._searched.update(
            {t: frozenset({m.code}) if m else frozenset() for t, m in zip(todo, found, strict=True)}
        )

    def _codes(self, tasks: Sequence[MatchTask]) -> tuple[dict[str, Reading], dict[tuple, Reading]]:
        """Each text's codes (firm when the dictionary's wording names them, a guess when only the
        search found them), per reading of an ambiguous abbreviation, and each reference reading's
        (its own code first)."""
        texts = {r for task in tasks for t in (*task.predictions, *task.references) for r in readings(t)}
        exact = {t: exact_codes(t) for t in texts}
        self._search_codes([t for t, c in exact.items() if not c])
        by_text = {t: Reading(c, True) if c else Reading(self._searched.get(t, frozenset()), False)
                   for t, c in exact.items()}  # fmt: skip
        by_ref: dict[tuple, Reading] = {}
        for task in tasks:
            for text, (code, system) in zip(task.references, _codes_of(task), strict=True):
                own = given_codes(code, system)
                for reading in readings(text):
                    by_ref[(reading, code, system)] = Reading(own, True) if own else by_text[reading]
        return by_text, by_ref

    def assess_many(self, tasks: Sequence[MatchTask]) -> list[list[list[Assessment]]]:
        """Per task, the (prediction × reference) assessments, embedding every text once. A text
        with an ambiguous abbreviation is assessed once per reading, and the pair keeps the
        reading that goes furthest (see :data:`_RANK`): any meaning may match."""
        by_text, by_ref = self._codes(tasks)
        variants = {
            (reading, code, system): [reading, *code_titles(code, system)]
            for task in tasks
            for text, (code, system) in zip(task.references, _codes_of(task), strict=True)
            for reading in readings(text)
        }
        every = sorted({guard_expand(r) for task in tasks for t in task.predictions for r in readings(t)}
                       | {guard_expand(t) for vs in variants.values() for t in vs})  # fmt: skip
        vectors = dict(zip(every, self.embedder.encode(every), strict=True)) if every else {}

        def assess(prediction: str, key: tuple) -> Assessment:
            pv = vectors[guard_expand(prediction)]
            sim = max(float(pv @ vectors[guard_expand(v)]) for v in variants[key])
            return _assess(prediction, key[0], sim, by_text[prediction], by_ref[key], variants[key])

        out = []
        for task in tasks:
            refs = list(zip(task.references, _codes_of(task), strict=True))
            rows = []
            for p in task.predictions:
                rows.append([
                    max((assess(pr, (rr, code, system)) for pr in readings(p) for rr in readings(text)),
                        key=lambda a: (_RANK[a.case], a.similarity))
                    for text, (code, system) in refs
                ])  # fmt: skip
            out.append(rows)
        return out

    # -- matching --------------------------------------------------------------------------------
    def match(self, task: MatchTask) -> MatchOutcome:
        return self.match_many([task])[0]

    def match_many(self, tasks: Sequence[MatchTask]) -> list[MatchOutcome]:
        return [self._outcome(task, rows) for task, rows in zip(tasks, self.assess_many(tasks), strict=True)]

    def _outcome(self, task: MatchTask, rows: list[list[Assessment]]) -> MatchOutcome:
        if not task.predictions or not task.references:
            return MatchOutcome(
                pairs=[], details={"similarity": [], "verdicts": [], "accepted_non_identical": 0}
            )
        t = self.thresholds
        accepted = np.array([[a.accepted(t) for a in row] for row in rows], dtype=bool)
        quality = np.array([[a.similarity for a in row] for row in rows])
        pairs = assign_one_to_one(accepted, quality)
        paired = set(pairs)
        verdicts = []
        for i, row in enumerate(rows):
            for j, a in enumerate(row):
                near = not accepted[i, j] and a.similarity >= min(t.threshold, a.needed(t) - NEAR_MISS_MARGIN)
                if (i, j) in paired or near:
                    verdicts.append({
                        "prediction": i, "reference": j, "similarity": round(a.similarity, 4),
                        "verdict": "accepted" if (i, j) in paired else "refused", "reason": a.reason(t),
                    })  # fmt: skip
        non_identical = sum(
            1
            for i, j in pairs
            if normalize_diagnosis(task.predictions[i]) != normalize_diagnosis(task.references[j])
        )
        return MatchOutcome(
            pairs=pairs,
            details={
                "similarity": [round(float(quality[i, j]), 4) for i, j in pairs],
                "verdicts": verdicts,
                "accepted_non_identical": non_identical,
            },
        )

    def summarize(self, outcomes: Sequence[MatchOutcome]) -> dict[str, Any]:
        """Accepted non-identical pairs, refused near misses by reason, and the calibration record."""
        refused = Counter(
            v["reason"].split(";")[0].split(" (")[0]
            for o in outcomes
            for v in o.details.get("verdicts", [])
            if v["verdict"] == "refused"
        )
        return {
            "accepted_non_identical": sum(o.details.get("accepted_non_identical", 0) for o in outcomes),
            "refused_near_misses": sum(refused.values()),
            "refused_by_reason": dict(sorted(refused.items())),
            "calibration": self.calibration.to_dict() if self.calibration else None,
        }


def _codes_of(task: MatchTask) -> list[tuple[str | None, str | None]]:
    return list(task.reference_codes) or [(None, None)] * len(task.references)


def _assess(
    prediction: str, reference: str, similarity: float, p: Reading, r: Reading, variants: list[str]
) -> Assessment:
    words = content_words(prediction)
    if words and any(words == content_words(v) for v in variants):
        return Assessment("identical", similarity, "")
    for v in variants:
        if (
            why := contrast(prediction, v)
            or uncovered_complication(prediction, v)
            or uncovered_sequel(prediction, v)
            or only_the_cause(prediction, v)
            or added_complication(prediction, v)
        ):
            return Assessment("contrast", similarity, why)
    if not p.codes or not r.codes:
        return Assessment("uncoded", similarity, "")
    codes = f"{_show(p.codes)} vs {_show(r.codes)}"
    if p.firm and r.firm and p.codes & r.codes:
        return Assessment("same_code", similarity, codes)
    if any_compatible(p.codes, r.codes):
        return Assessment("agree", similarity, codes)
    if _one_names_the_other(prediction, variants, p, r):
        return Assessment("contained", similarity, codes)
    if p.firm and r.firm:
        return Assessment("conflict", similarity, codes)
    guessed = prediction if not p.firm else variants[0]
    if _catch_all(guessed):
        return Assessment("contrast", similarity, f"a catch-all ({codes}, its code only a search's guess)")
    return Assessment(
        "unsure", similarity, f"{codes}, {'prediction' if not p.firm else 'reference'} searched"
    )


def _catch_all(text: str) -> bool:
    """Whether a text names no condition of its own ("Drug overdose", "Thyroid disease", "Psychiatric
    disorder"): its words are all :data:`GENERIC` ones, leaving out "failure" and "insufficiency",
    which name conditions with an organ ("heart failure"). Such a text's searched code is a guess
    at one of many diseases, so similar wording must not credit it with a specific one."""
    words = content_words(text) - {"by", "due", "from", "for"}  # "poisoning by drugs"
    return bool(words) and words <= GENERIC - {"failure", "insufficiency"}


def _one_names_the_other(prediction: str, variants: list[str], p: Reading, r: Reading) -> bool:
    """A parent and its child across ICD categories (alcoholic cirrhosis K70.3 ↔ unspecified cirrhosis
    of liver K74.60; anemia D64.9 ↔ acute posthemorrhagic anemia D62; septic shock R65.21 ↔ shock
    NOS R57.9): the general side's words are all in the specific side's (:func:`contained`), the
    general side's code leaves the condition open (:func:`is_open`: unspecified, other, or a
    category), and when the specific side's codes are the dictionary's own (firm) the two share an
    ICD-10-CM chapter (or the general side is a symptom, :func:`_symptom`). So "hypertension" (I10, a
    specified code) never names "pulmonary hypertension", and "diabetes" with no code never names
    "diabetes insipidus"."""
    meet = bool({chapter(c) for c in p.codes} & {chapter(c) for c in r.codes})
    p_titles = code_descriptions(p.codes) if p.firm else []
    reference_open = (any(is_open(c) for c in r.codes) and (meet or not p.firm)) or _symptom(r.codes)
    if (p.firm and names_other(r.codes, p.codes)) or (r.firm and names_other(p.codes, r.codes)):
        return False  # an "Other …" code is none of its named siblings
    if reference_open and any(contained(v, prediction, p_titles) for v in variants):
        return True
    if any(is_open(c) for c in p.codes) and (meet or not r.firm):
        return contained(prediction, variants[0], variants[1:])
    return False


def _symptom(codes: frozenset[str]) -> bool:
    """Whether a text's codes are all symptoms or signs (ICD-10-CM chapter 18, R00-R99): a diagnosis
    that names the symptom's words with more detail explains it, whatever its chapter ("migraine
    headache" ↔ "Headache" R51.9, "acute hypoxic respiratory failure" ↔ "Respiratory failure").
    R65 is left out: SIRS and severe sepsis (R65.20 without, R65.21 with septic shock) are
    conditions whose codes are siblings, not symptoms."""
    return bool(codes) and all(c.startswith("R") and not c.startswith("R65") for c in codes)


def _show(codes: frozenset[str]) -> str:
    shown = sorted(codes)
    return "/".join(shown[:3]) + ("…" if len(shown) > 3 else "")
