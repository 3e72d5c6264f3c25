"""Every protocol choice of a scoring run (recorded in results.json and the manifest)."""

from __future__ import annotations

from dataclasses import dataclass

from admitdx.metrics import bootstrap, clinibench, subgroups

MIN_PATIENTS_FOR_SIGNIFICANCE = 30
"""Fewest patients on a track before a report marks a paired difference as significant.

A patient bootstrap over a handful of patients has few distinct resamples: with n = 4 patients
the paired differences take a few dozen values, ties at 0 are common and a p-value under 0.05 says
more about the resampling grid than about the systems. Below this many patients the p-values stay
in results.json but no report prints a significance mark, and the report says so."""


@dataclass(frozen=True)
class ScoreParams:
    """``matcher`` names the cached pairs to score for diagnosis tasks (None: the task's default;
    category and text tasks are scored without one)."""

    matcher: str | None = None
    split: str = "test"
    n_bootstrap: int = bootstrap.N_BOOTSTRAP
    confidence: float = bootstrap.CONFIDENCE
    seed: int = bootstrap.SEED
    skip_empty: bool = True
    suspected_weight: float = 0.0
    time_critical_track: str = "all"
    top_n: int = clinibench.TOP_N
    min_group_size: int = subgroups.MIN_GROUP_SIZE
    baseline: str | None = None
    #: score predictions made on the same inputs with other labels (e.g. a second audit); recorded
    allow_label_change: bool = False
    #: score a prediction run whose manifest says it did not finish (e.g. a --limit trial); recorded
    allow_incomplete: bool = False
    min_patients_for_significance: int = MIN_PATIENTS_FOR_SIGNIFICANCE
