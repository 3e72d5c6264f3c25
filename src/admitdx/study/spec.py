"""The study file: which data roots, tasks, systems, matchers and scoring options a study runs.

::

    out: runs/my-study              # where every stage writes (relative to this file); default: its stem
    title: My study                 # the leaderboard's title; default: the file's stem
    lanes: 2                        # task runs at once (threads; e.g. one per core for local models)
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
        repeat: {seeds: [1, 2, 3]}  # once per seed (split, bootstrap, systems' seeds): mean and spread
        llm_audit: {system: gpt, instances: 8}  # EarlyDx: the LLM auditor on the first test encounters
      earlydx-gpt:
        from: earlydx               # predict on that earlier run's dataset (its build and audit)
        subset: 20
        systems: [frequency, gpt]
        judge: {matcher: llm_judge, systems: [gpt]}  # a second matcher and its agreement with the first
    systems:                        # exactly as `admitdx predict --config`
      gpt: {kind: llm, base_url: "http://localhost:8000/v1", model: my-model}
    allow_hosts: []                 # as `admitdx predict --config`

The whole file is checked before any work (:mod:`admitdx.study.validate`): every system, used by a
task or not, every option, matcher and score option, every name (:mod:`admitdx.study.names`: a task
run's or a system's name is a folder under ``out:``). Every error names the file, the key path and
the value, and stops with exit code 2.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from admitdx.errors import UsageError
from admitdx.harness.study_logs import anchored_logs
from admitdx.scoring.params import ScoreParams
from admitdx.study.names import check_name, check_out, check_runs_apart
from admitdx.study.repeat import repeated
from admitdx.study.validate import calls_a_model, check_matcher, check_systems, score_params
from admitdx.systems import require_answer
from admitdx.systems.config import RunConfig, SystemChoice, parse_config
from admitdx.tasks.registry import get_task, registered
from admitdx.tasks.spec import TaskSpec
from admitdx.typed_options import check_settings, hints_of
from admitdx.yaml_reader import read_yaml_file

STUDY_KEYS = {"out", "title", "lanes", "data", "score", "tasks", "systems", "allow_hosts"}
TASK_KEYS = {"task", "from", "data", "set", "audit", "llm_audit", "matcher", "matcher_set", "judge"}
TASK_KEYS |= {"systems", "subset", "score", "repeat"}
BUILD_KEYS = ("task", "data", "set", "audit", "llm_audit")  # a `from:` run inherits these
AUDITORS = ("rules",)


@dataclass(frozen=True)
class LLMAudit:
    """The LLM auditor (``llm_audit:``) on the first ``instances`` test encounters of a built
    diagnosis dataset, with a named system's model: a sample that checks the auditor against the
    rule-based one (and a synthetic root's ``_truth/``) without paying for the whole test split."""

    system: SystemChoice
    instances: int


@dataclass(frozen=True)
class Judge:
    """A second matcher (``judge:``) over some systems' predictions, and its agreement with the
    task's matcher (EarlyDx §3.5), shown in the report; the scores keep the task's matcher."""

    matcher: str
    systems: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)


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
    base: str | None = None  # `from:` the run whose dataset this one predicts on
    llm_audit: LLMAudit | None = None
    judge: Judge | None = None
    repeat_of: str | None = None  # `repeat:` the run this one repeats with another seed


@dataclass(frozen=True)
class Study:
    path: Path
    out: Path
    tasks: tuple[TaskRun, ...]
    config: RunConfig
    title: str = ""
    lanes: int = 1
    #: SHA-256 of the study file's bytes (or, for a study made from data, of its canonical JSON):
    #: recorded in ``<out>/study.json`` (:mod:`admitdx.study.identity`)
    digest: str = ""

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
    return read_study(read_yaml_file(path) or {}, path, hashlib.sha256(path.read_bytes()).hexdigest())


