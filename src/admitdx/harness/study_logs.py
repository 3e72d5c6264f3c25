"""A study file's harness systems (``{kind: inspect, log: logs/run.eval}``): their ``log:`` is a path
relative to the study file, as every path in it is. Kept apart from the replay system so that
reading a study file loads no harness or LLM code."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from admitdx.systems.config import RunConfig

INSPECT, LM_EVAL = "inspect", "lm-eval"


def anchored_logs(config: RunConfig, base: Path) -> RunConfig:
    """``config`` with each harness system's ``log:`` read relative to ``base`` (the study file's folder)."""
    systems = dict(config.systems)
    for name, choice in systems.items():
        log = choice.options.get("log")
        if choice.kind in (INSPECT, LM_EVAL) and isinstance(log, str):
            systems[name] = dataclasses.replace(choice, options={**choice.options, "log": str(base / log)})
    return dataclasses.replace(config, systems=systems)
