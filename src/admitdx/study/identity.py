"""``<out>/study.json``: which study a folder belongs to, so that another cannot overwrite its runs.

Two studies pointed at one ``out:`` with a run of the same name used to share its folder: the second
rebuilt the first's dataset with its own parameters before a stage refused it, and the folder was
inconsistent until the first ran again (issue 30). Now the first study to run in a folder records
there its file (resolved path) and the SHA-256 of its bytes, and its task runs; another study —
neither the same file (edited or not) nor the same bytes (a copy) — is refused before any work,
naming the runs it would replace (and the leaderboard, which every study in a folder rewrites),
unless it is told to take the folder over (``admitdx study --take-over``).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from admitdx.errors import UsageError
from admitdx.study.names import under
from admitdx.study.spec import Study

STUDY_JSON = "study.json"
TAKE_OVER = "--take-over"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def claim(study: Study, take_over: bool = False) -> dict[str, Any]:
    """Check that ``study.out`` is this study's (or no study's) folder, then record it there; the
    record written. Makes no other write."""
    path = under(study.out, STUDY_JSON)
    record = {
        "study": str(study.path.resolve()),
        "sha256": study.digest,
        "runs": [t.name for t in study.tasks],
    }
    if path.exists() and not take_over:
        _check_owner(path, record)
    study.out.mkdir(parents=True, exist_ok=True)
    staged = path.with_name(f".{STUDY_JSON}.{os.getpid()}.tmp")
    staged.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    os.replace(staged, path)
    return record


def _check_owner(path: Path, record: dict[str, Any]) -> None:
    try:
        owner = json.loads(path.read_text(encoding="utf-8"))
        study, sha, runs = owner["study"], owner["sha256"], [str(r) for r in owner["runs"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise UsageError(
            f"{path} cannot be read as a study folder's record ({e.__class__.__name__}: {e})",
            hint=f"rerun with {TAKE_OVER} to make this study the folder's owner",
        ) from e
    if study == record["study"] or sha == record["sha256"]:
        return
    shared = [r for r in record["runs"] if r in runs]
    replaced = f"its task run(s) {', '.join(shared)} and " if shared else ""
    raise UsageError(
        f"{path.parent} belongs to another study, {study} (SHA-256 {sha[:12]}…); this study would "
        f"replace {replaced}its leaderboard",
        hint=f"choose another out:, or rerun with {TAKE_OVER} to take the folder over",
    )
