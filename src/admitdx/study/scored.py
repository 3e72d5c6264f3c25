"""One scored task run, as the leaderboard and its provenance read it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Scored:
    """One scored task run: its column group's name, the registered task and its build parameters
    (which published numbers apply), where its report is, and its results."""

    name: str
    task: str
    params: Any
    report_dir: Path
    results: dict[str, Any]
