"""``repeat: {seeds: [1, 2, 3]}`` on a study's task run: the run once per seed, named
``<run>-seed<seed>``, each seed set wherever the run has one — the build's ``seed`` (the patient
split), scoring's bootstrap seed and each system's ``seed`` option where its kind takes one — so the
leaderboard can show the mean and spread across seeds beside the bootstrap interval
(:mod:`admitdx.report.repeats`). A repeated run builds its own dataset: it is not ``from:`` another
run and has no ``llm_audit`` (one audit sample per seed would cost a model run each).
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, TypeVar

from admitdx.errors import UsageError
from admitdx.systems import registered
from admitdx.systems.config import SystemChoice

#: a study's TaskRun (admitdx.study.spec reads `repeat:` through this module, so no import back)
TaskRun = TypeVar("TaskRun")


def repeated(run: TaskRun, value: Any, where: str) -> list[TaskRun]:
    """The runs of ``run`` under its ``repeat:`` block ``value`` (the run itself without one);
    ``where`` names the study file in errors (exit 2 naming the key)."""
    if value is None:
        return [run]
    key = f"tasks.{run.name}.repeat"
    if not isinstance(value, dict) or set(value) - {"seeds"}:
        raise UsageError(
            f"{where}: {key} must be a mapping with one key, seeds", hint="repeat: {seeds: [1, 2, 3]}"
        )
    seeds = value.get("seeds")
    if not isinstance(seeds, list) or len(seeds) < 2 or len(set(map(repr, seeds))) != len(seeds):
        raise UsageError(f"{where}: {key}.seeds must list two or more different seeds", hint="e.g. [1, 2, 3]")
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in seeds):
        raise UsageError(f"{where}: {key}.seeds must be whole numbers (got {seeds!r})")
    if run.base is not None or run.llm_audit is not None:
        raise UsageError(f"{where}: {key} repeats a run that builds its own dataset and has no llm_audit")
    fields = {f.name for f in dataclasses.fields(run.params)}
    return [
        dataclasses.replace(
            run,
            name=f"{run.name}-seed{seed}",
            params=dataclasses.replace(run.params, seed=seed) if "seed" in fields else run.params,
            score=dataclasses.replace(run.score, seed=seed),
            systems=tuple(_seeded(choice, seed) for choice in run.systems),
            repeat_of=run.name,
        )
        for seed in seeds
    ]


def _seeded(choice: SystemChoice, seed: int) -> SystemChoice:
    """The system with ``seed`` when its kind takes a seed option, else unchanged."""
    if "seed" not in inspect.signature(registered()[choice.kind].factory).parameters:
        return choice
    return dataclasses.replace(choice, options={**choice.options, "seed": seed})
