"""The evidence sections of an EarlyDx input, one module each, in the paper's order (§3.2)."""

from __future__ import annotations

from admitdx.tasks.earlydx.sections import (
    baseline_labs,
    chief_complaint,
    demographics,
    ecg,
    echo,
    ed_vitals,
    home_meds,
    labs,
    omr,
    radiology,
    triage,
)
from admitdx.tasks.earlydx.sections.base import Section
from admitdx.tasks.earlydx.sections.prior_history import PARTS as HISTORY_PARTS

ACUTE: tuple[Section, ...] = tuple(
    m.SECTION
    for m in (
        demographics,
        chief_complaint,
        triage,
        ed_vitals,
        home_meds,
        omr,
        baseline_labs,
        labs,
        ecg,
        echo,
        radiology,
    )
)

__all__ = ["ACUTE", "HISTORY_PARTS", "Section"]
