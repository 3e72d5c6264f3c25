"""What a benchmark task is: a :class:`TaskSpec` registered by the task's own package.

A spec ties together everything the stages after the build need to know about a task, so that no
stage has to guess from the data: how to build it (parameters dataclass + build function), what a
system must answer (a ranked diagnosis list, one category of a fixed set, or a text), which field
of an :class:`~admitdx.contracts.Instance` holds the gold answer and which ``meta`` fields would
give it away, the default prompt and matcher, and the metric suite that scores it.

Adding a task: create ``tasks/<name>/`` with a params dataclass, a build function and a
``spec.py`` that calls :func:`admitdx.tasks.registry.register` (see ``tasks/README.md``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa

from admitdx.contracts import Instance

AnswerKind = Literal["diagnoses", "category", "text"]
ANSWER_KINDS: tuple[AnswerKind, ...] = ("diagnoses", "category", "text")

#: progress(stage, done, total) as a build runs (stage names are the task's own).
Progress = Callable[[str, int, int], None]
#: build(source_dir, out_dir, params, *, split_file, progress, memory_limit, force) -> manifest outputs.
BuildFn = Callable[..., dict[str, Any]]


def param(default: Any, help: str) -> Any:
    """A parameter field with its default (the paper's value) and the help the CLI shows for it."""
    return dataclasses.field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class ExtraOption:
    """A command-line convenience that is not itself a parameter (a comma-separated list handed
    to the params class's ``from_cli``), e.g. EarlyDx's ``--keep-sections``."""

    name: str
    help: str


@dataclass(frozen=True)
class TaskSpec:
    """One registered benchmark task.

    ``answer`` decides the target field: ``diagnoses`` tasks carry gold labels in
    ``Instance.references`` and are scored through a matcher; ``category`` and ``text`` tasks carry
    the gold answer in ``Instance.target`` and are scored directly (no matcher). ``leaky_meta``
    names ``meta`` fields that are this task's or a sibling task's target; the runner removes them
    with the target before a system sees an instance. ``ordinal`` says the categories are listed
    in order (e.g. ESI 1 to 5, most urgent first), which adds under- and over-triage rates.
    """

    name: str
    summary: str
    params: type
    build: BuildFn
    answer: AnswerKind
    suite: str
    schema: pa.Schema  # of instances.parquet (tasks.dataset_writer.instance_schema)
    source_option: str = "mimic"
    source_help: str = "MIMIC-IV root: hosp/, ed/ (note/, ecg/, echo/ if present)."
    categories: tuple[str, ...] = ()
    ordinal: bool = False
    leaky_meta: tuple[str, ...] = ()
    prompt_dir: Path | None = None
    prompt: str | None = None
    matcher: str | None = None
    example: str = ""
    extra_options: tuple[ExtraOption, ...] = ()
    report_build: Callable[[dict[str, Any], Any], list[str]] | None = None
    #: a multi-part text task whose parts the paper asks in a call each, with their own inputs:
    #: an instance's sections → {part: record} (admitdx.systems.part_calls)
    part_records: Callable[[dict[str, str | None]], dict[str, str]] | None = None

    def make_params(self, **values: Any) -> Any:
        """The params dataclass from option values (through ``from_cli`` where the class has one)."""
        return getattr(self.params, "from_cli", self.params)(**values)

    def __post_init__(self) -> None:
        if self.answer not in ANSWER_KINDS:
            raise ValueError(f"task {self.name}: answer kind must be one of {ANSWER_KINDS}")
        if self.answer == "category" and not self.categories:
            raise ValueError(f"task {self.name}: a category task must list its categories")
        if self.answer != "diagnoses" and self.matcher is not None:
            raise ValueError(f"task {self.name}: only diagnosis tasks are matched")
        if not dataclasses.is_dataclass(self.params):
            raise ValueError(f"task {self.name}: params must be a dataclass")

    @property
    def target_field(self) -> str:
        """The Instance field that holds the gold answer."""
        return "references" if self.answer == "diagnoses" else "target"

    @property
    def needs_matcher(self) -> bool:
        return self.answer == "diagnoses"

    def without_target(self, instance: Instance) -> Instance:
        """The instance as a system may see it: no gold answer, no leaky meta field."""
        meta = {k: v for k, v in instance.meta.items() if k not in self.leaky_meta}
        return dataclasses.replace(instance, references=[], target=None, meta=meta)
