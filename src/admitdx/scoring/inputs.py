"""One system's predictions (and, for matched tasks, its cached matches) as the scorer reads them.

The lines are kept as read (JSON objects), not turned into :class:`~admitdx.contracts.Prediction`
and :class:`~admitdx.contracts.Match` dataclasses: a run of 10k encounters × 5 systems reads 5·10^4
predictions with ~1.6·10^5 items, and building those objects cost more than all of the EarlyDx
suite's arithmetic. Suites that flatten items into arrays (EarlyDx) read the records;
:attr:`SystemInput.predictions` builds the dataclasses on first use for the suites that want them.
Reading checks every line's shape as the dataclasses would need it
(:func:`~admitdx.contracts.prediction_records`), so a damaged file is refused here, naming the file
and line, whichever suite scores it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from admitdx.contracts import MATCHES_DIR, PREDICTIONS_FILE, Prediction, prediction_records
from admitdx.errors import InputError, UsageError
from admitdx.jsonl import read_jsonl_numbered

Record = dict[str, Any]


@dataclass
class SystemInput:
    name: str
    directory: Path
    records: dict[str, Record]  # evaluated instances only: instance id → the prediction line as read
    pairs: dict[str, list[list[int]]]  # instance id → its match pairs; empty for tasks without a matcher
    outside_split: int  # predictions for instances outside the evaluated split

    @cached_property
    def predictions(self) -> dict[str, Prediction]:
        """The records as :class:`Prediction` objects (built on first use)."""
        return {k: Prediction.from_dict(r) for k, r in self.records.items()}


def load_system(directory: Path, matcher: str | None, eval_ids: set[str]) -> SystemInput:
    """Read a predictions directory; ``matcher`` None reads no matches (category and text tasks).

    Every record keeps its line as read, with ``items`` filled in ([]) where a line has none, so
    that scorers index it directly."""
    path = Path(directory) / PREDICTIONS_FILE
    if not path.is_file():
        raise UsageError(
            f"{directory} holds no predictions ({PREDICTIONS_FILE} is missing)",
            hint=f"run `admitdx predict --dataset DIR --system NAME --out {directory}` first",
        )
    by_id: dict[str, Record] = {}
    names: set[str] = set()
    for line, record in prediction_records(path):
        instance_id = record["instance_id"]
        if instance_id in by_id:
            raise InputError(
                f"instance {instance_id} has two predictions",
                table=str(path),
                row=line,
                hint="a prediction run must predict each instance once; rerun `admitdx predict`",
            )
        by_id[instance_id] = record
        names.add(record["system"])
    pairs = _read_pairs(Path(directory), matcher) if matcher is not None else {}
    name = names.pop() if len(names) == 1 else Path(directory).name
    outside = sum(i not in eval_ids for i in by_id)
    records = {k: v for k, v in by_id.items() if k in eval_ids}
    return SystemInput(name, Path(directory), records, pairs, outside)


def _read_pairs(directory: Path, matcher: str) -> dict[str, list[list[int]]]:
    """Instance id → match pairs from ``matches/<matcher>.jsonl`` (a later line for the same
    instance wins, as before); each pair is a (prediction index, reference index) list."""
    path = directory / MATCHES_DIR / f"{matcher}.jsonl"
    if not path.exists():
        raise UsageError(
            f"{directory} has no matches by the {matcher!r} matcher ({path} is missing)",
            hint=f"run `admitdx match --dataset DIR --predictions {directory} --matcher {matcher}` first",
        )
    out: dict[str, list[list[int]]] = {}
    for line, record in read_jsonl_numbered(path):
        pairs = record.get("pairs", [])
        ok = "instance_id" in record and "system" in record and "matcher" in record and type(pairs) is list
        for pair in pairs if ok else ():
            if type(pair) is not list or len(pair) != 2:
                ok = False
        if not ok:
            raise InputError(
                "not a match: it needs an instance_id, a system, a matcher and pairs of two indices",
                table=str(path),
                row=line,
                hint="the file was edited or damaged; delete it and rerun `admitdx match` "
                f"(--matcher {matcher})",
            )
        out[record["instance_id"]] = pairs
    return out


def require_matches(system: SystemInput, instance_ids: list[str]) -> None:
    """Every non-empty prediction of a matched task has its pairs (else matching is unfinished)."""
    records, pairs = system.records, system.pairs
    without = records.keys() - pairs.keys()  # set arithmetic first: usually nothing is left
    unmatched = [i for i in instance_ids if i in without and records[i]["items"]] if without else []
    if unmatched:
        raise UsageError(
            f"{system.directory}: {len(unmatched)} predictions have no match (e.g. {unmatched[0]})",
            hint="the matching run is incomplete; rerun `admitdx match` (it resumes)",
        )
