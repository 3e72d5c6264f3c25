"""A system's options checked against its kind's typed options before any work: what ``admitdx
predict`` does with ``--config`` and ``--set``, and a study with every entry under ``systems:``, so
``k=three`` or ``promt=cot`` stops with exit 2 before a build or a model call, not in a traceback
mid-run."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Literal

from admitdx.systems import registered
from admitdx.typed_options import check_settings, hints_of

#: Parameters the runner fills in itself; not options a user sets.
RUNNER_FILLED = frozenset({"task", "allow_hosts", "executor"})  # executor: from --executor


def takes_llm_options(kind: str) -> bool:
    """Whether a registered kind passes its further keyword options to the LLM client (``**options``):
    the kinds that call a model through :class:`admitdx.llm.client.LLMClient`."""
    return _var_keyword(registered()[kind].factory)


def checked_options(
    kind: str, name: str, options: dict[str, Any], key_path: str | None = None
) -> dict[str, Any]:
    """``options`` converted to the kind's typed options, or a UsageError naming the first that is
    unknown or of the wrong type (at ``key_path`` in a file, else as ``--set``)."""
    from admitdx.llm.config import LLMConfig
    from admitdx.systems.labels import TRAIN_LABELS
    from admitdx.systems.runner import TRAIN_LABELS_OPTION

    if kind not in registered():  # the runner names an unknown kind with its config entry
        return options
    typed = _typed(registered()[kind].factory)
    typed[TRAIN_LABELS_OPTION] = Literal[TRAIN_LABELS]
    if takes_llm_options(kind):
        typed |= hints_of(LLMConfig)  # the kinds that take **options pass them to the LLM client
    owner = f"system {name!r} (kind {kind})" if name != kind else f"system kind {kind}"
    return check_settings(options, typed, owner, key_path)


def _typed(factory: Callable[..., Any]) -> dict[str, Any]:
    """The factory's typed options and, for a class whose ``__init__`` passes ``**options`` on to its
    parent's (``llm-codes`` to ``llm``'s), the parent's too, up the chain."""
    typed = hints_of(factory, skip=RUNNER_FILLED)
    owner = _init_owner(factory) if inspect.isclass(factory) else object
    while owner is not object and _var_keyword(owner):
        owner = _init_owner(owner, after=True)
        if owner is not object:
            typed = {**hints_of(owner, skip=RUNNER_FILLED), **typed}
    return typed


def _init_owner(cls: type, after: bool = False) -> type:
    """The class in ``cls``'s MRO whose ``__init__`` it runs (``after``: the next one up)."""
    mro = cls.__mro__[1:] if after else cls.__mro__
    return next(c for c in mro if "__init__" in vars(c))


def _var_keyword(target: Callable[..., Any]) -> bool:
    return any(p.kind is p.VAR_KEYWORD for p in inspect.signature(target).parameters.values())


def kind_options(factory: Callable[..., Any]) -> str:
    """``name=default`` per keyword parameter of a system kind's factory, comma-separated."""
    lines = []
    for p in inspect.signature(factory).parameters.values():
        if p.name in RUNNER_FILLED or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name == "self":
            continue
        default = "required" if p.default is p.empty else repr(p.default)
        lines.append(f"{p.name}={default}")
    if _var_keyword(factory):
        lines.append("… and the LLM client's options (base_url, model, temperature, …)")
    return ", ".join(lines) or "—"
