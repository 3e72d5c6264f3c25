"""The field formats of the paper's appendix I, for ``--layout paper``.

Appendix I prints the authors' builder's formats: numbers as the table stores them ("HR52.0",
"acuity2.0", "creatinine 1.0"), SpO2 run together with its value ("SpO297.0"), outpatient
measurements without units, and placeholders where nothing was recorded ("Baseline (OMR): BP
None, Wt None, Ht None, BMI None", "creatinine None, hemoglobin None"). Only the four sections
whose format differs from the shared library's are re-rendered here; the others (demographics,
chief complaint, home meds, labs, ECG, echo, radiology) are the same in both layouts.

What stays a departure even in this layout (see the task README): a triage or vital field that was
not recorded is left out (their code prints ``HRnan``), lab results carry units and are cut at a
whole result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from admitdx.tasks.sections.baseline_labs import ITEMS as BASELINE_ITEMS
from admitdx.tasks.sections.omr import KINDS as OMR_KINDS
from admitdx.tasks.sections.options import TRIAGE_FIELDS, SectionOptions

_TRIAGE = (("T", "temperature"), ("HR", "heartrate"), ("RR", "resprate"), ("SpO2", "o2sat"))
_VITAL_LABELS = {
    "temperature": "T",
    "heartrate": "HR",
    "resprate": "RR",
    "o2sat": "SpO2",
    "sbp": "SBP",
    "dbp": "DBP",
}

#: A section with nothing recorded, as appendix I prints it (the section is still None in
#: Instance.sections and in the coverage figures: a placeholder is not evidence).
PLACEHOLDERS = {
    "omr": ", ".join(f"{label} None" for label, _ in OMR_KINDS.values()),
    "baseline_labs": ", ".join(f"{name} None" for name in BASELINE_ITEMS),
}


def stored(x: float | int | None) -> str:
    """A number as the source table holds it (a float column prints 52.0), None as "None"."""
    return "None" if x is None else repr(float(x))


def _triage(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    if v is None:
        return None
    v = {f: (v[f] if f in p.triage_fields else None) for f in TRIAGE_FIELDS}
    parts = [f"{label}{stored(v[f])}" for label, f in _TRIAGE if v[f] is not None]
    if v["sbp"] is not None or v["dbp"] is not None:
        parts.append(f"BP{stored(v['sbp'])}/{stored(v['dbp'])}")
    if v["acuity"] is not None:
        parts.append(f"acuity{stored(v['acuity'])}")
    return " ".join(parts) or None


def _ed_vitals(v: list[dict[str, Any]] | None, p: SectionOptions) -> str | None:
    if not v:
        return None
    fields = p.serial_vital_fields
    return " | ".join(" ".join(f"{_VITAL_LABELS[f]}{stored(r[f])}" for f in fields) for r in v)


def _omr(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    if not v or all(v[kind] is None for kind in OMR_KINDS):
        return None
    return ", ".join(
        f"{label} {v[kind]['value'] if v[kind] is not None else 'None'}"
        for kind, (label, _) in OMR_KINDS.items()
    )


def _baseline_labs(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    if v is None:
        return None
    return ", ".join(f"{name} {stored(v[name])}" for name in BASELINE_ITEMS)


RENDERERS: dict[str, Callable[[Any, SectionOptions], str | None]] = {
    "triage": _triage,
    "ed_vitals": _ed_vitals,
    "omr": _omr,
    "baseline_labs": _baseline_labs,
}
