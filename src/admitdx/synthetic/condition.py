"""A condition coded for one ED stay, and the evidence placed for it (one entry of ``_truth``).

The evidence class is *derived* from the placements, the way EarlyDx §3.3 defines it: a direct
finding with event time ≤ t0 makes it supported; otherwise any indirect cue by t0 (history, home
medication, chief complaint, a suggestive sign) makes it partial; otherwise it is unsupported.
Deriving it (rather than storing the draw) keeps ``_truth`` consistent with the tables by
construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from admitdx.ontology import icd
from admitdx.synthetic.naming import names
from admitdx.synthetic.scenarios.base import Dx


@lru_cache(maxsize=4096)
def ed_title(code: str, version: int) -> str:
    """``ed.diagnosis.icd_title``: MIMIC-IV-ED prints ICD-9 short titles in upper case ("SEPTICEMIA NOS").

    For ICD-10 MIMIC-IV-ED prints the CMS short description (mixed case, abbreviated only past 60
    characters). No installed package ships those, so the long title stands in; the scenario library
    prefers codes whose long title is short, where the two coincide.
    """
    return icd.short_title(code, version).upper() if version == 9 else icd.title(code, version)


@lru_cache(maxsize=4096)
def long_title(code: str, version: int) -> str:
    return icd.title(code, version)


@dataclass
class Condition:
    key: str
    code: str
    version: int
    role: str
    dx: Dx | None = None
    klass: str = "unsupported"  # the draw for acute diagnoses; comorbidities derive theirs
    evidence: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ed_title(self) -> str:
        return ed_title(self.code, self.version)

    @property
    def label_expected(self) -> bool:
        """EarlyDx filters by chapter and by over-generic title, not by clinical role: a symptom
        coded outside the symptom chapters (ICD-9 599.70 "HEMATURIA NOS") stays a label."""
        return self.role != "generic" and not icd.in_symptom_or_administrative_chapter(
            self.code, self.version
        )

    def place(
        self,
        section: str,
        table: str,
        key: Any,
        time: datetime,
        t0: datetime,
        text: str,
        *,
        direct: bool,
        storetime: datetime | None = None,
    ) -> None:
        self.evidence.append(
            {
                "section": section,
                "table": table,
                "key": str(key),
                "time": time.isoformat(sep=" "),
                "storetime": storetime.isoformat(sep=" ") if storetime else None,
                "after_t0": time > t0,
                "stored_after_t0": bool(storetime and time <= t0 < storetime),
                "named": names(text, self.ed_title),
                "direct": direct,
            }
        )

    def evidence_class(self) -> str:
        at_t0 = [e for e in self.evidence if not e["after_t0"]]
        if any(e["direct"] for e in at_t0):
            return "supported"
        return "partial" if at_t0 else "unsupported"

    def to_truth(self, seq_num: int) -> dict[str, Any]:
        return {
            "key": self.key,
            "icd_code": self.code,
            "icd_version": self.version,
            "ed_title": self.ed_title,
            "long_title": long_title(self.code, self.version),
            "role": self.role,
            "ed_seq_num": seq_num,
            "label_expected": self.label_expected,
            "evidence_class": self.evidence_class(),
            "evidence": self.evidence,
        }
