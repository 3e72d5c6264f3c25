"""Demographics and arrival mode (§3.2 i): sex, age at t0, race, where the admission came from,
how the patient arrived.

Following the authors' builder: sex from ``patients.gender``, race and admission location from
``admissions``, arrival from ``edstays.arrival_transport``. Age is the age at admission
(``anchor_age + year(t0) − anchor_year``, MIMIC's documented formula), as their current builder
(head b79ac61) computes it too; an older commit printed the bare ``anchor_age``, which can be off by
up to a decade for a patient with many visits. ``age_format`` "joined" prints "61yo" as they do.
"""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, missing_text
from admitdx.tasks.sections.options import SectionOptions


def _sql(p: SectionOptions, src: MimicSource) -> str:
    return """
        SELECT stay_id, struct_pack(sex, age, race, admission_location, arrival) AS v
        FROM cohort
    """


def _render(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    if v is None:
        return None
    gap = " " if p.age_format == "spaced" else ""
    age = f"{v['age']}{gap}yo" if v["age"] is not None else "age None"
    missing = missing_text(p)
    where = f"From {v['admission_location'] or missing}, arrival {v['arrival'] or missing}."
    return f"{v['sex'] or missing}, {age}, {v['race'] or missing}. {where}"


SECTION = Section("demographics", "Demographics", _sql, _render)
