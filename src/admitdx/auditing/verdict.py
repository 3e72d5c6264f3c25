"""One auditor decision about one reference label."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from admitdx.contracts import EvidenceClass

EVIDENCE_CLASSES: tuple[EvidenceClass, ...] = ("supported", "partial", "unsupported")


@dataclass(frozen=True)
class Verdict:
    """``evidence_class`` is None only when an LLM answer could not be read (``parse_error`` says why;
    ``raw`` keeps the answer). ``rule`` names the rule that decided (rule-based auditor only)."""

    evidence_class: EvidenceClass | None
    quote: str
    rule: str | None = None
    raw: str | None = None
    parse_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "evidence_class": self.evidence_class,
            "quote": self.quote,
            "rule": self.rule,
            "raw": self.raw,
            "parse_error": self.parse_error,
        }
