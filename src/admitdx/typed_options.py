"""``KEY=VALUE`` settings checked against the typed options they set, before any work starts.

``--set k=three`` used to reach the system and end in a traceback, ``--set temperature=hot`` in
eight retries of HTTP 500, and a typo such as ``promt`` in a list of the client's options only
(issue 23). Each verb that takes ``--set`` hands its settings here with the options they may set,
read from the type hints of a parameters dataclass or a system's constructor: an unknown key or a
value of the wrong type is a usage error (exit 2) naming the key, the expected type and the
closest valid names. Values arrive YAML-typed (:func:`admitdx.cli.options.parse_key_values`); a
whole number is accepted for a float, and a number for a text or path option is taken as its text.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from admitdx.errors import UsageError

#: The type of an option whose annotation cannot be resolved here: any value passes.
UNKNOWN = Any


def hints_of(target: Callable[..., Any] | type, skip: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Keyword options of a dataclass (its init fields) or a callable (a registered variant made
    with :func:`functools.partial` has its function's options), by name, with their types."""
    if isinstance(target, functools.partial):
        return hints_of(target.func, skip)
    if dataclasses.is_dataclass(target):
        names = [f.name for f in dataclasses.fields(target) if f.init]
        annotated: Any = target
    else:
        params = inspect.signature(target).parameters.values()
        names = [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
        annotated = target.__init__ if inspect.isclass(target) else target
    return {name: _resolved(annotated, name) for name in names if name not in skip and name != "self"}


def _resolved(annotated: Any, name: str) -> Any:
    """One option's type, resolved alone: an annotation naming a type imported for type checkers
    only leaves that one option unchecked (UNKNOWN), not all of them."""
    raw = inspect.get_annotations(annotated).get(name, UNKNOWN)
    if not isinstance(raw, str):
        return raw
    module = inspect.getmodule(annotated)
    try:
        return eval(raw, vars(module) if module else {})  # what typing.get_type_hints does, per name
    except Exception:  # any failure to resolve means: not checked
        return UNKNOWN


def check_settings(
    settings: Mapping[str, Any], options: Mapping[str, Any], owner: str, key_path: str | None = None
) -> dict[str, Any]:
    """``settings`` converted to their options' types, or a usage error for the first key that is
    unknown or whose value does not fit. ``owner`` names what the options belong to; ``key_path``
    (``FILE: systems.gpt``) names where the settings were written when it is not ``--set``."""
    checked = {}
    for key, value in settings.items():
        at = f"--set {key}" if key_path is None else f"{key_path}.{key}"
        if key not in options:
            close = difflib.get_close_matches(str(key), list(options), n=3, cutoff=0.6)
            raise UsageError(
                f"{at}: {owner} has no option {key!r}"
                + (f"; did you mean {' or '.join(close)}?" if close else ""),
                hint=f"options of {owner}: {', '.join(sorted(options))}",
            )
        fitted = _fit(value, options[key])
        if fitted is _MISFIT:
            close = ", ".join(difflib.get_close_matches(str(value), _choices(options[key]), n=3))
            ex = _example(options[key])
            example = f"e.g. --set {key}={ex}" if key_path is None else f"e.g. {key}: {ex}"
            raise UsageError(
                f"{at}={value!r}: {owner} expects {type_name(options[key])} for {key!r}",
                hint=f"the closest valid values: {close}" if close else example,
            )
        checked[key] = fitted
    return checked


_MISFIT = object()


def _fit(value: Any, tp: Any) -> Any:
    """``value`` as type ``tp`` (the same object where it already is one), or ``_MISFIT``."""
    if tp is UNKNOWN or tp is object:
        return value
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        # the arm of the value's own type first (a list stays a list); a text arm takes any
        # scalar, so it comes last
        for arm in sorted(args, key=lambda a: ((typing.get_origin(a) or a) is not type(value), a is str)):
            fitted = _fit(value, arm)
            if fitted is not _MISFIT:
                return fitted
        return _MISFIT
    if origin is typing.Literal:
        return value if value in args else _MISFIT
    if tp is type(None):
        return None if value is None else _MISFIT
    if tp is bool:
        return value if isinstance(value, bool) else _MISFIT
    if tp is int:
        return value if isinstance(value, int) and not isinstance(value, bool) else _MISFIT
    if tp is float:
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else _MISFIT
    if tp in (str, Path):
        if isinstance(value, bool) or value is None or isinstance(value, list | dict):
            return _MISFIT
        return tp(value) if tp is Path else str(value)
    if origin in (list, tuple, Sequence) or tp in (list, tuple):
        if not isinstance(value, list | tuple):
            return _MISFIT
        inner = args[0] if args else UNKNOWN
        items = [_fit(v, inner) for v in value]
        return _MISFIT if any(i is _MISFIT for i in items) else (tuple(items) if origin is tuple else items)
    if origin in (dict, Mapping) or tp is dict:
        return value if isinstance(value, dict) else _MISFIT
    return value  # a type the command line cannot spell (an executor, a host list): not checked here


def type_name(tp: Any) -> str:
    """How an expected type reads in a message: ``a number``, ``one of 'a', 'b'``, ``an integer or
    nothing (empty)``."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(type_name(a) for a in args)
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin in (list, tuple, Sequence):
        return "a list, e.g. [a, b]"
    names = {bool: "true or false", int: "an integer", float: "a number", str: "a text", Path: "a path"}
    return names.get(tp, "nothing (an empty value)" if tp is type(None) else getattr(tp, "__name__", str(tp)))


def _choices(tp: Any) -> list[str]:
    """The values a Literal option allows (for the closest-value hint); none for other types."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return [c for a in typing.get_args(tp) for c in _choices(a)]
    return [str(a) for a in typing.get_args(tp)] if typing.get_origin(tp) is typing.Literal else []


def _example(tp: Any) -> str:
    if _choices(tp):
        return _choices(tp)[0]
    for arm in typing.get_args(tp) or (tp,):
        if arm in (int, float):
            return "3" if arm is int else "0.5"
        if arm is bool:
            return "true"
    return "VALUE"
