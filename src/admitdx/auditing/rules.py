"""The transparent rule-based evidence auditor: no LLM, every verdict traceable to one rule.

It exists so the pipeline runs offline and so an LLM auditor has a baseline to beat. For each
(instance, reference label) pair it applies, in order (EarlyDx §3.3):

1. **supported** — a *direct* admission-time finding for the label's concept
   (:mod:`admitdx.auditing.rule_table`): a lab result past its clinical cut-off (or flagged in the
   right direction), an affirmed ECG / echo / radiology sentence, a vital sign past a threshold, a
   chief complaint that names a sign-defined label's sign, or a sign that the indirect evidence
   localises; for a label outside the table, every content word of its title in one ECG, echo or
   radiology sentence;
2. **partial** — *indirect* evidence: a suggestive lab or finding; a hedged ("cannot be
   excluded") or stale ("old healed fracture") finding; the concept's patterns (or, outside the
   table, the title's content words) in the prior history, home medications or chief complaint;
   the very same title coded at an earlier visit;
3. **unsupported** — nothing found.

A label in the table is decided by its concept alone: its title's words are no fallback, since
they may name something else ("HYPERTENSION NOS" is not "Portal hypertension").

The quote is the lab entry, sentence or field that decided it. Lab entries are read in both of the
EarlyDx builder's formats: ``Name value unit [low-high]*`` and the paper's ``Name value*``
(``*`` = flagged abnormal).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from admitdx.auditing.rule_table import CONCEPTS, Concept, Lab, Pattern, Vital
from admitdx.auditing.verdict import Verdict
from admitdx.contracts import Instance, Reference
from admitdx.runs import sha256_file
from admitdx.tasks.explicit import STOP_WORDS, tokens

FINDING_SECTIONS = ("ecg", "echo", "radiology")
VITAL_SECTIONS = ("triage", "ed_vitals")
INDIRECT_SECTIONS = ("home_meds", "chief_complaint")

_QUALITATIVE = r"(?:neg|negative|pos|positive|tr|trace|sm|small|mod|moderate|lg|large)\.?"
_LAB = re.compile(
    rf"^(?P<name>.+?)\s+(?P<value>[<>]?=?-?\d+(?:\.\d*)?|{_QUALITATIVE})(?=[\s*\[]|$)"
    r"(?P<unit>[^\[*]*)(?:\[(?P<lo>-?[\d.]*)\s*-\s*(?P<hi>[\d.]*)\])?\s*(?P<flag>\*)?\s*$",
    re.IGNORECASE,
)
_NEGATIVE_RESULT = re.compile(r"^(?:neg|negative|none)\.?$", re.IGNORECASE)
_SENTENCE_BREAK = re.compile(r"(?<!\d)\.(?!\d)|[;|\n]")
_REPORT = re.compile(r"\[(?P<exam>[^\]]*)\]\s*(?P<body>[^\[]*)")
_VITALS = {
    "sbp": re.compile(r"\bS?BP\s?(\d+(?:\.\d+)?)"),
    "spo2": re.compile(r"\bSpO2\s?(\d+(?:\.\d+)?)"),
    "temp": re.compile(r"\bT\s?(\d{2,3}(?:\.\d+)?)"),
    "hr": re.compile(r"\bHR\s?(\d+(?:\.\d+)?)"),
    "rr": re.compile(r"\bRR\s?(\d+(?:\.\d+)?)"),
}
#: A finding preceded by a negation in its clause (NegEx-style: at most ``_NEGATION_WINDOW`` words
#: back, long enough for a list — "no hemorrhage, edema, mass effect or acute infarct" — but not
#: across "but" or a positive assertion such as "compatible with"), or followed by "none", is not a
#: finding.
_NEGATION_BEFORE = re.compile(
    r"\b(?:no|not|without|negative for|free of|rule out|ruled out|resolved|r/o|resolution of)\b",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(
    r"\b(?:but|however|although|though|compatible with|consistent with|concerning for|suggestive of"
    r"|representing|in keeping with)\b",
    re.IGNORECASE,
)
_NEGATION_WINDOW = 12
_NEGATION_AFTER = re.compile(r"^\W*(?:none|absent|negative|not (?:seen|identified|present))\b", re.IGNORECASE)
#: A finding the radiologist does not commit to is suggestive, not direct.
_HEDGE = re.compile(
    r"\b(?:cannot be excluded|cannot exclude|can ?not be (?:excluded|ruled out)|not excluded|possibl[ey]"
    r"|may represent|could represent|questionable|versus|vs|differential|less likely|unlikely|equivocal)\b",
    re.IGNORECASE,
)
#: For an acute concept, an old / healed / chronic finding is history, not the presentation.
_STALE = re.compile(r"\b(?:old|healed|healing|chronic|remote|sequelae? of)\b", re.IGNORECASE)
#: The explicit-tagging tokenizer's unit (:func:`admitdx.tasks.explicit.tokens`), with positions.
_TOKEN = re.compile(r"[a-z0-9]+", re.IGNORECASE)
#: Abbreviations of ICD short titles and clinical notes, read as the word they stand for.
_ABBREVIATIONS = {"fx": "fracture", "fxs": "fracture", "hem": "hemorrhage", "hemorr": "hemorrhage"}
#: Coding words the explicit rule keeps but that no record would state ("cause unspecified").
_MORE_BOILERPLATE = frozenset({"cause"})
#: The header that opens each line of the history block ("Past ED diagnoses: …"): not a quote.
_HISTORY_PART = re.compile(r"^[A-Z][^:\n]{2,60}:[ \t]*", re.MULTILINE)
#: Title words after "without" say what the patient does *not* have ("... without hepatic coma").
_WITHOUT = re.compile(r"\b(?:without|w/o|wo)\b.*$", re.IGNORECASE)


@dataclass(frozen=True)
class LabResult:
    entry: str
    name: str
    value: float | None  # None for a qualitative result ("POS.", "LG")
    text_value: str
    low: float | None
    high: float | None
    flagged: bool

    def direction(self) -> str | None:
        """ "high"/"low" against the reference range, "abnormal" when flagged without one; else None."""
        if not self.flagged:
            return None
        if self.value is not None and self.high is not None and self.value > self.high:
            return "high"
        if self.value is not None and self.low is not None and self.value < self.low:
            return "low"
        return "abnormal"

    def meets(self, lab: Lab) -> bool:
        """Whether this result satisfies ``lab`` (its whole name must match the analyte)."""
        if not _analyte(lab.analyte).fullmatch(self.name):
            return False
        if lab.direction == "positive":
            return self.flagged and not _NEGATIVE_RESULT.match(self.text_value)
        if lab.threshold is not None:
            if self.value is None:
                return False
            return self.value >= lab.threshold if lab.direction == "high" else self.value <= lab.threshold
        return self.direction() in (lab.direction, "abnormal")


@dataclass(frozen=True)
class Sentence:
    """One sentence of a finding or field; ``context`` is its report's exam name ("CT HEAD W/O
    CONTRAST"), which may supply the site of a finding the sentence itself does not name."""

    text: str
    context: str = ""


