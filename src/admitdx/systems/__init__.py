"""Everything that predicts: baselines, classifiers and prompted LLMs, registered by name.

A system is built from options, fitted on the training split (a no-op for zero-shot LLMs), and
yields one :class:`~admitdx.contracts.Prediction` per test instance, in any order, as each
completes; the runner appends them to ``predictions.jsonl`` and skips finished instances on resume.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from admitdx.contracts import Instance, Prediction
from admitdx.errors import UsageError

if TYPE_CHECKING:
    from admitdx.tasks.spec import AnswerKind, TaskSpec


class System(Protocol):
    name: str

    def fit(self, train: list[Instance]) -> None:
        """Learn from training instances (their references included). Never sees test labels."""

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        """Yield a prediction per instance (any order). Must not read ``instance.references``."""


#: What a kind answers unless it says otherwise: a ranked diagnosis list (titles or codes).
DIAGNOSES: tuple[AnswerKind, ...] = ("diagnoses",)


@dataclass(frozen=True)
class SystemSpec:
    """A registered kind. ``caveat`` reads a predictions manifest's inputs and returns the warning
    a report must print beside that run's scores, if any (e.g. a toy model that proves the path).
    ``answers`` are the task answer kinds (``TaskSpec.answer``) it can produce: a diagnosis-list
    baseline on a category task would be scored as all wrong, with no parse error to say why."""

    name: str
    description: str
    factory: Callable[..., System]
    caveat: Callable[[dict[str, Any]], str | None] | None = None
    answers: tuple[AnswerKind, ...] = DIAGNOSES


_REGISTRY: dict[str, SystemSpec] = {}


def register(
    name: str,
    description: str,
    caveat: Callable[[dict[str, Any]], str | None] | None = None,
    answers: tuple[AnswerKind, ...] = DIAGNOSES,
) -> Callable[[Callable[..., System]], Callable[..., System]]:
    """Class or function decorator: make a system available as ``admitdx predict --system NAME``;
    ``answers``: the task answer kinds it can produce."""

    def wrap(factory: Callable[..., System]) -> Callable[..., System]:
        if name in _REGISTRY:
            raise ValueError(f"system {name!r} registered twice")
        _REGISTRY[name] = SystemSpec(name, description, factory, caveat, answers)
        return factory

    return wrap


def require_answer(kind: str, task: TaskSpec, system: str | None = None, where: str = "") -> None:
    """Refuse (exit 2, naming both) a system of ``kind`` on a task whose answer kind it cannot
    produce, before anything is built, fitted or called. ``where`` prefixes the message (a study
    file and its key)."""
    answers = registered()[kind].answers
    if task.answer not in answers:
        named = f"system {system!r} (kind {kind})" if system and system != kind else f"system kind {kind}"
        raise UsageError(
            f"{where}{named} answers {' or '.join(answers)}; task {task.name} asks for "
            f"{'a ' if task.answer == 'category' else ''}{task.answer}",
            hint="`admitdx tasks` shows each task's answer kind; `admitdx systems` what each system answers",
        )


def registered() -> dict[str, SystemSpec]:
    _load_builtin()
    return dict(sorted(_REGISTRY.items()))


def create(name: str, **options: Any) -> System:
    """A system of kind ``name``; a ``task`` option is checked with :func:`require_answer` first."""
    specs = registered()
    if name not in specs:
        raise UsageError(
            f"unknown system {name!r}",
            hint="`admitdx systems` lists the registered systems; LLM systems are named in a --config file",
        )
    if options.get("task") is not None:
        require_answer(name, options["task"])
    return specs[name].factory(**options)


def _load_builtin() -> None:
    """Import the modules that register the built-in systems (kept lazy: some need optional extras)."""
    import importlib

    for module in _BUILTIN_MODULES:
        importlib.import_module(module)


# Modules whose import registers systems; each area owner adds its module here.
_BUILTIN_MODULES: list[str] = [
    "admitdx.systems.frequency",
    "admitdx.systems.knn",
    "admitdx.systems.extraction",
    "admitdx.systems.tfidf",
    "admitdx.systems.encoder",
    "admitdx.systems.llm",
    "admitdx.systems.majority",
    "admitdx.systems.triage_classifier",
    "admitdx.systems.knn_one_liner",
    "admitdx.systems.code_baselines",
    "admitdx.systems.llm_codes",
    "admitdx.harness.replay",
]
