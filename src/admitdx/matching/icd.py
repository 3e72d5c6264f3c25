"""ICD-code matcher: map each prediction to a code, then match codes (CliniBench section 4.2).

Each prediction is mapped (:mod:`admitdx.matching.icd_mapping`) into the code system of every
reference it is compared with (ICD-9-CM and ICD-10-CM can both occur in one dataset). A
prediction and a reference are a pair when the mapped code equals the reference code at the
chosen ``level``: ``"category"`` (default: the first three characters, CliniBench's roll-up) or
``"full"``. One-to-one by :func:`assign_one_to_one`, preferring the better-mapped prediction.

Mapping searches BM25 candidates by default (``candidates``): the first run embeds the few
thousand titles a prediction set needs instead of the whole dictionary (74,724 ICD-10-CM titles,
19 minutes on a loaded 2-core machine). Results can differ from ranking the whole dictionary; how,
how often, and how to get the old protocol back (``candidates=0``) is in
:mod:`admitdx.matching.icd_mapping` and ``README.md`` beside this module. Long one-time steps
(indexing a dictionary, embedding titles) report to :attr:`IcdMatcher.on_progress`.

A prediction that cannot be mapped cannot match anything; how many there were is kept in each
Match's details and summarised over the run as ``unmapped_share`` — a matcher that silently
drops a seventh of the predictions (CliniBench's BM25) would otherwise look like a bad system.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal

import numpy as np

from admitdx.embeddings import Embedder
from admitdx.errors import UsageError
from admitdx.matching.base import Matcher, MatchOutcome, MatchTask, assign_one_to_one
from admitdx.matching.calibration import recorded_calibration
from admitdx.matching.icd_mapping import (
    DEFAULT_CANDIDATES,
    CodeMapping,
    Search,
    StepProgress,
    TitleIndex,
    dictionary,
)
from admitdx.ontology import icd

Level = Literal["category", "full"]
_VERSIONS = {"ICD-9-CM": 9, "ICD-10-CM": 10, "9": 9, "10": 10, "ICD9": 9, "ICD10": 10}


def code_version(code_system: str | None) -> int | None:
    """9 or 10 from a reference's ``code_system`` ("ICD-9-CM", "ICD-10-CM"); None if unknown."""
    return _VERSIONS.get(str(code_system).upper().replace(" ", "")) if code_system else None


