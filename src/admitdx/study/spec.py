"""The study file: which data roots, tasks, systems, matchers and scoring options a study runs.

::

    out: runs/my-study              # where every stage writes (relative to this file); default: its stem
    data:                           # named EHR roots; a task reads one (default: the only one)
      mimic: /data/mimic-iv
    score: {seed: 7}                # scoring options of every task (`admitdx score` option names)
    tasks:
      earlydx:                      # the run's name: its folder under out/
        task: earlydx               # a registered task (`admitdx tasks`); default: the run's name
        set: {window_hours: 6}      # build parameters, as `admitdx build earlydx --set`
        audit: rules                # EarlyDx: the rule-based evidence audit before any system
        matcher: embedding          # default: the task's own; matcher_set: {threshold: 0.6}
        systems: [frequency, gpt]   # default: every system below
        subset: 20                  # only the first N test instances (a documented subset)
        score: {n_bootstrap: 200}   # on top of the study's score options
    systems:                        # exactly as `admitdx predict --config`
      gpt: {kind: llm, base_url: "http://localhost:8000/v1", model: my-model}
    allow_hosts: []                 # as `admitdx predict --config`

Every error names the file and the key, and stops with exit code 2.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from admitdx.errors import UsageError
from admitdx.scoring.params import ScoreParams
from admitdx.systems.config import RunConfig, SystemChoice, parse_config
from admitdx.tasks.registry import get_task, registered
from admitdx.tasks.spec import TaskSpec
from admitdx.yaml_reader import load_yaml

STUDY_KEYS = {"out", "data", "score", "tasks", "systems", "allow_hosts"}
TASK_KEYS = {"task", "data", "set", "audit", "matcher", "matcher_set", "systems", "subset", "score"}
AUDITORS = ("rules",)


@dataclass(frozen=True)
class TaskRun:
    """One task of a study: its build, the systems it runs, how it is matched and scored."""

    name: str
    spec: TaskSpec
    source: Path
    params: Any  # the spec's params dataclass
    systems: tuple[SystemChoice, ...]
    score: ScoreParams
    audit: str | None = None
    matcher: str | None = None  # None: the task's own (or none, for category and text tasks)
    matcher_options: dict[str, Any] = field(default_factory=dict)
    subset: int | None = None


@dataclass(frozen=True)
class Study:
    path: Path
    out: Path
    tasks: tuple[TaskRun, ...]
    config: RunConfig

    @property
    def system_names(self) -> list[str]:
        """Every system in the order it first appears (the leaderboard's rows, and its colours)."""
        names: dict[str, None] = {}
        for task in self.tasks:
            names.update(dict.fromkeys(s.name for s in task.systems))
        return list(names)


def load_study(path: Path) -> Study:
    """Read and check a study file; relative paths in it are relative to the file."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"study file {path} does not exist")
    data = load_yaml(path.read_text(encoding="utf-8"), str(path)) or {}
    where = str(path)
    _mapping(data, where, "the top level")
    _known(data, STUDY_KEYS, where, "")
    config = parse_config(data, where)
    base = path.resolve().parent
    roots = {str(k): base / str(v) for k, v in _mapping(data.get("data") or {}, where, "data").items()}
    for name, root in roots.items():
        if not root.is_dir():
            raise UsageError(
                f"{where}: data.{name}: {root} is not a directory", hint="the folder with hosp/ and ed/"
            )
    score = _mapping(data.get("score") or {}, where, "score")
    tasks = _mapping(data.get("tasks"), where, "tasks")
    if not tasks:
        raise UsageError(f"{where}: `tasks` names no task", hint="e.g. tasks: {earlydx: {data: mimic}}")
    runs = tuple(_task(str(n), b or {}, where, roots, config, score) for n, b in tasks.items())
    out = base / str(data.get("out") or path.stem)
    return Study(path, out, runs, config)


def _task(
    name: str,
    block: Any,
    where: str,
    roots: dict[str, Path],
    config: RunConfig,
    study_score: dict[str, Any],
) -> TaskRun:
    key = f"tasks.{name}"
    block = _mapping(block, where, key)
    _known(block, TASK_KEYS, where, f"{key}.")
    task_name = str(block.get("task", name))
    if task_name not in registered():
        raise UsageError(
            f"{where}: {key}.task {task_name!r} is not a registered task",
            hint=f"one of: {', '.join(registered())}",
        )
    spec = get_task(task_name)
    source = _root(block.get("data"), roots, where, key)
    names = block.get("systems") or list(config.systems)
    if not names:
        raise UsageError(f"{where}: {key} runs no system", hint="list some under `systems:`")
    systems = tuple(config.choose(str(s)) for s in names)
    audit = block.get("audit")
    if audit is not None and (audit not in AUDITORS or spec.answer != "diagnoses"):
        raise UsageError(f"{where}: {key}.audit must be one of {AUDITORS}, for a diagnosis task only")
    subset = block.get("subset")
    if subset is not None and (not isinstance(subset, int) or subset < 1):
        raise UsageError(f"{where}: {key}.subset must be a positive number of test instances")
    score_values = {**study_score, **_mapping(block.get("score") or {}, where, f"{key}.score")}
    return TaskRun(
        name=name,
        spec=spec,
        source=source,
        params=task_params(spec, _mapping(block.get("set") or {}, where, f"{key}.set"), where, key),
        systems=systems,
        score=_score_params(score_values, where, key),
        audit=audit,
        matcher=block.get("matcher"),
        matcher_options=_mapping(block.get("matcher_set") or {}, where, f"{key}.matcher_set"),
        subset=subset,
    )


def task_params(spec: TaskSpec, values: dict[str, Any], where: str, key: str) -> Any:
    """The task's params dataclass from a ``set:`` mapping: a YAML list becomes the tuple the field
    holds, and an unknown name is an error that lists the known ones (as ``admitdx build --set``)."""
    fields = {f.name for f in dataclasses.fields(spec.params) if f.init}
    unknown = sorted(set(values) - fields)
    if unknown:
        raise UsageError(
            f"{where}: {key}.set: {', '.join(unknown)} is not a parameter of {spec.name}",
            hint=f"parameters: {', '.join(sorted(fields))}",
        )
    hints = typing.get_type_hints(spec.params)
    tuples = {n for n in fields if typing.get_origin(hints[n]) is tuple}
    values = {k: tuple(v) if k in tuples and isinstance(v, list) else v for k, v in values.items()}
    try:
        return spec.make_params(**values)
    except (TypeError, ValueError) as e:
        raise UsageError(f"{where}: {key}.set: {e}") from e


def _score_params(values: dict[str, Any], where: str, key: str) -> ScoreParams:
    known = {f.name for f in dataclasses.fields(ScoreParams)} - {"matcher"}  # a task's own `matcher:` key
    named = {k.replace("-", "_"): v for k, v in values.items()}
    unknown = sorted(set(named) - known)
    if unknown:
        raise UsageError(
            f"{where}: {key}.score: unknown option(s) {', '.join(unknown)}",
            hint=f"options: {', '.join(sorted(known))}",
        )
    if isinstance(named.get("length_bins"), list):
        named["length_bins"] = tuple(named["length_bins"])
    try:
        return ScoreParams(**named)
    except (TypeError, ValueError) as e:
        raise UsageError(f"{where}: {key}.score: {e}") from e


def _root(name: Any, roots: dict[str, Path], where: str, key: str) -> Path:
    if name is None and len(roots) == 1:
        return next(iter(roots.values()))
    if name is None or str(name) not in roots:
        raise UsageError(
            f"{where}: {key}.data must name one of the study's data roots",
            hint=f"roots under `data:`: {', '.join(roots) or 'none'}",
        )
    return roots[str(name)]


def _mapping(value: Any, where: str, key: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise UsageError(f"{where}: {key} must be a mapping")
    return value


def _known(block: dict[str, Any], keys: set[str], where: str, prefix: str) -> None:
    unknown = sorted(set(block) - keys)
    if unknown:
        raise UsageError(
            f"{where}: unknown key(s) {', '.join(prefix + str(k) for k in unknown)}",
            hint=f"known keys: {', '.join(sorted(keys))}",
        )
