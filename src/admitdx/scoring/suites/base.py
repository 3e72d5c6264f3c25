"""What a metric suite is: given the evaluated instances and one system's predictions, the suite's
numbers (point values, bootstrap replicates of its headline metrics, per-instance records).

The run (:mod:`admitdx.scoring.run`) owns what every suite shares: loading, the patient bootstrap
draws (one resample matrix for every system, so paired tests compare like with like), p-values
against the baseline, and writing files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from admitdx.contracts import Instance
from admitdx.scoring.inputs import SystemInput
from admitdx.scoring.params import ScoreParams
from admitdx.tasks.spec import TaskSpec

#: advance(done, total): encounters scored so far (``total`` once, first; else 0).
Advance = Callable[[int, int], None]


@dataclass(frozen=True)
class RunContext:
    """What every system of one run is scored against."""

    task: TaskSpec
    instances: Sequence[Instance]  # the evaluated split
    train: Sequence[Instance]  # the training split (label frequencies, tertiles)
    subjects: Sequence[int]  # per evaluated instance
    order: np.ndarray  # the distinct subjects, in bootstrap column order
    weights: np.ndarray  # (replicates × subjects) draw counts, shared by all systems
    params: ScoreParams


@dataclass
class SystemScore:
    """A suite's part of one system's entry in results.json."""

    fields: dict[str, Any]  # "metrics" ({name: {value, ci}}) and any suite-specific blocks
    replicates: dict[str, np.ndarray]  # headline metric → replicate values (paired tests)
    records: list[dict[str, Any]] = field(default_factory=list)  # per_instance.jsonl rows


class Suite(Protocol):
    name: str
    needs_matcher: bool

    def prepare(self, ctx: RunContext) -> dict[str, Any]:
        """Run-level fields of results.json (e.g. EarlyDx's tracks); may refuse the run's params."""

    def score_system(
        self, ctx: RunContext, run: dict[str, Any], system: SystemInput, advance: Advance | None
    ) -> SystemScore: ...

    # Optional: ``compare(baseline_entry, other_entry) -> dict`` adds suite-specific fields to
    # ``vs_baseline`` beyond the paired p-values (EarlyDx: per-condition F1 changes).
    # Optional: ``forkable = True`` lets the run score systems in forked worker processes
    # (admitdx.scoring.parallel): score_system must leave ``run`` and the context unchanged (a
    # worker's changes never reach the parent) and must not rely on threads or open connections.
