"""Matchers: turn (predicted diagnoses, reference diagnoses) into one-to-one pairs.

``create_matcher(name, **params)`` builds a matcher by name; :data:`MATCHERS` lists the names.
Heavy matchers (embedding model, ICD dictionary, LLM client) are imported only when asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from admitdx.errors import UsageError

if TYPE_CHECKING:
    from admitdx.matching.base import Matcher

#: matcher name → (module, class), imported on demand.
MATCHERS: dict[str, tuple[str, str]] = {
    "exact": ("admitdx.matching.exact", "ExactMatcher"),
    "embedding": ("admitdx.matching.embedding", "EmbeddingMatcher"),
    "icd": ("admitdx.matching.icd", "IcdMatcher"),
    "guarded": ("admitdx.matching.guarded", "GuardedMatcher"),
    "llm_judge": ("admitdx.matching.llm_judge", "LlmJudgeMatcher"),
    "manual": ("admitdx.matching.manual", "ManualMatcher"),
}


def create_matcher(name: str, **params: Any) -> Matcher:
    """Build the matcher ``name`` with keyword ``params`` (unknown names or params are UsageErrors)."""
    if name not in MATCHERS:
        raise UsageError(f"unknown matcher '{name}'", hint=f"choose one of: {', '.join(MATCHERS)}")
    module, cls = MATCHERS[name]
    factory = getattr(importlib.import_module(module), cls)
    try:
        return factory(**params)
    except TypeError as e:
        raise UsageError(f"bad parameters for matcher '{name}': {e}", hint=f"see help({cls})") from e


_BASE = ("Matcher", "MatchOutcome", "MatchTask", "assign_one_to_one", "check_one_to_one")


def __getattr__(name: str) -> Any:
    """The contract types from :mod:`admitdx.matching.base` on first use: the assignment solver it
    imports (SciPy) is not needed to list the matchers (``admitdx --help``)."""
    if name in _BASE:
        return getattr(importlib.import_module("admitdx.matching.base"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MATCHERS",
    "MatchOutcome",
    "MatchTask",
    "Matcher",
    "assign_one_to_one",
    "check_one_to_one",
    "create_matcher",
]
