"""The evidence-section library: one module per section, each a DuckDB query over a task's
``cohort`` table plus a renderer, typed on :class:`SectionOptions` rather than on one benchmark.

``ACUTE`` lists them in EarlyDx's order (§3.2); another task picks the ones it needs by name."""

from __future__ import annotations

from admitdx.tasks.sections import (
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
from admitdx.tasks.sections.base import Section
from admitdx.tasks.sections.options import SectionOptions

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

BY_NAME: dict[str, Section] = {s.name: s for s in ACUTE}

__all__ = ["ACUTE", "BY_NAME", "Section", "SectionOptions"]
