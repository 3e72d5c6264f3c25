"""One system's predictions (and, for matched tasks, its cached matches) as the scorer reads them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from admitdx.contracts import MATCHES_DIR, PREDICTIONS_FILE, Match, Prediction, load_predictions
from admitdx.errors import InputError, UsageError
from admitdx.jsonl import read_jsonl


@dataclass
class SystemInput:
    name: str
    directory: Path
    predictions: dict[str, Prediction]  # evaluated instances only
    matches: dict[str, Match]  # empty for tasks scored without a matcher
    outside_split: int  # predictions for instances outside the evaluated split


def load_system(directory: Path, matcher: str | None, eval_ids: set[str]) -> SystemInput:
    """Read a predictions directory; ``matcher`` None reads no matches (category and text tasks)."""
    preds = load_predictions(directory)
    by_id: dict[str, Prediction] = {}
    for p in preds:
        if p.instance_id in by_id:
            raise InputError(
                f"instance {p.instance_id} has two predictions",
                table=str(directory / PREDICTIONS_FILE),
                hint="a prediction run must predict each instance once; rerun `admitdx predict`",
            )
        by_id[p.instance_id] = p
    matches: dict[str, Match] = {}
    if matcher is not None:
        path = directory / MATCHES_DIR / f"{matcher}.jsonl"
        if not path.exists():
            raise UsageError(
                f"{directory} has no matches by the {matcher!r} matcher ({path} is missing)",
                hint=f"run `admitdx match --dataset DIR --predictions {directory} --matcher {matcher}` first",
            )
        matches = {m.instance_id: m for m in (Match.from_dict(d) for d in read_jsonl(path))}
    names = {p.system for p in preds}
    name = names.pop() if len(names) == 1 else directory.name
    outside = sum(i not in eval_ids for i in by_id)
    return SystemInput(name, directory, {k: v for k, v in by_id.items() if k in eval_ids}, matches, outside)


def require_matches(system: SystemInput, instance_ids: list[str]) -> None:
    """Every non-empty prediction of a matched task has its pairs (else matching is unfinished)."""
    unmatched = [
        i
        for i in instance_ids
        if i in system.predictions and system.predictions[i].items and i not in system.matches
    ]
    if unmatched:
        raise UsageError(
            f"{system.directory}: {len(unmatched)} predictions have no match (e.g. {unmatched[0]})",
            hint="the matching run is incomplete; rerun `admitdx match` (it resumes)",
        )
