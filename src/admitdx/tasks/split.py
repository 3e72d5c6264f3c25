"""Patient-level splits shared by every task: all encounters of a subject fall in one split.

A subject's split is a pure function of (task namespace, seed, subject_id): ``u`` maps the SHA-256
of ``"{namespace}:{seed}:{subject_id}"`` to [0, 1), and the named fractions are laid on [0, 1) in
the order given, so ``{"test": 0.06, "train": 0.94}`` sends ``u < 0.06`` to test. One subject's
assignment never depends on which other subjects are present, so builds with different windows or
options share a split even without a split file; ``split.csv`` (subject_id → split) pins it
exactly when the cohort itself differs. Each task has its own namespace, so the EarlyDx and
ER-Reason test patients are drawn independently.

:func:`stratified` is the batch form for tasks that balance a stratum (e.g. a category) across
splits: within each stratum, subjects are ordered by ``u`` and cut at the fractions.
"""

from __future__ import annotations

import csv
import hashlib
from collections import defaultdict
from collections.abc import Hashable, Mapping
from pathlib import Path

from admitdx.errors import InputError, UsageError

SPLIT_FILE = "split.csv"


def unit_hash(namespace: str, seed: int, subject_id: int) -> float:
    digest = hashlib.sha256(f"{namespace}:{seed}:{subject_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def check_fractions(fractions: Mapping[str, float]) -> None:
    if not fractions or any(f < 0 for f in fractions.values()) or abs(sum(fractions.values()) - 1) > 1e-9:
        raise UsageError(f"split fractions must be >= 0 and sum to 1, got {dict(fractions)}")


class Splitter:
    """Assigns subjects to splits, from a fixed file where given, else by the hash rule."""

    def __init__(
        self,
        fractions: Mapping[str, float],
        seed: int,
        namespace: str,
        fixed: Mapping[int, str] | None = None,
    ) -> None:
        check_fractions(fractions)
        self.fractions = dict(fractions)
        self.seed = seed
        self.namespace = namespace
        self.fixed = dict(fixed or {})
        self.assigned: dict[int, str] = {}
        self.not_in_file = 0

    def by_hash(self, subject_id: int) -> str:
        return _cut(unit_hash(self.namespace, self.seed, subject_id), self.fractions)

    def __call__(self, subject_id: int) -> str:
        split = self.assigned.get(subject_id)
        if split is None:
            split = self.fixed.get(subject_id)
            if split is None:
                if self.fixed:
                    self.not_in_file += 1
                split = self.by_hash(subject_id)
            self.assigned[subject_id] = split
        return split


def _cut(u: float, fractions: Mapping[str, float]) -> str:
    edge = 0.0
    names = list(fractions)
    for name in names:
        edge += fractions[name]
        if u < edge:
            return name
    return names[-1]  # u within rounding of 1


def stratified(
    strata: Mapping[int, Hashable], fractions: Mapping[str, float], seed: int, namespace: str
) -> dict[int, str]:
    """subject → split with the fractions met within each stratum (largest-remainder rounding)."""
    check_fractions(fractions)
    groups: dict[Hashable, list[int]] = defaultdict(list)
    for subject, stratum in strata.items():
        groups[stratum].append(subject)
    out: dict[int, str] = {}
    for members in groups.values():
        members.sort(key=lambda s: (unit_hash(namespace, seed, s), s))
        sizes = _sizes(len(members), fractions)
        start = 0
        for name, size in sizes.items():
            out.update((s, name) for s in members[start : start + size])
            start += size
    return out


def _sizes(n: int, fractions: Mapping[str, float]) -> dict[str, int]:
    exact = {k: n * f for k, f in fractions.items()}
    sizes = {k: int(v) for k, v in exact.items()}
    for k in sorted(exact, key=lambda k: exact[k] - sizes[k], reverse=True)[: n - sum(sizes.values())]:
        sizes[k] += 1
    return sizes


def read_split_file(path: Path, splits: tuple[str, ...] = ("train", "test")) -> dict[int, str]:
    """Read ``subject_id,split`` rows; a malformed row names its line."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"split file {path} does not exist", hint="pass the split.csv of an earlier build")
    out: dict[int, str] = {}
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames is None or not {"subject_id", "split"} <= set(reader.fieldnames):
            raise InputError(f"{path} needs the columns subject_id,split", table=str(path))
        for line, row in enumerate(reader, start=2):
            try:
                subject = int(row["subject_id"])
            except (TypeError, ValueError):
                raise InputError(
                    "subject_id is not an integer", table=str(path), column="subject_id", row=line
                ) from None
            if row["split"] not in splits:
                raise InputError(
                    f"split must be one of {', '.join(splits)}, got {row['split']!r}",
                    table=str(path),
                    column="split",
                    row=line,
                )
            out[subject] = row["split"]
    return out


def write_split_file(path: Path, assigned: Mapping[int, str]) -> None:
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["subject_id", "split"])
        for subject in sorted(assigned):
            w.writerow([subject, assigned[subject]])