def read_study(data: Any, path: Path, digest: str | None = None) -> Study:
    """A study from the file's parsed ``data`` (``admitdx demo`` sets its options in the shipped
    file's data first); ``path`` names the file in errors and anchors relative paths; ``digest``
    identifies the study (default: the SHA-256 of ``data`` as canonical JSON)."""
    where = str(path)
    if digest is None:
        canonical = json.dumps(data, sort_keys=True, default=str, ensure_ascii=False)
        digest = hashlib.sha256(canonical.encode()).hexdigest()
    _mapping(data, where, "the top level")
    _known(data, STUDY_KEYS, where, "")
    base = path.resolve().parent
    config = anchored_logs(parse_config(data, where), base)  # a harness system's `log:`: relative to the file
    for name in config.systems:
        check_name(name, where, f"systems.{name}")
    check_systems(config, where)
    roots = {str(k): base / str(v) for k, v in _mapping(data.get("data") or {}, where, "data").items()}
    for name, root in roots.items():
        if not root.is_dir():
            raise UsageError(
                f"{where}: data.{name}: {root} is not a directory", hint="the folder with hosp/ and ed/"
            )
    score = _mapping(data.get("score") or {}, where, "score")
    score_params(score, {}, None, where, "")
    tasks = _mapping(data.get("tasks"), where, "tasks")
    if not tasks:
        raise UsageError(f"{where}: `tasks` names no task", hint="e.g. tasks: {earlydx: {data: mimic}}")
    lanes = data.get("lanes", 1)
    if not _count(lanes):
        raise UsageError(
            f"{where}: lanes: {lanes!r} is not a positive whole number of task runs at once",
            hint="e.g. lanes: 2",
        )
    out = base / str(data.get("out") or path.stem)
    check_out(out, roots.values(), where)
    runs: dict[str, TaskRun] = {}
    for n, b in tasks.items():
        run = _task(check_name(str(n), where, f"tasks.{n}"), b or {}, where, roots, config, score, runs)
        for seeded in repeated(run, (b or {}).get("repeat"), where):
            runs[check_name(seeded.name, where, f"tasks.{n}.repeat")] = seeded
    check_runs_apart(out, runs, roots.values(), where)
    title = str(data.get("title") or path.stem)
    return Study(path, out, tuple(runs.values()), config, title, lanes, digest)


def _task(
    name: str,
    block: Any,
    where: str,
    roots: dict[str, Path],
    config: RunConfig,
    study_score: dict[str, Any],
    earlier: dict[str, TaskRun],
) -> TaskRun:
    key = f"tasks.{name}"
    block = _mapping(block, where, key)
    _known(block, TASK_KEYS, where, f"{key}.")
    base = earlier.get(str(block["from"])) if "from" in block else None
    if "from" in block:
        inherited = sorted(k for k in BUILD_KEYS if k in block)
        if base is None or base.base is not None or inherited:
            raise UsageError(
                f"{where}: {key}.from must name an earlier task run that builds its own dataset, and "
                f"then {key} sets none of {', '.join(BUILD_KEYS)}",
                hint=f"earlier runs: {', '.join(earlier) or 'none'}",
            )
    task_name = base.spec.name if base else str(block.get("task", name))
    if task_name not in registered():
        raise UsageError(
            f"{where}: {key}.task {task_name!r} is not a registered task",
            hint=f"one of: {', '.join(registered())}",
        )
    spec = get_task(task_name)
    systems = _systems(block.get("systems"), config, where, key)
    for system in systems:  # the whole study is refused before any work, naming both
        require_answer(system.kind, spec, system.name, where=f"{where}: {key}.systems: ")
    audit = block.get("audit")
    if audit is not None and (audit not in AUDITORS or spec.answer != "diagnoses"):
        raise UsageError(f"{where}: {key}.audit must be one of {AUDITORS}, for a diagnosis task only")
    subset = block.get("subset")
    if subset is not None and not _count(subset):
        raise UsageError(f"{where}: {key}.subset: {subset!r} is not a positive number of test instances")
    own_score = _mapping(block.get("score") or {}, where, f"{key}.score")
    matcher = block.get("matcher")
    matcher_options = _mapping(block.get("matcher_set") or {}, where, f"{key}.matcher_set")
    if matcher is not None or matcher_options:
        if not spec.needs_matcher:
            raise UsageError(
                f"{where}: {key}.matcher: task {spec.name} is scored without a matcher (its answers are "
                f"{spec.answer}), so {matcher!r} would never be used",
                hint=f"leave matcher{' and matcher_set' if matcher_options else ''} out of {key}",
            )
        check_matcher(matcher or spec.matcher, matcher_options, config.allow_hosts, where, key)
    if base is not None:
        source, params = base.source, base.params
    else:
        source = _root(block.get("data"), roots, where, key)
        params = task_params(spec, _mapping(block.get("set") or {}, where, f"{key}.set"), where, key)
    return TaskRun(
        name=name,
        spec=spec,
        source=source,
        params=params,
        systems=systems,
        score=score_params(study_score, own_score, spec, where, f"{key}."),
        audit=audit,
        matcher=matcher,
        matcher_options=matcher_options,
        subset=subset,
        base=base.name if base else None,
        llm_audit=_llm_audit(block.get("llm_audit"), spec, config, where, key),
        judge=_judge(block.get("judge"), spec, systems, config, where, key),
    )


