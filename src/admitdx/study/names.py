"""Study names become folders: each one path segment of safe characters, each path under ``out:``.

A task run's name is its folder (``<out>/<run>/``) and a system's name its predictions folder
(``<out>/<run>/predictions/<system>/``). Unchecked, a study file received from a colleague could name
a run ``../../x`` or ``/home/me/data`` and build, predict and report there, replacing whatever
dataset it found (issue 30). So a name is refused unless it is one segment of letters, digits,
``.``, ``_`` and ``-`` (not ``.`` or ``..``, at most ``MAX_NAME`` characters), and the error names the
first character at fault. :func:`under` checks a path the study is about to write, resolved through
any symbolic link, against ``out:`` itself; :func:`check_out` refuses an ``out:`` that is, or lies
in, a data root (a study would write its folders among the EHR tables) or below a regular file.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from admitdx.errors import UsageError

SAFE = re.compile(r"[A-Za-z0-9._-]+")
MAX_NAME = 100
#: What marks a folder as an EHR root although the study does not name it under ``data:``: MIMIC-IV's
#: hosp/ module folder (the demo's and a synthetic root's too).
ROOT_MARKERS = ("hosp",)


def check_name(name: str, where: str, key: str) -> str:
    """``name`` if it can be a folder of its own under ``out:``, else a UsageError at ``key``."""
    problem = _problem(name)
    if problem:
        raise UsageError(
            f"{where}: {key}: the name {name!r} {problem}; it names a folder under out:",
            hint="use one path segment of letters, digits, '.', '_' and '-', e.g. earlydx-gpt",
        )
    return name


def _problem(name: str) -> str | None:
    if not name:
        return "is empty"
    if name in (".", ".."):
        return "is a parent or current folder, not a name"
    if len(name) > MAX_NAME:
        return f"is longer than {MAX_NAME} characters"
    for c in name:
        if SAFE.fullmatch(c):
            continue
        if c in "/\\":
            return f"contains the path separator {c!r}"
        if unicodedata.category(c).startswith("C"):
            return f"contains the control character U+{ord(c):04X}"
        return f"contains the character {c!r} (U+{ord(c):04X})"
    return None


def under(out: Path, *parts: str) -> Path:
    """``out/part/...``, after checking that it lies under ``out`` once symbolic links are followed
    (a run folder that is a link to elsewhere is refused, not written through)."""
    path = out.joinpath(*parts)
    if not path.resolve().is_relative_to(out.resolve()):
        raise UsageError(
            f"{path} lies outside the study's out: folder {out} (resolved to {path.resolve()})",
            hint="remove the link, or choose another out:",
        )
    return path


def check_out(out: Path, roots: Iterable[Path], where: str) -> None:
    """Refuse an ``out:`` below a regular file, or equal to or inside a data root: one the study
    names under ``data:``, or a folder with MIMIC-IV's ``hosp/``."""
    resolved = out.resolve()
    for folder in (resolved, *resolved.parents):
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"{where}: out: {out} lies below {folder}, which is a file, not a folder")
    named = [r.resolve() for r in roots]
    for folder in (resolved, *resolved.parents):
        if folder in named or any((folder / m).is_dir() for m in ROOT_MARKERS):
            raise UsageError(
                f"{where}: out: {out} is {'' if folder == resolved else 'inside '}the data root {folder}",
                hint="a study writes its folders under out:; keep them apart from the EHR tables",
            )


def check_runs_apart(out: Path, runs: Iterable[str], roots: Iterable[Path], where: str) -> None:
    """Refuse a task run whose folder under ``out:`` is, holds or lies in a data root (``out:`` may
    hold the data, as the demo's does, but no run may write there)."""
    named = [r.resolve() for r in roots]
    for run in runs:
        folder = (out / run).resolve()
        for root in named:
            if folder == root or folder.is_relative_to(root) or root.is_relative_to(folder):
                raise UsageError(
                    f"{where}: tasks.{run}: its folder {out / run} would overlap the data root {root}",
                    hint="rename the task run, or move the data root out of out:",
                )
