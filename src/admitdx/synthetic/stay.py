"""One ED stay's times and identifiers, which the encounter writer and the triage writer share."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass
class Stay:
    """Times and identifiers of one ED stay."""

    stay_id: int
    hadm_id: int | None
    intime: datetime
    t0: datetime  # admittime; the ED departure for a stay that was not admitted
    outtime: datetime
    version: int
    cc: str
