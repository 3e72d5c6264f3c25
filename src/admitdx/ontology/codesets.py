"""Condition code sets: the six time-critical conditions of EarlyDx section 5.5, and the conditions
whose per-condition F1 the input ablation of appendix P reports.

A condition is recognised two ways:

* a **reference label** by its ICD code — a prefix of the dot-less code, separately for ICD-9-CM
  and ICD-10-CM (the paper names the conditions but publishes no code lists, so these are ours);
* a **free-text prediction** by a lexical pattern (predictions carry no code). A prediction paired
  by the matcher with a label of the condition also counts, so a synonym the pattern misses is
  still recognised when it is right. Text that describes history ("old MI", "history of stroke")
  does not name an acute condition and is not recognised.

Sources and rationale (ICD-10-CM 2024 tabular list; ICD-9-CM 2014 tabular list):

* **Myocardial infarction**: acute MI only — ICD-10 I21 (STEMI/NSTEMI), I22 (subsequent MI within
  4 weeks); ICD-9 410. Old MI (I25.2, 412) and unstable angina (I20.0, 411.1) are excluded: the
  paper's condition is infarction, not the acute coronary syndrome spectrum.
* **Sepsis**: ICD-10 A40, A41 (streptococcal / other sepsis), A02.1, A22.7, A26.7, A32.7, A42.7,
  B37.7 (organism-specific sepsis), R65.2 (severe sepsis, septic shock), T81.44 (post-procedural);
  ICD-9 038 (septicaemia), 995.91–995.92, 785.52 (septic shock), 003.1. R65.2 sits in chapter R,
  which EarlyDx's label filter removes; it is kept here for datasets built without that filter.
* **Intracranial haemorrhage**: non-traumatic I60 (SAH), I61 (intracerebral), I62 (subdural and
  other) and traumatic S06.4–S06.6 (epidural, subdural, subarachnoid); ICD-9 430–432, 852–853.
* **Pulmonary embolism**: ICD-10 I26; ICD-9 415.1.
* **Stroke**: ischaemic stroke — ICD-10 I63; ICD-9 433.x1 and 434.x1 (occlusion *with* cerebral
  infarction) and 436. Haemorrhagic stroke is counted as intracranial haemorrhage, TIA (G45, 435)
  is not a stroke.
* **Gastrointestinal bleeding**: ICD-10 K92.0–K92.2 (haematemesis, melaena, unspecified GI
  haemorrhage), peptic ulcers with haemorrhage (K25–K28 .0/.2/.4/.6), K62.5, bleeding oesophageal
  varices (I85.01, I85.11), Mallory–Weiss (K22.6), diverticular disease with bleeding (K57.x1,
  K57.x3), angiodysplasia with haemorrhage (K31.811, K55.21); ICD-9 578, 531–534 (.0/.2/.4/.6),
  456.0, 569.3, 530.7, 530.82, 562.12–562.13, 569.85, 537.83.
* Appendix P conditions besides these: pneumonia (J12–J18; 480–486), acute kidney injury (N17;
  584), atrial fibrillation / flutter (I48; 427.31–427.32), fracture (S02, S12, S22, S32, S42,
  S52, S62, S72, S82, S92, T08, T10, T12; 800–829), heart failure (I50; 428), urinary tract
  infection (N39.0; 599.0).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from admitdx.contracts import Reference

HISTORY_PATTERN = re.compile(r"\b(old|history of|h/o|hx of|prior|previous|remote|healed)\b", re.I)


@dataclass(frozen=True)
class Condition:
    """A named condition: ICD-9 and ICD-10 code prefixes (dot-less) and a pattern for free text."""

    name: str
    icd9: tuple[str, ...]
    icd10: tuple[str, ...]
    pattern: str
    exclude: str | None = None

    def matches_code(self, code: str | None, code_system: str | None = None) -> bool:
        if not code:
            return False
        clean = code.replace(".", "").strip().upper()
        system = code_system or guess_code_system(clean)
        prefixes = self.icd10 if system == "ICD-10-CM" else self.icd9
        return clean.startswith(prefixes)

    def matches_text(self, text: str) -> bool:
        if HISTORY_PATTERN.search(text):
            return False
        if self.exclude and re.search(self.exclude, text, re.I):
            return False
        return re.search(self.pattern, text, re.I) is not None

    def matches_reference(self, ref: Reference) -> bool:
        """A label by its code; a label without a code by its text."""
        if ref.code:
            return self.matches_code(ref.code, ref.code_system)
        return self.matches_text(ref.text)


class ConditionSet(Sequence[Condition]):
    """An ordered set of conditions that remembers which conditions each text and label names.

    Scoring asks the same question of the same texts many times (every system predicts "Sepsis"),
    so answers are cached per text and per (code, code system).
    """

    def __init__(self, conditions: Iterable[Condition]) -> None:
        self.conditions = tuple(conditions)
        self.names = tuple(c.name for c in self.conditions)
        self._texts: dict[str, frozenset[str]] = {}
        self._refs: dict[tuple[str | None, str | None, str], frozenset[str]] = {}

    def __len__(self) -> int:
        return len(self.conditions)

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        return self.conditions[i]

    def __iter__(self) -> Iterator[Condition]:
        return iter(self.conditions)

    def named_in(self, text: str) -> frozenset[str]:
        """Names of the conditions a free-text diagnosis names."""
        hit = self._texts.get(text)
        if hit is None:
            hit = self._texts[text] = frozenset(c.name for c in self.conditions if c.matches_text(text))
        return hit

    def of_reference(self, ref: Reference) -> frozenset[str]:
        """Names of the conditions a reference label belongs to."""
        key = (ref.code, ref.code_system, "" if ref.code else ref.text)
        hit = self._refs.get(key)
        if hit is None:
            hit = self._refs[key] = frozenset(c.name for c in self.conditions if c.matches_reference(ref))
        return hit


def guess_code_system(code: str) -> str:
    """ICD-10-CM codes start with a letter; ICD-9-CM codes with a digit (or E/V, never used here)."""
    return "ICD-10-CM" if code[:1].isalpha() and code[:1] not in "EV" else "ICD-9-CM"


def _ulcer_bleeds(prefixes: tuple[str, ...], subs: str) -> tuple[str, ...]:
    return tuple(p + s for p in prefixes for s in subs)


TIME_CRITICAL = ConditionSet(
    (
        Condition(
            "myocardial infarction",
            ("410",),
            ("I21", "I22"),
            r"myocardial infarct|\bn?-?stemi\b|non[- ]st[- ]elevation m|\bami\b|\bmi\b|heart attack",
        ),
        Condition(
            "sepsis",
            ("038", "99591", "99592", "78552", "0031"),
            ("A40", "A41", "A021", "A227", "A267", "A327", "A427", "B377", "R652", "T8144"),
            r"sepsis|(?<!a)septic",
        ),
        Condition(
            "intracranial haemorrhage",
            ("430", "431", "432", "852", "853"),
            ("I60", "I61", "I62", "S064", "S065", "S066"),
            r"intracranial (h(a)?emorrhage|bleed)|intracerebral h|intraparenchymal h|subarachnoid h"
            r"|subdural h|epidural h|\bsdh\b|\bsah\b|\bich\b|brain bleed|cerebral h(a)?emorrhage"
            r"|h(a)?emorrhagic stroke",
        ),
        Condition(
            "pulmonary embolism",
            ("4151",),
            ("I26",),
            r"pulmonary (thrombo)?embol|\bpe\b|saddle embol",
        ),
        Condition(
            "stroke",
            ("43301", "43311", "43321", "43331", "43381", "43391", "43401", "43411", "43491", "436"),
            ("I63",),
            r"\bstroke\b|cerebral infarct|brain infarct|cerebrovascular accident|\bcva\b|lacunar infarct"
            r"|cerebral (artery )?(occlusion|thrombosis|embolism)",
            exclude=r"h(a)?emorrhagic stroke",
        ),
        Condition(
            "gastrointestinal bleeding",
            (
                "578",
                "4560",
                "5693",
                "5307",
                "53082",
                "56212",
                "56213",
                "56985",
                "53783",
                *_ulcer_bleeds(("531", "532", "533", "534"), "0246"),
            ),
            (
                "K920",
                "K921",
                "K922",
                "K625",
                "I8501",
                "I8511",
                "K226",
                "K31811",
                "K5521",
                "K5701",
                "K5711",
                "K5713",
                "K5721",
                "K5731",
                "K5733",
                "K5741",
                "K5751",
                "K5753",
                "K5781",
                "K5791",
                "K5793",
                *_ulcer_bleeds(("K25", "K26", "K27", "K28"), "0246"),
            ),
            r"\b(gi|gastrointestinal|upper gi|lower gi|rectal|variceal|ulcer|diverticular) ?"
            r"(bleed|h(a)?emorrhage)"
            r"|h(a)?ematemesis|mel(a)?ena|h(a)?ematochezia|mallory[- ]weiss|\b[ul]?gib\b"
            r"|(gastric|duodenal|peptic) ulcer with (h(a)?emorrhage|bleeding)",
        ),
    )
)

ABLATION_CONDITIONS = ConditionSet(
    (
        *TIME_CRITICAL.conditions,
        Condition(
            "pneumonia",
            ("480", "481", "482", "483", "484", "485", "486"),
            ("J12", "J13", "J14", "J15", "J16", "J17", "J18"),
            r"pneumonia|\bcap\b|\bhcap\b",
        ),
        Condition(
            "acute kidney injury",
            ("584",),
            ("N17",),
            r"acute kidney injury|\baki\b|acute renal (failure|injury)|\barf\b",
        ),
        Condition(
            "atrial fibrillation",
            ("42731", "42732"),
            ("I48",),
            r"atrial fibrillation|atrial flutter|\bafib\b|\ba-?fib\b|\baf\b|\brvr\b",
        ),
        Condition(
            "fracture",
            tuple(str(c) for c in range(800, 830)),
            ("S02", "S12", "S22", "S32", "S42", "S52", "S62", "S72", "S82", "S92", "T08", "T10", "T12"),
            r"fracture|\bfx\b",
        ),
        Condition(
            "heart failure", ("428",), ("I50",), r"heart failure|\bchf\b|\bhfref\b|\bhfpef\b|cardiac failure"
        ),
        Condition("urinary tract infection", ("5990",), ("N390",), r"urinary tract infection|\buti\b"),
    )
)