def _systems(names: Any, config: RunConfig, where: str, key: str) -> tuple[SystemChoice, ...]:
    """A run's ``systems:``: a list of names under the study's ``systems:`` or registered kinds."""
    if names is None:
        names = list(config.systems)
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise UsageError(
            f"{where}: {key}.systems: {names!r} is not a list of system names",
            hint=f"e.g. systems: [{names}]" if isinstance(names, str) else "e.g. systems: [frequency, gpt]",
        )
    if not names:
        raise UsageError(f"{where}: {key} runs no system", hint="list some under `systems:`")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"{where}: {key}.systems names {', '.join(twice)} twice")
    chosen = []
    for name in names:
        try:
            chosen.append(config.choose(name))
        except UsageError as e:
            raise UsageError(f"{where}: {key}.systems: {e.message}", hint=e.hint) from e
    return tuple(chosen)


def _llm_audit(value: Any, spec: TaskSpec, config: RunConfig, where: str, key: str) -> LLMAudit | None:
    if value is None:
        return None
    block = _mapping(value, where, f"{key}.llm_audit")
    _known(block, {"system", "instances"}, where, f"{key}.llm_audit.")
    name, n = block.get("system"), block.get("instances")
    models = [s for s, c in config.systems.items() if calls_a_model(c)]
    if spec.answer != "diagnoses" or name not in models or not _count(n):
        raise UsageError(
            f"{where}: {key}.llm_audit needs a diagnosis task, `system:` (a system under `systems:` whose "
            "model audits: one of a kind that calls a model) and `instances:` (a positive number of "
            f"test encounters); got system {name!r}, instances {n!r}",
            hint=f"systems that call a model: {', '.join(models) or 'none'}",
        )
    return LLMAudit(config.systems[name], n)


def _judge(
    value: Any, spec: TaskSpec, systems: tuple[SystemChoice, ...], config: RunConfig, where: str, key: str
) -> Judge | None:
    if value is None:
        return None
    block = _mapping(value, where, f"{key}.judge")
    _known(block, {"matcher", "systems", "matcher_set"}, where, f"{key}.judge.")
    names = [s.name for s in systems]
    judged = block.get("systems") or names
    if (
        not spec.needs_matcher
        or not block.get("matcher")
        or not isinstance(judged, list)
        or not set(map(str, judged)) <= set(names)
    ):
        raise UsageError(
            f"{where}: {key}.judge needs a task scored through a matcher, `matcher:` and, as "
            f"`systems:`, a list of some of the run's systems; got systems {judged!r}",
            hint=f"the run's systems: {', '.join(names)}",
        )
    options = _mapping(block.get("matcher_set") or {}, where, f"{key}.judge.matcher_set")
    check_matcher(block["matcher"], options, config.allow_hosts, where, f"{key}.judge")
    return Judge(str(block["matcher"]), tuple(map(str, judged)), options)


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
    check_settings(values, hints_of(spec.params), f"task {spec.name}", f"{where}: {key}.set")
    values = {k: tuple(v) if k in tuples and isinstance(v, list) else v for k, v in values.items()}
    try:
        return spec.make_params(**values)
    except (TypeError, ValueError) as e:
        raise UsageError(f"{where}: {key}.set: {e}") from e


def _root(name: Any, roots: dict[str, Path], where: str, key: str) -> Path:
    if name is None and len(roots) == 1:
        return next(iter(roots.values()))
    if name is None or str(name) not in roots:
        raise UsageError(
            f"{where}: {key}.data must name one of the study's data roots",
            hint=f"roots under `data:`: {', '.join(roots) or 'none'}",
        )
    return roots[str(name)]


def _count(value: Any) -> bool:
    """A positive whole number, and not a boolean (YAML's ``yes`` is ``True``, which Python counts
    as 1: ``subset: yes`` would have scored one instance)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


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
