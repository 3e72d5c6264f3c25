"""Every protocol choice of the CliniBench builder, each defaulting to the paper's value.

References are to Grundmann et al., *CliniBench* (``shared/papers/clinibench.txt``): §3.1 admission
notes, labels and per-module / per-version datasets, §4 top-20 evaluation, appendix A.2 split and
label exclusion. ``tasks/clinibench/README.md`` lists each choice next to the paper's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from admitdx.errors import UsageError
from admitdx.tasks.note_headings.grammar import heading_key
from admitdx.tasks.spec import param

MODULES: tuple[str, ...] = ("hosp", "icu")
VERSIONS: tuple[int, ...] = (9, 10)

#: The nine admission-time sections of §3.1, in the paper's order (canonical names).
SECTION_NAMES: tuple[str, ...] = (
    "chief_complaint",
    "major_surgical_or_invasive_procedure",
    "allergies",
    "history_of_present_illness",
    "past_medical_history",
    "social_history",
    "family_history",
    "physical_exam",
    "medications_on_admission",
)
#: A note whose sections are all empty here says nothing about the admission (dropped, counted).
CORE_SECTIONS: tuple[str, ...] = ("chief_complaint", "history_of_present_illness", "past_medical_history")


#: The allowed values of the parameters that name a choice.
CHOICES: dict[str, tuple[str, ...]] = {
    "hosp_icu": ("exclude", "include"),
    "procedures": ("keep", "drop"),
    "physical_exam": ("admission", "whole"),
    "main_diagnosis": ("promote", "miss"),
}


@dataclass(frozen=True)
class CliniBenchParams:
    """Parameters of ``admitdx build clinibench``; every field is recorded in the manifest.

    Datasets (§3.1, table 1)
      module: "hosp" or "icu" (admissions with an ``icu/icustays`` row); icd_version 9 or 10 (the
        admission's diagnoses_icd version). Leaving either out builds every value of it, one
        dataset per subfolder (``hosp-icd9``, ``hosp-icd10``, ``icu-icd9``, ``icu-icd10``), each
        with its own manifest.
      hosp_icu: "exclude" (hosp holds the admissions *without* an ICU stay, so hosp and icu are
        disjoint) or "include" (hosp holds every admission). The paper does not say; its four
        datasets sum to 328,472 notes, 99.0 % of MIMIC-IV-Note's 331,794, which only disjoint
        modules allow, so "exclude" is the reading under which table 1 adds up.

    Admission note (§3.1)
      sections: which of the nine admission-time sections to keep (all, in the paper's order).
      physical_exam: "admission" cuts the exam at a discharge sub-header (MIMIC often keeps the
        admission and the discharge exam under one ``Physical Exam:`` header); "whole" keeps the
        header's full text, as a splitter unaware of the two exams would (it leaks the discharge
        exam; for ablations only).
      procedures: "keep" the "Major Surgical or Invasive Procedure" section (the paper keeps it,
        although it names procedures done during the stay) or "drop" it.
      drop_empty_core: drop notes whose chief complaint, present illness and past history are all
        empty (counted in the manifest).

    Split (appendix A.2)
      train_fraction / val_fraction / test_fraction: 70 / 10 / 20 per cent of notes.
      group_by_patient: keep all of a patient's notes in one split (the paper does not say; off
        stratifies notes independently, so one patient can sit in train and test).
      seed: ties of the iterative stratification are broken with this seed.
      exclude_absent_labels: leave out of evaluation the labels absent from any split (paper).
      main_diagnosis: when the main diagnosis's category is excluded, "promote" the next
        evaluated label to first reference (scored as the main diagnosis) or score the note as a
        "miss" in main-diagnosis accuracy (its references unchanged). The paper does not say.

    One split for all datasets of a build: patients (or admissions, ungrouped) are stratified once
    over every note of the root, so no patient is in train of one dataset and test of another,
    and a dataset built alone gets the same split as in a build of all four.
    """

    module: Literal["hosp", "icu"] | None = param(
        None, "hosp: every admission with a discharge note; icu: those with an ICU stay (default: both)."
    )
    icd_version: int | None = param(None, "9 or 10: the admissions coded in that version (default: both).")
    hosp_icu: Literal["exclude", "include"] = param(
        "exclude",
        "exclude: hosp holds admissions without an ICU stay, disjoint from icu (table 1 adds up); "
        "include: hosp holds every admission, icu a subset of it.",
    )
    sections: tuple[str, ...] = param(SECTION_NAMES, "Admission-time sections kept, in the paper's order.")
    procedures: Literal["keep", "drop"] = param(
        "keep", "keep (paper) or drop the Major Surgical or Invasive Procedure section."
    )
    physical_exam: Literal["admission", "whole"] = param(
        "admission", "admission: the exam at admission only (paper); whole: the header's full text."
    )
    keep_heading: tuple[str, ...] = param(
        (),
        "A heading spelling to show (issue 29): its section follows the nine in the note, under the "
        "heading as written (the manifest's withheld_headings lists the spellings withheld).",
    )
    drop_empty_core: bool = param(True, "Drop notes with empty chief complaint, HPI and past history.")
    train_fraction: float = param(0.7, "Share of notes in train (appendix A.2: 0.7).")
    val_fraction: float = param(0.1, "Share of notes in val (appendix A.2: 0.1).")
    test_fraction: float = param(0.2, "Share of notes in test (appendix A.2: 0.2).")
    group_by_patient: bool = param(True, "No patient in two splits (the paper does not say; ours).")
    seed: int = param(0, "Seed for the stratification's random tie-breaking.")
    exclude_absent_labels: bool = param(True, "Evaluate only labels present in all three splits (A.2).")
    main_diagnosis: Literal["promote", "miss"] = param(
        "promote",
        "An excluded main diagnosis: promote the next evaluated label, or score the note as a miss.",
    )

    def __post_init__(self) -> None:
        if self.module is not None and self.module not in MODULES:
            raise UsageError(f"module must be one of {', '.join(MODULES)}, got {self.module!r}")
        if self.icd_version is not None and self.icd_version not in VERSIONS:
            raise UsageError(f"icd_version must be 9 or 10, got {self.icd_version!r}")
        for name, allowed in CHOICES.items():
            if getattr(self, name) not in allowed:
                raise UsageError(f"{name} must be {' or '.join(allowed)}, got {getattr(self, name)!r}")
        unknown = [s for s in self.sections if s not in SECTION_NAMES]
        if unknown or not self.sections:
            raise UsageError(
                f"unknown or no section(s): {', '.join(unknown) or '(none given)'}",
                hint=f"choose from {', '.join(SECTION_NAMES)}",
            )
        if not self.kept_sections():
            raise UsageError("procedures=drop leaves no section to keep", hint="add sections to --sections")
        fractions = self.fractions()
        if any(f <= 0 for f in fractions.values()) or abs(sum(fractions.values()) - 1) > 1e-9:
            raise UsageError(f"train/val/test fractions must be > 0 and sum to 1, got {fractions}")

    def kept_sections(self) -> tuple[str, ...]:
        """``sections`` without the procedures section when ``procedures`` is "drop"."""
        if self.procedures == "keep":
            return self.sections
        return tuple(s for s in self.sections if s != "major_surgical_or_invasive_procedure")

    def allowed_headings(self) -> frozenset[str]:
        """The keys of the ``keep_heading`` spellings (the grammar's normalisation)."""
        return frozenset(heading_key(h) for h in self.keep_heading)

    def fractions(self) -> dict[str, float]:
        return {"train": self.train_fraction, "val": self.val_fraction, "test": self.test_fraction}

    def variants(self) -> list[tuple[str, int]]:
        """The (module, version) datasets this build writes."""
        modules = (self.module,) if self.module else MODULES
        versions = (self.icd_version,) if self.icd_version else VERSIONS
        return [(m, v) for m in modules for v in versions]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def variant_name(module: str, version: int) -> str:
    """The subfolder of one dataset in a build of several: ``hosp-icd10``."""
    return f"{module}-icd{version}"
