"""The transparent rule-based evidence auditor: no LLM, every verdict traceable to one rule.

It exists so the pipeline runs offline and so an LLM auditor has a baseline to beat. For each
(instance, reference label) pair it applies, in order:

1. **supported** — a *direct* admission-time finding for the label's concept
   (:mod:`admitdx.auditing.rule_table`): a flagged lab result in the right direction, a matching
   non-negated ECG / echo / radiology sentence, or a vital sign past a threshold; or, for a label
   outside the table, every content word of its title in the ECG, echo or radiology text;
2. **partial** — *indirect* evidence: the concept's patterns (or, outside the table, the title's
   content words) in the prior history, home medications or chief complaint;
3. **unsupported** — nothing found.

The quote is the lab entry, sentence or field that decided it. Lab entries are read in the EarlyDx
builder's format ``Name value unit [low-high]*`` (``*`` = flagged abnormal).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from admitdx.auditing.rule_table import CONCEPTS, Concept
from admitdx.auditing.verdict import Verdict
from admitdx.contracts import Instance, Reference
from admitdx.runs import sha256_file
from admitdx.tasks.earlydx.explicit import STOP_WORDS, tokens

FINDING_SECTIONS = ("ecg", "echo", "radiology")
VITAL_SECTIONS = ("triage", "ed_vitals")
INDIRECT_SECTIONS = ("home_meds", "chief_complaint")
_LAB = re.compile(
    r"^(?P<name>.*?)\s(?P<value>-?\d+(?:\.\d+)?)\b[^\[*]*(?:\[(?P<lo>[\d.]+)-(?P<hi>[\d.]+)\])?\s*(?P<flag>\*)?$"
)
_SENTENCE = re.compile(r"[^.;|\n]+")
_VITALS = {
    "sbp": re.compile(r"BP\s?(\d+)/\d+"),
    "spo2": re.compile(r"SpO2\s?(\d+)"),
    "temp": re.compile(r"\bT\s?(\d{2,3}(?:\.\d+)?)"),  # Fahrenheit, as MIMIC-IV-ED triage records it
}
#: A finding preceded (in its sentence) by a negation, or followed by "none", is not a finding.
_NEGATION_BEFORE = re.compile(r"\b(?:no|without|negative for|free of|rule out)\b", re.IGNORECASE)
_NEGATION_AFTER = re.compile(r"^\W*(?:none|absent|negative)\b", re.IGNORECASE)


@dataclass(frozen=True)
class LabResult:
    entry: str
    name: str
    value: float
    low: float | None
    high: float | None
    flagged: bool

    def direction(self) -> str | None:
        """ "high"/"low" against the reference range, "abnormal" when flagged without one; else None."""
        if not self.flagged:
            return None
        if self.high is not None and self.value > self.high:
            return "high"
        if self.low is not None and self.value < self.low:
            return "low"
        return "abnormal"


def parse_labs(text: str | None) -> list[LabResult]:
    results = []
    for entry in (text or "").split(";"):
        entry = re.sub(r"^\(\d+ results?[^)]*\)\s*", "", entry.strip())
        m = _LAB.match(entry)
        if m:
            lo, hi = m["lo"], m["hi"]
            results.append(
                LabResult(entry, m["name"].strip().lower(), float(m["value"]),
                          float(lo) if lo else None, float(hi) if hi else None, bool(m["flag"]))
            )  # fmt: skip
    return results


@lru_cache(maxsize=1)
def _prefix_index() -> list[tuple[str, Concept]]:
    return sorted(((code, c) for c in CONCEPTS for code in c.codes), key=lambda pair: -len(pair[0]))


def concept_for(code: str | None) -> Concept | None:
    """The concept whose longest ICD prefix matches ``code`` (dots ignored); None outside the table."""
    if not code:
        return None
    code = code.replace(".", "").upper()
    return next((c for prefix, c in _prefix_index() if code.startswith(prefix)), None)


def _sentences(text: str | None) -> list[str]:
    """Sentences and list items; a radiology header (``[CT HEAD] F:``) is dropped from its sentence."""
    cleaned = re.sub(r"\[[^\]]*\]|\b[FI]:", " ", text or "")
    return [s.strip() for s in _SENTENCE.findall(cleaned) if s.strip()]


def _affirmed(rx: re.Pattern[str], sentence: str) -> bool:
    return any(
        not _NEGATION_BEFORE.search(sentence[: m.start()]) and not _NEGATION_AFTER.match(sentence[m.end() :])
        for m in rx.finditer(sentence)
    )


def _find(patterns: tuple[str, ...], texts: list[str]) -> str | None:
    """The first sentence where one of the patterns occurs, not negated."""
    for pattern in patterns:
        rx = re.compile(pattern, re.IGNORECASE)
        for sentence in texts:
            if _affirmed(rx, sentence):
                return sentence
    return None


def _content_words(title: str) -> set[str]:
    return {t for t in tokens(title) if t not in STOP_WORDS and len(t) > 1}


def _named_in(title: str, texts: list[str]) -> str | None:
    """The first sentence that holds every content word of the title (EarlyDx's explicit rule)."""
    words = _content_words(title)
    return next((s for s in texts if words and words <= set(tokens(s))), None)


class RuleAuditor:
    """``audit(instance, reference) -> Verdict``; see the module docstring for the rules."""

    name = "rules"

    def identity(self) -> dict[str, object]:
        """The code and table hashes: an edited rule makes an old audit stale."""
        here = Path(__file__)
        return {
            "auditor": self.name,
            "rules_sha256": sha256_file(here),
            "rule_table_sha256": sha256_file(here.with_name("rule_table.py")),
        }

    def audit_many(self, pairs: Iterable[tuple[Instance, int]]) -> Iterator[tuple[Instance, int, Verdict]]:
        for inst, ref in pairs:
            yield inst, ref, self.audit(inst, inst.references[ref])

    def audit(self, instance: Instance, reference: Reference) -> Verdict:
        s = instance.sections
        findings = [x for name in FINDING_SECTIONS for x in _sentences(s.get(name))]
        indirect_texts = [x for name in INDIRECT_SECTIONS for x in _sentences(s.get(name))]
        indirect_texts += _sentences(instance.history)
        concept = concept_for(reference.code)
        if concept is not None:
            quote = self._direct(concept, instance, findings)
            if quote:
                return Verdict("supported", quote, rule=f"{concept.name}: direct finding")
            quote = _find(concept.indirect, indirect_texts)
            if quote:
                return Verdict("partial", quote, rule=f"{concept.name}: indirect evidence")
        title = reference.ed_title or reference.text
        quote = _named_in(title, findings)
        if quote:
            return Verdict("supported", quote, rule="title named in ECG/echo/radiology")
        quote = _named_in(title, indirect_texts)
        if quote:
            return Verdict("partial", quote, rule="title named in history/medications/complaint")
        return Verdict("unsupported", "", rule=f"{concept.name if concept else 'no concept'}: nothing found")

    @staticmethod
    def _direct(concept: Concept, instance: Instance, findings: list[str]) -> str | None:
        labs = parse_labs(instance.sections.get("labs"))
        for analyte, direction in concept.labs:
            rx = re.compile(rf"(?:^|\W)(?:{analyte})(?:\W|$)", re.IGNORECASE)
            for lab in labs:
                got = lab.direction()
                if rx.search(lab.name) and got is not None and (got == direction or direction == "abnormal"):
                    return lab.entry
        quote = _find(concept.findings, findings)
        if quote:
            return quote
        vitals_text = " | ".join(instance.sections.get(name) or "" for name in VITAL_SECTIONS)
        for measure, op, threshold in concept.vitals:
            values = [float(v) for v in _VITALS[measure].findall(vitals_text)]
            hit = [v for v in values if (v >= threshold if op == ">=" else v <= threshold)]
            if hit:
                return f"{measure.upper()} {hit[0]:g} ({op} {threshold:g})"
        return None
