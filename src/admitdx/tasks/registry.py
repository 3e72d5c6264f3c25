"""The task registry: every package under ``admitdx.tasks`` that has a ``spec`` module registers
its :class:`~admitdx.tasks.spec.TaskSpec` there, so adding a task touches no central list."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from admitdx.contracts import INSTANCES_FILE, Instance
from admitdx.errors import InputError, UsageError
from admitdx.tasks.spec import TaskSpec

_REGISTRY: dict[str, TaskSpec] = {}
T = TypeVar("T")


def register(spec: TaskSpec) -> TaskSpec:
    """Make ``spec`` available as ``admitdx build <name>`` and to every later stage."""
    return add_once(_REGISTRY, spec.name, spec, "task")


def add_once(table: dict[str, T], name: str, item: T, kind: str) -> T:
    """Put ``item`` under ``name``; a second, different item of that name is a programming error."""
    if name in table and table[name] is not item:
        raise ValueError(f"{kind} {name!r} registered twice")
    table[name] = item
    return item


def registered() -> dict[str, TaskSpec]:
    """Every task, by name (importing each task package's ``spec`` module on first use)."""
    _load_task_packages()
    return dict(sorted(_REGISTRY.items()))


def get_task(name: str) -> TaskSpec:
    """The spec of task ``name``; a dataset of an unknown task is refused, not scored as another."""
    tasks = registered()
    if name not in tasks:
        raise UsageError(
            f"unknown task {name!r}", hint=f"`admitdx tasks` lists them: {', '.join(tasks) or 'none'}"
        )
    return tasks[name]


def task_of(dataset_dir: Path, instances: Sequence[Instance]) -> TaskSpec:
    """The one task a dataset directory's instances belong to (a directory holds one task)."""
    tasks = sorted({i.task for i in instances})
    if len(tasks) != 1:
        raise InputError(
            f"{dataset_dir} holds instances of {len(tasks)} tasks ({', '.join(tasks) or 'none'})",
            table=INSTANCES_FILE,
            column="task",
            hint="a dataset directory holds one task: predict and score each task's dataset separately",
        )
    return get_task(tasks[0])


def _load_task_packages() -> None:
    package = Path(__file__).parent
    for module in pkgutil.iter_modules([str(package)]):
        if module.ispkg and (package / module.name / "spec.py").is_file():
            importlib.import_module(f"admitdx.tasks.{module.name}.spec")