def parse_labs(text: str | None) -> list[LabResult]:
    results = []
    for entry in (text or "").split(";"):
        entry = re.sub(r"^\(\d+ results?[^)]*\)\s*", "", entry.strip())
        m = _LAB.match(entry)
        if not m:
            continue
        raw = m["value"].lstrip("<>=")
        number = re.fullmatch(r"-?\d+(?:\.\d*)?", raw)
        results.append(
            LabResult(
                entry,
                m["name"].strip().lower(),
                float(raw) if number else None,
                raw,
                _number(m["lo"]),
                _number(m["hi"]),
                bool(m["flag"]),
            )
        )
    return results


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None


@cache
def _analyte(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


@cache
def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


@cache
def _prefix_index() -> list[tuple[str, Concept]]:
    return sorted(((code, c) for c in CONCEPTS for code in c.codes), key=lambda pair: -len(pair[0]))


def concept_for(code: str | None) -> Concept | None:
    """The concept whose longest ICD prefix matches ``code`` (dots ignored); None outside the table."""
    if not code:
        return None
    code = code.replace(".", "").upper()
    return next((c for prefix, c in _prefix_index() if code.startswith(prefix)), None)


def _split(text: str, context: str = "") -> list[Sentence]:
    pieces = (s.strip() for s in _SENTENCE_BREAK.split(re.sub(r"\b[FI]:", " ", text)))
    return [Sentence(s, context) for s in pieces if s]


def sentences(text: str | None, reports: bool = False) -> list[Sentence]:
    """Sentences and list items; with ``reports`` (radiology), each ``[EXAM]`` header becomes the
    context of its report's sentences (elsewhere brackets are text: "[HIV] disease")."""
    text = text or ""
    found = list(_REPORT.finditer(text)) if reports else []
    if not found:
        return _split(text)
    return [s for r in found for s in _split(r["body"], r["exam"].strip())]


def _negated(before: str) -> bool:
    clause = _CLAUSE_BREAK.split(before)[-1]
    return bool(_NEGATION_BEFORE.search(" ".join(clause.split()[-_NEGATION_WINDOW:])))


def _state(rx: re.Pattern[str], sentence: str, acute: bool) -> str | None:
    """How ``rx`` occurs in the sentence: "direct", "suggestive" (hedged, or stale for an acute
    concept) or None (absent or negated)."""
    best = None
    for m in rx.finditer(sentence):
        before, after = sentence[: m.start()], sentence[m.end() :]
        if _negated(before) or _NEGATION_AFTER.match(after):
            continue
        if _HEDGE.search(sentence) or (acute and _STALE.search(before)):
            best = "suggestive"
            continue
        return "direct"
    return best


def _pattern_state(pattern: Pattern, sentence: Sentence, acute: bool) -> str | None:
    """A tuple pattern holds when each part occurs in the sentence (or, for a site, its exam name);
    the weakest part decides."""
    parts = (pattern,) if isinstance(pattern, str) else pattern
    states = []
    for i, part in enumerate(parts):
        state = _state(_rx(part), sentence.text, acute)
        if state is None and i > 0 and _rx(part).search(sentence.context):
            state = "direct"
        if state is None:
            return None
        states.append(state)
    return "suggestive" if "suggestive" in states else "direct"


def find(patterns: Iterable[Pattern], texts: list[Sentence], acute: bool = False) -> tuple[str, str] | None:
    """(state, sentence) for the first affirmed pattern, a direct occurrence before a suggestive one."""
    suggestive = None
    for pattern in patterns:
        for s in texts:
            state = _pattern_state(pattern, s, acute)
            if state == "direct":
                return state, s.text
            if state == "suggestive" and suggestive is None:
                suggestive = (state, s.text)
    return suggestive


def vital_hit(vital: Vital, vitals_text: str) -> str | None:
    values = [float(v) for v in _VITALS[vital.measure].findall(vitals_text)]
    if vital.measure == "temp":
        values = [v * 9 / 5 + 32 if v < 50 else v for v in values]  # a Celsius reading
    hit = [v for v in values if (v >= vital.threshold if vital.op == ">=" else v <= vital.threshold)]
    return f"{vital.measure.upper()} {hit[0]:g} ({vital.op} {vital.threshold:g})" if hit else None


def lab_hit(criterion: Lab | tuple[Lab, ...], labs: list[LabResult]) -> str | None:
    """The entries meeting every part of the criterion, joined; None when a part is unmet."""
    parts = (criterion,) if isinstance(criterion, Lab) else criterion
    entries = []
    for lab in parts:
        entry = next((r.entry for r in labs if r.meets(lab)), None)
        if entry is None:
            return None
        entries.append(entry)
    return "; ".join(entries)


def _content_words(title: str) -> set[str]:
    return {
        _ABBREVIATIONS.get(t, t)
        for t in tokens(_WITHOUT.sub("", title))
        if t not in STOP_WORDS and t not in _MORE_BOILERPLATE and len(t) > 1
    }


def _named_in(title: str, texts: list[Sentence]) -> str | None:
    """The first sentence that holds every content word of the title (EarlyDx's explicit rule), none
    of them negated ("No pneumothorax" does not name a pneumothorax)."""
    words = _content_words(title)
    if not words:
        return None
    for s in texts:
        found = {_ABBREVIATIONS.get(m[0].lower(), m[0].lower()): m.start() for m in _TOKEN.finditer(s.text)}
        if words <= found.keys() and not any(_negated(s.text[: found[w]]) for w in words):
            return s.text
    return None


def _same_title_in_history(reference: Reference, ev: Evidence) -> Verdict | None:
    """Partial when an earlier visit coded the very same title (ED or dictionary spelling): a
    prior identical diagnosis is relevant history, whatever the concept's patterns say."""
    titles = {tuple(tokens(t)) for t in (reference.ed_title, reference.dictionary_title, reference.text) if t}
    quote = next((s.text for s in ev.history if tuple(tokens(s.text)) in titles), None)
    return Verdict("partial", quote, rule="same diagnosis in prior history") if quote else None


@dataclass(frozen=True)
class Evidence:
    """One instance's evidence, split once into what the rules read."""

    labs: list[LabResult]
    findings: list[Sentence]
    complaint: list[Sentence]
    indirect: list[Sentence]
    history: list[Sentence]
    vitals: str

    @classmethod
    def of(cls, instance: Instance) -> Evidence:
        s = instance.sections
        complaint = sentences(s.get("chief_complaint"))
        indirect = [x for name in INDIRECT_SECTIONS for x in sentences(s.get(name))]
        history = sentences(_HISTORY_PART.sub("", instance.history or ""))
        return cls(
            labs=parse_labs(s.get("labs")),
            findings=[x for name in FINDING_SECTIONS for x in sentences(s.get(name), name == "radiology")],
            complaint=complaint,
            indirect=indirect + history,
            history=history,
            vitals=" | ".join(s.get(name) or "" for name in VITAL_SECTIONS),
        )


def _sign_hit(sign: Lab | Vital, ev: Evidence) -> str | None:
    return vital_hit(sign, ev.vitals) if isinstance(sign, Vital) else lab_hit(sign, ev.labs)


def judge(concept: Concept, ev: Evidence) -> Verdict | None:
    """The concept's verdict from direct, then indirect evidence; None when nothing was found."""
    name = concept.name
    for criterion in concept.labs:
        quote = lab_hit(criterion, ev.labs)
        if quote:
            return Verdict("supported", quote, rule=f"{name}: lab")
    found = find(concept.findings, ev.findings, concept.acute)
    if found and found[0] == "direct":
        return Verdict("supported", found[1], rule=f"{name}: finding")
    for vital in concept.vitals:
        quote = vital_hit(vital, ev.vitals)
        if quote:
            return Verdict("supported", quote, rule=f"{name}: vital sign")
    complaint = find(concept.complaint, ev.complaint)
    if complaint and complaint[0] == "direct":
        return Verdict("supported", complaint[1], rule=f"{name}: chief complaint names the sign")
    indirect = find(concept.indirect, ev.indirect, concept.acute)
    if indirect:
        sign = next((q for q in (_sign_hit(sign, ev) for sign in concept.context_signs) if q), None)
        if sign:
            return Verdict("supported", f"{sign}; {indirect[1]}", rule=f"{name}: sign with context")
    if found:
        return Verdict("partial", found[1], rule=f"{name}: hedged or old finding")
    hint = find(concept.hint_findings, ev.findings)
    if hint:
        return Verdict("partial", hint[1], rule=f"{name}: suggestive finding")
    for lab in concept.hint_labs:
        quote = lab_hit(lab, ev.labs)
        if quote:
            return Verdict("partial", quote, rule=f"{name}: suggestive lab")
    if indirect:
        return Verdict("partial", indirect[1], rule=f"{name}: indirect evidence")
    return None


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
        """Pairs of one instance usually come together: its evidence is read once for all of them."""
        last: tuple[Instance, Evidence] | None = None
        for inst, ref in pairs:
            if last is None or last[0] is not inst:
                last = (inst, Evidence.of(inst))
            yield inst, ref, self.audit(inst, inst.references[ref], last[1])

    def audit(self, instance: Instance, reference: Reference, evidence: Evidence | None = None) -> Verdict:
        ev = evidence or Evidence.of(instance)
        concept = concept_for(reference.code)
        if concept is not None:
            # the concept's knowledge decides alone: its title's words may name something else
            # ("HYPERTENSION NOS" is not the "Portal hypertension" of the history)
            verdict = judge(concept, ev) or _same_title_in_history(reference, ev)
            return verdict or Verdict("unsupported", "", rule=f"{concept.name}: nothing found")
        title = reference.ed_title or reference.text
        quote = _named_in(title, ev.findings)
        if quote:
            return Verdict("supported", quote, rule="title named in ECG/echo/radiology")
        quote = _named_in(title, ev.indirect)
        if quote:
            return Verdict("partial", quote, rule="title named in history/medications/complaint")
        return Verdict("unsupported", "", rule="no concept: nothing found")
