"""The file the LLM concept judge writes and scoring reads: ``<predictions>/concepts/llm_judge.jsonl``.

One record per (predicted instance, rationale part) whose reference text is not empty::

    {"instance_id", "system", "part", "reference_sha256", "answer_sha256",
     "concepts": [...] | null, "covered": [0-based indices], "dropped": [...],
     "list_error": str | null, "cover_error": str | null, "list_raw", "cover_raw"}

``concepts`` null means the listing answer could not be read (counted, the part not scored);
``[]`` means the judge found no concept (the part has no recall, as with an extractor). Each
record carries the SHA-256 of the two texts it judged, so scoring refuses judgements of texts
that have since changed (a re-prediction, another dataset) instead of scoring stale decisions.
A text target may have parts (``{name: text}``, ER-Reason's rule-out, decision factors and
treatment plan); the answer's part of the same name is judged against it, and a missing part is
an empty answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from admitdx.errors import UsageError
from admitdx.jsonl import read_jsonl
from admitdx.runs import sha256_text

CONCEPTS_DIR = "concepts"
WHOLE = "answer"  # the one part of a single-text target


def judgements_path(predictions_dir: Path, label: str = "llm_judge") -> Path:
    return Path(predictions_dir) / CONCEPTS_DIR / f"{label}.jsonl"


def part_texts(value: Any) -> dict[str, str]:
    """A text target or answer as ``{part: text}`` (a single text is the part ``answer``)."""
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items() if isinstance(v, str)}
    return {WHOLE: value} if isinstance(value, str) else {}


@dataclass(frozen=True)
class Judgement:
    concepts: list[str] | None
    covered: list[int]
    reference_sha256: str
    answer_sha256: str

    @property
    def recall(self) -> float | None:
        """covered / listed; None when nothing was listed or the listing was unreadable."""
        return len(self.covered) / len(self.concepts) if self.concepts else None


def load_judgements(predictions_dir: Path) -> dict[tuple[str, str], Judgement]:
    """(instance id, part) → judgement; a clear error says how to produce the file."""
    path = judgements_path(predictions_dir)
    if not path.exists():
        raise UsageError(
            f"{predictions_dir} has no LLM concept judgements ({path} is missing)",
            hint=f"run `admitdx judge-concepts --dataset DIR --predictions {predictions_dir}` first",
        )
    return {
        (r["instance_id"], r["part"]): Judgement(
            r["concepts"], r["covered"], r["reference_sha256"], r["answer_sha256"]
        )
        for r in read_jsonl(path)
    }


def judged_recall(
    judgements: dict[tuple[str, str], Judgement],
    predictions_dir: Path,
    instance_id: str,
    part: str,
    reference: str,
    answer: str,
) -> float | None:
    """The judged recall of one part, refusing a judgement missing or made on other texts."""
    j = judgements.get((instance_id, part))
    if j is None or j.reference_sha256 != sha256_text(reference) or j.answer_sha256 != sha256_text(answer):
        why = "is missing" if j is None else "was made on other texts"
        raise UsageError(
            f"{predictions_dir}: the LLM concept judgement of {instance_id} ({part}) {why}",
            hint=f"rerun `admitdx judge-concepts --dataset DIR --predictions {predictions_dir}` "
            "(answers already judged come from the LLM cache)",
        )
    return j.recall
