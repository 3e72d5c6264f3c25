"""What every evidence section is: a DuckDB query over the cohort and a renderer.

A section's ``sql`` returns ``SELECT stay_id, <value> AS v ...`` with one row per cohort stay that
has evidence (a struct or a list of structs); the builder materialises it as a temporary table and
joins all of them to the cohort in one streamed query. ``render`` turns one ``v`` (or None) into the
section's text, or None when nothing qualifies. All filtering, joining and windowing happens in
SQL; Python only formats one encounter at a time.

The cohort table the queries read (built by :mod:`admitdx.tasks.earlydx.cohort`) has
``stay_id, subject_id, hadm_id, ed_intime, t0, cutoff`` where ``cutoff = t0 + W hours``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.options import SectionOptions

SqlFn = Callable[[SectionOptions, MimicSource], str | None]
RenderFn = Callable[[Any, SectionOptions], str | None]


@dataclass(frozen=True)
class Section:
    """One named evidence field: ``header`` is how it is introduced in the serialized input."""

    name: str
    header: str
    sql: SqlFn
    render: RenderFn


def num(x: float | int | None) -> str:
    """A number as a clinician writes it: 52 not 52.0, 97.8 stays 97.8; None for missing."""
    if x is None:
        return "None"
    return f"{float(x):g}"


def stored(x: float | str) -> str:
    """A number as pandas prints a float column's value: 80 → "80.0", "97.3" → "97.3"."""
    return repr(float(x))


def missing_text(p: SectionOptions) -> str:
    """How a field that was not recorded reads: "None", or "nan" as the EarlyDx authors' pandas
    prints a missing value (``field_format`` "pandas")."""
    return "nan" if p.field_format == "pandas" else "None"


def event_time(p: SectionOptions, alias: str) -> str:
    """The timestamp a lab result or radiology report is windowed on (appendix D): when it was
    charted (drawn / performed) or, under storetime semantics, when it became readable."""
    return f"CAST({alias}.{p.timestamps} AS TIMESTAMP)"


def require(src: MimicSource, *tables: str) -> bool:
    """True when every table exists; a section whose source module is absent renders as None."""
    return all(src.has(t) for t in tables)
