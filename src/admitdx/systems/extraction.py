"""Extraction: name every diagnosis title that is written in the evidence, and nothing else.

EarlyDx section 5.2 splits reference labels into *explicit* (the title, or all its content words,
occur verbatim in the input) and *implicit* (they must be inferred), and finds that zero-shot LLMs
score largely by extraction. This system is that behaviour made explicit: it does well on explicit
labels and, by construction, cannot find implicit ones — a floor any inferring system should beat.

Matching: the evidence and every dictionary title (see :mod:`admitdx.systems.dictionary` for the
sources and the qualifier-free spellings) are compared as lower-case word sequences. The evidence
is scanned left to right and at each word the longest title starting there is taken, so
``"aspiration pneumonia"`` yields that title and not also ``pneumonia``. No negation handling:
``"denies chest pain"`` yields chest pain, as naive extraction would.

Ranking (no scores: a match is a match): titles from the training labels first (they are written
the way references are), then synonyms, then ICD dictionary titles; within a source, longer (more
specific) titles first, then earlier in the text. When several sources spell the same words, the
first source in that order names it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from admitdx.contracts import Instance, Prediction, PredictionItem
from admitdx.errors import UsageError
from admitdx.systems import register
from admitdx.systems.dictionary import icd_titles, spellings, synonyms, words
from admitdx.systems.labels import LabelCounts, label_key

SOURCES = ("train", "synonyms", "icd")


class Entry(NamedTuple):
    source_rank: int
    title: str


@register("extraction", "names every dictionary/training title written verbatim in the evidence")
class Extraction:
    """``sources``: any of train, synonyms, icd. ``sections``: evidence section names to read
    (default: the whole serialized text). ``min_chars``: shorter dictionary spellings are ignored
    (synonyms are curated and exempt). ``max_items``: cap on the titles emitted (default none)."""

    name = "extraction"

    def __init__(
        self,
        *,
        sources: Sequence[str] = SOURCES,
        sections: Sequence[str] | None = None,
        min_chars: int = 4,
        max_items: int | None = None,
    ) -> None:
        unknown = sorted(set(sources) - set(SOURCES))
        if unknown:
            raise UsageError(
                f"unknown extraction source(s): {', '.join(unknown)}",
                hint=f"choose from: {', '.join(SOURCES)}",
            )
        self.sources = [s for s in SOURCES if s in sources]
        self.sections = list(sections) if sections else None
        self.min_chars = min_chars
        self.max_items = max_items
        self._index: dict[tuple[str, ...], Entry] = {}
        self._longest = 0
        self.fit_summary: dict[str, int] = {}

    def _add(self, source: str, spelled: str, title: str) -> int:
        added = 0
        for seq in spellings(spelled):
            if source != "synonyms" and len(" ".join(seq)) < self.min_chars:
                continue
            if seq not in self._index:
                self._index[seq] = Entry(SOURCES.index(source), title)
                added += 1
        return added

    def fit(self, train: list[Instance]) -> None:
        self._index.clear()
        for source in self.sources:
            if source == "train":
                counts = LabelCounts.from_instances(train)
                pairs = [(t, t) for t in counts.spelling.values()]
            elif source == "synonyms":
                pairs = list(synonyms())
            else:
                pairs = [(t, t) for t in icd_titles()]
            self.fit_summary[f"{source}_spellings"] = sum(self._add(source, s, t) for s, t in pairs)
        self._longest = max((len(seq) for seq in self._index), default=0)

    def evidence(self, inst: Instance) -> str:
        if self.sections is None:
            return inst.text
        return "\n".join(inst.sections.get(name) or "" for name in self.sections)

    def extract(self, text: str) -> list[PredictionItem]:
        tokens = words(text)
        found: list[tuple[int, int, int, str]] = []  # (source rank, -length, position, title)
        i = 0
        while i < len(tokens):
            for n in range(min(self._longest, len(tokens) - i), 0, -1):
                entry = self._index.get(tokens[i : i + n])
                if entry is not None:
                    found.append((entry.source_rank, -n, i, entry.title))
                    i += n
                    break
            else:
                i += 1
        items: dict[str, PredictionItem] = {}
        for *_, title in sorted(found):
            items.setdefault(label_key(title), PredictionItem(title))
        return list(items.values())[: self.max_items]

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        for inst in instances:
            yield Prediction(instance_id=inst.id, system=self.name, items=self.extract(self.evidence(inst)))
