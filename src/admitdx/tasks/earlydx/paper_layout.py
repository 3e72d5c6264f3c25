"""The field formats of the paper's appendix I, for ``--layout paper``.

Appendix I prints the authors' builder's formats: numbers as the table stores them ("HR52.0",
"acuity2.0", "creatinine 1.0"), SpO2 run together with its value ("SpO297.0"), outpatient
measurements without units, and placeholders where nothing was recorded ("Baseline (OMR): BP
None, Wt None, Ht None, BMI None", "creatinine None, hemoglobin None").

``Instance.sections`` keep the shared library's format in both layouts (the evidence is the same;
only the text differs), so the paper's text is derived from them here: :func:`paper_field` turns a
section's value into appendix I's wording. Only four sections differ; the others (demographics,
chief complaint, home meds, labs, ECG, echo, radiology) read the same in both layouts.

What stays a departure in this layout (see the task README): a triage or vital field that was not
recorded is left out (their code prints ``HRnan``), lab results carry units and are cut at a whole
result. ``field_format`` "pandas" prints the authors' text instead: the sections are then rendered
as their code prints them and this module only fills the placeholders.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from admitdx.tasks.sections.base import stored
from admitdx.tasks.sections.baseline_labs import ITEMS as BASELINE_ITEMS
from admitdx.tasks.sections.omr import KINDS as OMR_KINDS

#: A section with nothing recorded, as appendix I prints it (the section is still None in
#: Instance.sections and in the coverage figures: a placeholder is not evidence).
PLACEHOLDERS = {
    "omr": ", ".join(f"{label} None" for label, _ in OMR_KINDS.values()),
    "baseline_labs": ", ".join(f"{name} None" for name in BASELINE_ITEMS),
}

# "HR80", "SpO2 99", "BP138/78", "acuity 2" as the shared vitals and triage sections write them.
_VITAL = re.compile(r"\b(T|HR|RR|SpO2|SBP|DBP|BP|acuity) ?(-?[\d.]+(?:e-?\d+)?)(?:/(-?[\d.]+(?:e-?\d+)?))?")
_UNITS = tuple(unit for _, units in OMR_KINDS.values() for unit in units.values() if unit)


def _vitals(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        second = f"/{stored(m.group(3))}" if m.group(3) is not None else ""
        return f"{m.group(1)}{stored(m.group(2))}{second}"

    return _VITAL.sub(one, text)


def _omr(text: str) -> str:
    values = {}
    for part in text.split(", "):
        label, _, value = part.partition(" ")
        values[label] = next((value[: -len(u)] for u in _UNITS if value.endswith(u)), value)
    return ", ".join(f"{label} {values.get(label, 'None')}" for label, _ in OMR_KINDS.values())


def _baseline_labs(text: str) -> str:
    values = dict(part.split(" ", 1) for part in text.split(", "))
    return ", ".join(
        f"{name} {values.get(name, 'None') if values.get(name, 'None') == 'None' else stored(values[name])}"
        for name in BASELINE_ITEMS
    )


_FORMATS: dict[str, Callable[[str], str]] = {
    "triage": _vitals,
    "ed_vitals": _vitals,
    "omr": _omr,
    "baseline_labs": _baseline_labs,
}


def paper_field(name: str, value: str | None) -> str:
    """Section ``name``'s value as appendix I prints it ("None" or its placeholder when absent)."""
    if not value:
        return PLACEHOLDERS.get(name, "None")
    convert = _FORMATS.get(name)
    return convert(value) if convert else value
