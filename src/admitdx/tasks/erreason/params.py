"""Parameters of the MIMIC-IV-ED family of ER-Reason tasks.

ER-Reason itself is zero-shot and has no training split; admitdx adds a patient-level split so
that trained baselines (majority class, triage-vitals classifier, kNN, TF-IDF) have a train set.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.spec import param


@dataclass(frozen=True)
class ErReasonMimicParams:
    test_fraction: float = param(0.5, "Share of patients in the test split (the rest train the baselines).")
    seed: int = param(0, "Seed of the patient split.")
    home_meds_max: int = param(12, "At most this many home medications are listed (EarlyDx's 12).")
    prior_note_chars: int | None = param(
        None,
        "One-liner: cut the previous discharge summary to this many characters (default: whole, as "
        "the authors).",
    )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def section_options(self, triage_fields: tuple[str, ...]) -> SectionOptions:
        """Options of the shared sections; only the triage, serial-vital and home-med fields are
        read by the sections these tasks use (labs, radiology and ECG are not part of their input)."""
        return SectionOptions(
            timestamps="charttime",
            lab_scope="ed-stay",
            lab_char_budget=0,
            home_meds_max=self.home_meds_max,
            radiology_max_reports=0,
            radiology_findings_chars=0,
            radiology_impression_chars=0,
            echo_max_measurements=0,
            prior_dx_max=0,
            prior_ed_dx_max=0,
            prior_note_chars=self.prior_note_chars,
            serial_vital_fields=("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp"),
            ecg_lookback_hours=None,
            baseline_labs_before="ed-arrival",
            triage_fields=triage_fields,
        )
