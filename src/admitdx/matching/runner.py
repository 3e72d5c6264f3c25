"""Run a matcher over a dataset and a predictions directory, with a content-addressed cache.

Output: ``<predictions_dir>/matches/<label>.jsonl`` (one :class:`~admitdx.contracts.Match` per
predicted instance, in prediction order) and ``<label>.summary.json`` beside it (matcher, params,
input fingerprints, counts, matcher-specific totals such as the unmapped share).

Caching: every Match carries ``details["cache_key"]``, the SHA-256 of (matcher name + params,
prediction texts, reference texts[, reference codes]). A rerun reads the existing file and only
computes instances whose key is not there yet, so a rerun with nothing changed computes nothing,
and an instance whose texts equal another's reuses that answer. Results are appended as each
chunk completes, so an interrupted run (Ctrl-C, kill) keeps everything it finished; the file is
rewritten at the end with exactly one record per current instance.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from admitdx.contracts import (
    INSTANCES_FILE,
    MATCHES_DIR,
    PREDICTIONS_FILE,
    Match,
    load_instances,
    load_predictions,
)
from admitdx.errors import InputError, UsageError
from admitdx.jsonl import append_jsonl, drop_partial_tail, read_jsonl, write_jsonl
from admitdx.matching.base import Matcher, MatchOutcome, MatchTask
from admitdx.provenance import check_predictions_dataset
from admitdx.runs import exclusive, sha256_file, write_aside

ProgressCallback = Callable[[int, int], None]


@dataclass
class MatchRun:
    """What one ``run_matcher`` call did."""

    path: Path
    matches: list[Match]
    computed: int
    cached: int
    summary: dict[str, Any] = field(default_factory=dict)


def matches_path(predictions_dir: Path, label: str) -> Path:
    return Path(predictions_dir) / MATCHES_DIR / f"{label}.jsonl"


def load_matches(predictions_dir: Path, label: str) -> list[Match]:
    """Read ``matches/<label>.jsonl``; a clear error says how to produce it when it is missing."""
    path = matches_path(predictions_dir, label)
    if not path.exists():
        raise UsageError(
            f"no matches for matcher '{label}' in {predictions_dir}",
            hint=f"run `admitdx match --predictions {predictions_dir} --matcher {label} ...` first",
        )
    return [Match.from_dict(d) for d in read_jsonl(path)]


def build_tasks(dataset_dir: Path, predictions_dir: Path) -> list[MatchTask]:
    """One task per prediction, paired with its instance's references (all of them, in order:
    tracks that keep only some evidence classes filter the pairs by reference index later)."""
    instances = {inst.id: inst for inst in load_instances(dataset_dir)}
    if not (Path(predictions_dir) / PREDICTIONS_FILE).exists():
        raise UsageError(
            f"{predictions_dir} has no {PREDICTIONS_FILE}",
            hint="run `admitdx predict --dataset DIR --system NAME --out DIR` first",
        )
    tasks: list[MatchTask] = []
    seen: set[tuple[str, str]] = set()
    for row, pred in enumerate(load_predictions(predictions_dir), start=1):
        inst = instances.get(pred.instance_id)
        if inst is None:
            raise InputError(
                f"prediction for instance '{pred.instance_id}' which is not in {dataset_dir}",
                table=PREDICTIONS_FILE,
                column="instance_id",
                row=row,
                hint="match predictions against the dataset they were made from",
            )
        if (pred.instance_id, pred.system) in seen:
            raise InputError(
                f"instance '{pred.instance_id}' is predicted twice by system '{pred.system}'",
                table=PREDICTIONS_FILE,
                row=row,
            )
        seen.add((pred.instance_id, pred.system))
        tasks.append(
            MatchTask(
                instance_id=inst.id,
                system=pred.system,
                predictions=[item.text for item in pred.items],
                references=[ref.text for ref in inst.references],
                reference_codes=[(ref.code, ref.code_system) for ref in inst.references],
            )
        )
    return tasks


def _read_cache(path: Path) -> dict[str, Match]:
    if not path.exists():
        return {}
    drop_partial_tail(path)
    cache: dict[str, Match] = {}
    for d in read_jsonl(path):
        m = Match.from_dict(d)
        key = m.details.get("cache_key")
        if key:
            cache[key] = m
    return cache


def run_matcher(
    matcher: Matcher,
    dataset_dir: Path,
    predictions_dir: Path,
    *,
    label: str | None = None,
    chunk_size: int = 32,
    on_progress: ProgressCallback | None = None,
    allow_label_change: bool = False,
    allow_no_manifest: bool = False,
) -> MatchRun:
    """Match every prediction of ``predictions_dir`` and write ``matches/<label>.jsonl``.

    ``label`` names the output file and fills ``Match.matcher`` (default: the matcher's name);
    give two configurations of one matcher different labels (``icd-full``, ``icd-category``).
    The predictions must have been made on ``dataset_dir`` (:mod:`admitdx.provenance`), and
    matches written against another dataset are not rewritten unless ``allow_label_change``.
    Predictions without a predict manifest are matched only with ``allow_no_manifest``.
    """
    label = label or matcher.name
    path = matches_path(predictions_dir, label)
    path.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(path.parent, f"match {label}"):
        provenance = check_predictions_dataset(
            dataset_dir,
            load_instances(dataset_dir),
            predictions_dir,
            allow_label_change=allow_label_change,
            allow_no_manifest=allow_no_manifest,
        )
        return _run_matcher(
            matcher,
            dataset_dir,
            predictions_dir,
            label,
            chunk_size,
            on_progress,
            allow_label_change,
            provenance,
        )


def _run_matcher(
    matcher: Matcher,
    dataset_dir: Path,
    predictions_dir: Path,
    label: str,
    chunk_size: int,
    on_progress: ProgressCallback | None,
    allow_label_change: bool,
    provenance: dict[str, Any],
) -> MatchRun:
    path = matches_path(predictions_dir, label)
    _refuse_rewrite_for_another_dataset(path, dataset_dir, allow_label_change)
    tasks = build_tasks(dataset_dir, predictions_dir)
    cache = _read_cache(path) if matcher.cacheable else {}
    keys = [matcher.cache_key(t) for t in tasks]
    results: dict[str, MatchOutcome] = {
        k: MatchOutcome(pairs=list(cache[k].pairs), details=dict(cache[k].details))
        for k in keys
        if k in cache
    }
    todo = [(k, t) for k, t in zip(keys, tasks, strict=True) if k not in results]
    unique_todo = list({k: t for k, t in todo}.items())
    pending = Counter(k for k, _ in todo)  # instances waiting on each key (equal texts share one)
    cached = len(tasks) - len(todo)
    done = cached
    if on_progress:
        on_progress(done, len(tasks))
    for start in range(0, len(unique_todo), chunk_size):
        chunk = unique_todo[start : start + chunk_size]
        outcomes = matcher.match_many([t for _, t in chunk])
        for (key, task), outcome in zip(chunk, outcomes, strict=True):
            outcome.details["cache_key"] = key
            results[key] = outcome
            if matcher.cacheable:
                append_jsonl(path, _to_match(task, label, outcome).to_dict())
        done += sum(pending[k] for k, _ in chunk)
        if on_progress:
            on_progress(done, len(tasks))
    matches = [_to_match(t, label, results[k]) for k, t in zip(keys, tasks, strict=True)]
    _write_atomically(path, [m.to_dict() for m in matches])
    summary = {**_summary(matcher, label, dataset_dir, predictions_dir, matches, len(todo), cached),
               "provenance": provenance}  # fmt: skip
    summary_path = path.with_suffix(".summary.json")
    write_aside(summary_path, json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    return MatchRun(path=path, matches=matches, computed=len(todo), cached=cached, summary=summary)


def _refuse_rewrite_for_another_dataset(path: Path, dataset_dir: Path, allow_label_change: bool) -> None:
    summary_path = path.with_suffix(".summary.json")
    if not summary_path.exists() or allow_label_change:
        return
    before = _matched_dataset(summary_path, path)
    now = sha256_file(Path(dataset_dir) / INSTANCES_FILE)
    if before and before != now:
        raise UsageError(
            f"{path} holds matches against another dataset ({before[:12]}…, this one is {now[:12]}…)",
            hint="match into another predictions copy, or pass --allow-label-change to rewrite them "
            "for these labels (recorded in the summary)",
        )


def _matched_dataset(summary_path: Path, path: Path) -> str | None:
    """The dataset hash a match summary records; InputError naming it when it is garbage."""
    fix = f"delete {summary_path} and {path}, then rerun the same `admitdx match` command"
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise InputError(f"not a match summary: not JSON ({e})", table=str(summary_path), hint=fix) from None
    inputs = summary.get("inputs", {}) if isinstance(summary, dict) else None
    if not isinstance(inputs, dict):
        raise InputError(
            "not a match summary: not the object `match` writes", table=str(summary_path), hint=fix
        )
    return inputs.get(INSTANCES_FILE)


def _to_match(task: MatchTask, label: str, outcome: MatchOutcome) -> Match:
    return Match(
        instance_id=task.instance_id,
        system=task.system,
        matcher=label,
        pairs=list(outcome.pairs),
        details=dict(outcome.details),
    )


def _write_atomically(path: Path, records: list[dict[str, Any]]) -> None:
    tmp = path.with_suffix(".jsonl.tmp")
    write_jsonl(tmp, records)
    os.replace(tmp, path)


def _summary(
    matcher: Matcher,
    label: str,
    dataset_dir: Path,
    predictions_dir: Path,
    matches: list[Match],
    computed: int,
    cached: int,
) -> dict[str, Any]:
    outcomes = [MatchOutcome(pairs=list(m.pairs), details=m.details) for m in matches]
    return {
        "matcher": matcher.name,
        "label": label,
        "params": matcher.params(),
        "inputs": {
            INSTANCES_FILE: sha256_file(Path(dataset_dir) / INSTANCES_FILE),
            PREDICTIONS_FILE: sha256_file(Path(predictions_dir) / PREDICTIONS_FILE),
        },
        "instances": len(matches),
        "computed": computed,
        "cached": cached,
        "pairs": sum(len(m.pairs) for m in matches),
        **matcher.summarize(outcomes),
    }
