"""Patient-level train/test split (§4.1): all encounters of a subject fall in one split.

A subject goes to test when ``u(seed, subject_id) < test_fraction``, where ``u`` maps the SHA-256
of ``"earlydx-split:{seed}:{subject_id}"`` to [0, 1). The assignment of one subject never depends
on which other subjects are present, so builds with different windows, timestamp semantics or
label texts share a split even without ``--split-file``; the file (``split.csv``, subject_id →
split) pins it exactly when the cohort itself differs.
"""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

from admitdx.errors import InputError

SPLIT_FILE = "split.csv"
SPLITS = ("train", "test")


def unit_hash(seed: int, subject_id: int) -> float:
    digest = hashlib.sha256(f"earlydx-split:{seed}:{subject_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class Splitter:
    """Assigns subjects to splits, from a fixed file where given, else by the hash rule."""

    def __init__(self, test_fraction: float, seed: int, fixed: dict[int, str] | None = None) -> None:
        self.test_fraction = test_fraction
        self.seed = seed
        self.fixed = fixed or {}
        self.assigned: dict[int, str] = {}
        self.not_in_file = 0

    def __call__(self, subject_id: int) -> str:
        split = self.assigned.get(subject_id)
        if split is None:
            split = self.fixed.get(subject_id)
            if split is None:
                if self.fixed:
                    self.not_in_file += 1
                split = "test" if unit_hash(self.seed, subject_id) < self.test_fraction else "train"
            self.assigned[subject_id] = split
        return split


def read_split_file(path: Path) -> dict[int, str]:
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
            if row["split"] not in SPLITS:
                raise InputError(
                    f"split must be train or test, got {row['split']!r}",
                    table=str(path),
                    column="split",
                    row=line,
                )
            out[subject] = row["split"]
    return out


def write_split_file(path: Path, assigned: dict[int, str]) -> None:
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["subject_id", "split"])
        for subject in sorted(assigned):
            w.writerow([subject, assigned[subject]])
