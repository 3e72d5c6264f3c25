"""Metric suites by name; a task's spec names the suite that scores it."""

from __future__ import annotations

from admitdx.errors import UsageError
from admitdx.scoring.suites.base import Suite
from admitdx.scoring.suites.categories import CategorySuite
from admitdx.scoring.suites.clinibench import CliniBenchSuite
from admitdx.scoring.suites.earlydx import EarlyDxSuite
from admitdx.scoring.suites.final_diagnosis import FinalDiagnosisSuite
from admitdx.scoring.suites.text import TextSuite

SUITES: dict[str, Suite] = {
    s.name: s
    for s in (EarlyDxSuite(), CliniBenchSuite(), CategorySuite(), TextSuite(), FinalDiagnosisSuite())
}


def get_suite(name: str) -> Suite:
    if name not in SUITES:
        raise UsageError(f"unknown metric suite {name!r}", hint=f"suites: {', '.join(SUITES)}")
    return SUITES[name]