class IcdMatcher(Matcher):
    """``IcdMatcher(level="category", search="hybrid", min_similarity=None, ...)``.

    ``min_similarity=None`` uses the embedding matcher's calibrated threshold for the default
    model. ``billable_only`` and ``code_prefixes`` shape the dictionary searched. Embeddings are
    float32 by default, as in the embedding matcher, so mappings do not depend on the CPU.
    ``candidates`` (hybrid search only): BM25 titles per text that are embedded and ranked,
    default :data:`~admitdx.matching.icd_mapping.DEFAULT_CANDIDATES`; 0 ranks the whole dictionary.

    ``on_progress(step, done, total)``, when set, hears about steps that can take long on a first
    run ("reading the ICD-10 dictionary", "indexing ICD-10 titles", "embedding texts to map into
    ICD-10", which loads the embedding model the first time, "embedding ICD-10 titles");
    ``admitdx match`` shows them as rows of its progress bar, with counts, rate and time left. It
    does not change any result, so it is not a parameter.
    """

    name = "icd"
    uses_codes = True
    on_progress: StepProgress | None = None

    def __init__(
        self,
        level: Level = "category",
        search: Search = "hybrid",
        min_similarity: float | None = None,
        billable_only: bool = True,
        code_prefixes: Sequence[str] = (),
        model: str | Path | None = None,
        precision: str = "float32",
        embedder: Embedder | None = None,
        candidates: int | None = None,
    ) -> None:
        if level not in ("category", "full"):
            raise ValueError(f"level must be 'category' or 'full', not {level!r}")
        if search not in ("hybrid", "bm25", "embedding"):
            raise ValueError(f"search must be 'hybrid', 'bm25' or 'embedding', not {search!r}")
        if candidates is not None and search != "hybrid":
            raise UsageError(
                f"candidates applies to search=hybrid only, not search={search!r}",
                hint="drop candidates=…, or use search=hybrid",
            )
        if candidates is not None and (
            not isinstance(candidates, int) or isinstance(candidates, bool) or candidates < 0
        ):
            raise UsageError(
                f"candidates must be a whole number ≥ 0, not {candidates!r}",
                hint=f"e.g. --param candidates={DEFAULT_CANDIDATES}; 0 ranks the whole dictionary",
            )
        self.level = level
        self.search = search
        self.candidates = (
            (DEFAULT_CANDIDATES if candidates is None else candidates) if search == "hybrid" else 0
        )
        self.billable_only = billable_only
        self.code_prefixes = tuple(code_prefixes)
        self.embedder = None if search == "bm25" else (embedder or Embedder(model, precision=precision))
        if min_similarity is None and self.embedder is not None:
            recorded = recorded_calibration()
            if recorded is None or recorded.model_id != self.embedder.model_id:
                raise UsageError(
                    f"no calibrated similarity floor recorded for embedding model {self.embedder.model_id}",
                    hint="pass min_similarity=… (e.g. --param min_similarity=0.5), or search=bm25",
                )
            min_similarity = recorded.threshold
        self.min_similarity = min_similarity
        self._indexes: dict[int, TitleIndex] = {}

    def params(self) -> dict[str, Any]:
        """Every setting that can change a mapping. ``candidates`` appears only where it is > 0: the
        whole-dictionary protocols keep the parameters (and so the cache keys) they had before it."""
        params: dict[str, Any] = {
            "level": self.level,
            "search": self.search,
            "min_similarity": self.min_similarity,
            "billable_only": self.billable_only,
            "code_prefixes": list(self.code_prefixes),
            "model_id": self.embedder.model_id if self.embedder else None,
        }
        if self.candidates:
            params["candidates"] = self.candidates
        return params

    def index(self, version: int) -> TitleIndex:
        if version not in self._indexes:
            # one step of a few seconds (the ICD library parses its tables): a row that shows the time
            step = f"reading the ICD-{version} dictionary"
            self._report(step, 0, 1)
            rows = dictionary(version, self.billable_only, self.code_prefixes)
            self._report(step, 1, 1)
            self._indexes[version] = TitleIndex(rows, version, self.embedder, self._report)
        return self._indexes[version]

    def _report(self, step: str, done: int, total: int) -> None:
        if self.on_progress is not None:
            self.on_progress(step, done, total)

    def map_texts(self, texts: Sequence[str], version: int) -> list[CodeMapping | None]:
        """Map every text into ICD-``version``: exact title first, then the configured search."""
        index = self.index(version)
        mapped: list[CodeMapping | None] = [index.exact(t) for t in texts]
        rest = [i for i, m in enumerate(mapped) if m is None]
        for i, m in zip(
            rest,
            index.search([texts[i] for i in rest], self.search, self.min_similarity, self.candidates),
            strict=True,
        ):
            mapped[i] = m
        return mapped

    def _key(self, code: str, version: int) -> str:
        code = icd.normalize(code)
        return icd.roll_up(code, version) if self.level == "category" else code

    def match(self, task: MatchTask) -> MatchOutcome:
        return self.match_many([task])[0]

    def match_many(self, tasks: Sequence[MatchTask]) -> list[MatchOutcome]:
        """Map all predictions of all tasks per ICD version in one batch, then assign per task."""
        needed: dict[int, set[str]] = {}
        for task in tasks:
            for version in {code_version(s) for c, s in task.reference_codes if c} - {None}:
                needed.setdefault(version, set()).update(task.predictions)
        lookup: dict[tuple[int, str], CodeMapping | None] = {}
        for version, texts in needed.items():
            ordered = sorted(texts)
            lookup.update(
                {(version, t): m for t, m in zip(ordered, self.map_texts(ordered, version), strict=True)}
            )
        return [self._assign(task, lookup) for task in tasks]

    def _assign(self, task: MatchTask, lookup: dict[tuple[int, str], CodeMapping | None]) -> MatchOutcome:
        versions = sorted({v for c, s in task.reference_codes if c and (v := code_version(s))})
        acceptable = np.zeros((len(task.predictions), len(task.references)), dtype=bool)
        quality = np.zeros(acceptable.shape)
        mapped_rows = []
        for p, text in enumerate(task.predictions):
            per_version = {v: lookup[(v, text)] for v in versions}
            mapped_rows.append({str(v): (asdict(m) if m else None) for v, m in per_version.items()})
            for r, (code, system) in enumerate(task.reference_codes):
                version = code_version(system)
                m = per_version.get(version) if code and version else None
                if m is not None and version and self._key(m.code, version) == self._key(code, version):
                    acceptable[p, r] = True
                    quality[p, r] = 1.0 if m.score is None or m.method == "bm25" else m.score
        if not versions:  # no coded reference: nothing to map into, and nothing counted as unmapped
            return MatchOutcome(pairs=[], details={"mapped": None, "unmapped": 0, "predictions": 0})
        unmapped = sum(1 for row in mapped_rows if all(m is None for m in row.values()))
        return MatchOutcome(
            pairs=assign_one_to_one(acceptable, quality),
            details={"mapped": mapped_rows, "unmapped": unmapped, "predictions": len(task.predictions)},
        )

    def summarize(self, outcomes: Sequence[MatchOutcome]) -> dict[str, Any]:
        """``unmapped_share``: unmapped predictions / predictions over instances with coded references."""
        total = sum(o.details.get("predictions", 0) for o in outcomes)
        unmapped = sum(o.details.get("unmapped", 0) for o in outcomes)
        return {
            "predictions_total": total,
            "unmapped": unmapped,
            "unmapped_share": unmapped / total if total else 0.0,
        }
