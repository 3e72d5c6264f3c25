"""One vocabulary of counts for every page of a run or study (issue 34: one subset run showed 20,
18, 11, "20 of 139" and 120 against 139, and no page said which was which).

- **built**: the instances a build wrote, every split;
- **benchmark set**: the test instances the protocol evaluates (EarlyDx §4.1 leaves out the
  encounters whose labels the audit found all unsupported; other tasks: the whole test split);
- **subset**: the first N of the benchmark set that a run predicts (a study's ``subset:``);
- **scored**: the instances a number rests on: every instance of the run for most metrics, the
  encounters with a label on the track for an EarlyDx track metric.

A trial or subset says ``n scored of N in the benchmark set``.
"""

from __future__ import annotations

LEGEND: tuple[tuple[str, str], ...] = (
    ("built", "instances the build wrote, every split"),
    (
        "benchmark set",
        "the test instances the protocol evaluates (EarlyDx: without the encounters whose labels the "
        "audit found all unsupported)",
    ),
    ("subset", "the first N of the benchmark set that a run predicts"),
    (
        "scored (n)",
        "the instances a number rests on (an EarlyDx track's number: the encounters with a label on that "
        "track)",
    ),
)


def scored_of(n: int, total: int) -> str:
    """``20 scored of 120 in the benchmark set``."""
    return f"{n} scored of {total} in the benchmark set"


def predicted_of(n: int, total: int) -> str:
    """``5 predicted of 6 in the benchmark set`` (a ``--limit`` run: the rest are scored as empty)."""
    return f"{n} predicted of {total} in the benchmark set"
