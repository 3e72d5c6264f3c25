"""Every protocol choice of a scoring run (recorded in results.json and the manifest)."""

from __future__ import annotations

from dataclasses import dataclass

from admitdx.metrics import bootstrap, clinibench, subgroups


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
