"""Everything that predicts: baselines, classifiers and prompted LLMs, registered by name.

A system is built from options, fitted on the training split (a no-op for zero-shot LLMs), and
yields one :class:`~admitdx.contracts.Prediction` per test instance, in any order, as each
completes; the runner appends them to ``predictions.jsonl`` and skips finished instances on resume.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from admitdx.contracts import Instance, Prediction
from admitdx.errors import UsageError


class System(Protocol):
    name: str

    def fit(self, train: list[Instance]) -> None:
        """Learn from training instances (their references included). Never sees test labels."""

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        """Yield a prediction per instance (any order). Must not read ``instance.references``."""


@dataclass(frozen=True)
class SystemSpec:
    """A registered kind. ``caveat`` reads a predictions manifest's inputs and returns the warning
    a report must print beside that run's scores, if any (e.g. a toy model that proves the path)."""

    name: str
    description: str
    factory: Callable[..., System]
    caveat: Callable[[dict[str, Any]], str | None] | None = None


_REGISTRY: dict[str, SystemSpec] = {}


def register(
    name: str, description: str, caveat: Callable[[dict[str, Any]], str | None] | None = None
) -> Callable[[Callable[..., System]], Callable[..., System]]:
    """Class or function decorator: make a system available as ``admitdx predict --system NAME``."""

    def wrap(factory: Callable[..., System]) -> Callable[..., System]:
        if name in _REGISTRY:
            raise ValueError(f"system {name!r} registered twice")
        _REGISTRY[name] = SystemSpec(name, description, factory, caveat)
        return factory

    return wrap


def registered() -> dict[str, SystemSpec]:
    _load_builtin()
    return dict(sorted(_REGISTRY.items()))


def create(name: str, **options: Any) -> System:
    specs = registered()
    if name not in specs:
        raise UsageError(
            f"unknown system {name!r}",
            hint="`admitdx systems` lists the registered systems; LLM systems are named in a --config file",
        )
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
