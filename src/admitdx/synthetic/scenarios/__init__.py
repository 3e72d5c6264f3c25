"""The scenario library: ED presentations by organ system, each one data (see ``base.py``)."""

from __future__ import annotations

from admitdx.synthetic.scenarios import (
    cardiac,
    digestive,
    infection,
    injury,
    neuro,
    other,
    renal_metabolic,
    respiratory,
)
from admitdx.synthetic.scenarios.base import Dx, Scenario

SCENARIOS: tuple[Scenario, ...] = (
    cardiac.SCENARIOS
    + neuro.SCENARIOS
    + respiratory.SCENARIOS
    + digestive.SCENARIOS
    + renal_metabolic.SCENARIOS
    + infection.SCENARIOS
    + injury.SCENARIOS
    + other.SCENARIOS
)
BY_KEY = {s.key: s for s in SCENARIOS}

# Over-generic titles an ED coder sometimes adds; the EarlyDx label filter must remove them.
GENERIC_CODES: tuple[tuple[str, str], ...] = (("N289", "5939"), ("K929", "5699"), ("J988", "5198"))

__all__ = ["BY_KEY", "GENERIC_CODES", "SCENARIOS", "Dx", "Scenario"]
