"""A task family: one benchmark whose tasks are registered as several specs, reached by one build
command that picks the spec by ``--task`` and by which source option was given.

ER-Reason's five tasks differ in answer kind, categories and suite, and a :class:`TaskSpec` has one
of each, so every (task, source) pair is its own spec (``er-reason-acuity``, ``er-reason-release-
planning``). The paper's command ``admitdx build er-reason --task acuity --erreason DIR`` is this
family's entry; the individual spec names keep working.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from admitdx.errors import UsageError
from admitdx.tasks.registry import add_once, registered
from admitdx.tasks.spec import TaskSpec

_FAMILIES: dict[str, TaskFamily] = {}


@dataclass(frozen=True)
class TaskFamily:
    """``members[task][source_option]`` is the spec that builds ``task`` from that source;
    ``unavailable[(task, source_option)]`` says why a pair has no spec (shown to the user)."""

    name: str
    summary: str
    example: str
    members: dict[str, dict[str, TaskSpec]]
    unavailable: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def tasks(self) -> tuple[str, ...]:
        return tuple(self.members)

    @property
    def source_options(self) -> tuple[str, ...]:
        """Every source option of any member, in first-seen order."""
        seen: dict[str, None] = {}
        for by_source in self.members.values():
            seen.update(dict.fromkeys(by_source))
        return tuple(seen)

    @property
    def specs(self) -> tuple[TaskSpec, ...]:
        return tuple(s for by_source in self.members.values() for s in by_source.values())

    def source_help(self, option: str) -> str:
        return next(s.source_help for s in self.specs if s.source_option == option)

    def spec_for(self, task: str, source_option: str) -> TaskSpec:
        """The member spec, or a usage error naming the tasks or saying why the pair is missing."""
        if task not in self.members:
            raise UsageError(
                f"{self.name}: unknown --task {task!r}", hint=f"--task is one of {', '.join(self.tasks)}"
            )
        by_source = self.members[task]
        if source_option not in by_source:
            why = self.unavailable.get((task, source_option), "")
            available = ", ".join(f"--{s}" for s in by_source)
            raise UsageError(
                f"{self.name} --task {task} cannot be built from --{source_option}"
                + (f": {why}" if why else ""),
                hint=f"build it from {available}",
            )
        return by_source[source_option]


def register_family(family: TaskFamily) -> TaskFamily:
    """Make ``family`` available as ``admitdx build <family.name> --task …``."""
    return add_once(_FAMILIES, family.name, family, "task family")


def families() -> dict[str, TaskFamily]:
    """Every family, by name (after loading the task packages that register them)."""
    registered()
    return dict(sorted(_FAMILIES.items()))
