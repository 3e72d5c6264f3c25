"""Agreement between two matchers (EarlyDx section 3.5, figure 4) and the manual-review sample.

EarlyDx re-scores every non-empty (gold, prediction) instance with a second judge and reports:
exact agreement of the matched-pair count (89.7 %), agreement within one pair (99.9 %), and the
Pearson correlation of per-instance F1 (r = 0.81). :func:`compare_matches` computes the same
three for any two matchers, plus the share of instances whose pair *sets* are identical (two
judges can agree on the count while pairing differently). Per-instance F1 is
2m / (|predictions| + |references|), which equals the harmonic mean of m/|P| and m/|R|.

By default only instances with at least one prediction and one reference are compared (the
paper's "non-empty pairs"; with an empty side both matchers trivially find nothing). Instances
that a manual review did not cover (``details.reviewed`` False) are left out.
"""

from __future__ import annotations

import csv
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from admitdx.contracts import MATCHES_DIR, Match
from admitdx.matching.base import MatchTask
from admitdx.matching.manual import REVIEW_COLUMNS, format_pairs, numbered_lines
from admitdx.matching.runner import build_tasks, load_matches


@dataclass(frozen=True)
class InstanceComparison:
    instance_id: str
    system: str
    n_predictions: int
    n_references: int
    pairs_a: list[tuple[int, int]]
    pairs_b: list[tuple[int, int]]

    @property
    def f1_a(self) -> float:
        return 2 * len(self.pairs_a) / (self.n_predictions + self.n_references)

    @property
    def f1_b(self) -> float:
        return 2 * len(self.pairs_b) / (self.n_predictions + self.n_references)


@dataclass
class Agreement:
    """The agreement figures and the instances they were computed on."""

    a: str
    b: str
    compared: int
    exact_count_agreement: float | None
    within_one_agreement: float | None
    pair_set_agreement: float | None
    f1_pearson: float | None
    only_in_a: int = 0
    only_in_b: int = 0
    excluded_empty: int = 0
    instances: list[InstanceComparison] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "instances"}


def _pearson(x: np.ndarray, y: np.ndarray) -> float | None:
    """Pearson r; None when either side is constant (the correlation is undefined there)."""
    if len(x) < 2 or np.std(x) == 0 or np.std(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def _usable(m: Match) -> bool:
    return m.details.get("reviewed", True) is not False


def compare_matches(
    tasks: list[MatchTask],
    matches_a: list[Match],
    matches_b: list[Match],
    *,
    nonempty_only: bool = True,
) -> Agreement:
    """Agreement of two matchers over the instances both matched (see the module docstring)."""
    key = lambda m: (m.instance_id, m.system)  # noqa: E731
    by_a = {key(m): m for m in matches_a if _usable(m)}
    by_b = {key(m): m for m in matches_b if _usable(m)}
    rows: list[InstanceComparison] = []
    excluded = 0
    for task in tasks:
        k = (task.instance_id, task.system)
        if k not in by_a or k not in by_b:
            continue
        one_side_empty = not task.predictions or not task.references
        both_empty = not task.predictions and not task.references  # F1 undefined: always left out
        if both_empty or (nonempty_only and one_side_empty):
            excluded += 1
            continue
        rows.append(
            InstanceComparison(
                task.instance_id,
                task.system,
                len(task.predictions),
                len(task.references),
                list(by_a[k].pairs),
                list(by_b[k].pairs),
            )
        )
    names = (matches_a[0].matcher if matches_a else "a", matches_b[0].matcher if matches_b else "b")
    if not rows:
        return Agreement(
            *names,
            0,
            None,
            None,
            None,
            None,
            len(set(by_a) - set(by_b)),
            len(set(by_b) - set(by_a)),
            excluded,
            [],
        )
    diff = np.array([len(r.pairs_a) - len(r.pairs_b) for r in rows])
    return Agreement(
        a=names[0],
        b=names[1],
        compared=len(rows),
        exact_count_agreement=float(np.mean(diff == 0)),
        within_one_agreement=float(np.mean(np.abs(diff) <= 1)),
        pair_set_agreement=float(np.mean([sorted(r.pairs_a) == sorted(r.pairs_b) for r in rows])),
        f1_pearson=_pearson(np.array([r.f1_a for r in rows]), np.array([r.f1_b for r in rows])),
        only_in_a=len(set(by_a) - set(by_b)),
        only_in_b=len(set(by_b) - set(by_a)),
        excluded_empty=excluded,
        instances=rows,
    )


def write_agreement(
    dataset_dir: Path, predictions_dir: Path, a: str, b: str, *, nonempty_only: bool = True
) -> tuple[Agreement, Path]:
    """Compare ``matches/<a>.jsonl`` with ``matches/<b>.jsonl`` and write
    ``matches/agreement_<a>_vs_<b>.json`` (read by the report). Returns the result and the path."""
    tasks = build_tasks(dataset_dir, predictions_dir)
    result = compare_matches(
        tasks, load_matches(predictions_dir, a), load_matches(predictions_dir, b), nonempty_only=nonempty_only
    )
    path = Path(predictions_dir) / MATCHES_DIR / f"agreement_{a}_vs_{b}.json"
    path.write_text(json.dumps(result.to_dict(), indent=2) + "\n", encoding="utf-8")
    return result, path


def export_review_sample(
    agreement: Agreement, tasks: list[MatchTask], path: Path, *, n: int = 100, seed: int = 0
) -> int:
    """Write ``n`` randomly sampled compared instances (EarlyDx reviewed 100) for manual matching.

    Sampling is uniform over the compared instances with a fixed ``seed``, not biased towards
    disagreements, so the manual agreement it yields estimates the matcher's agreement overall.
    Returns the number of rows written.
    """
    texts = {(t.instance_id, t.system): t for t in tasks}
    rows = list(agreement.instances)
    sample = sorted(
        random.Random(seed).sample(rows, min(n, len(rows))), key=lambda r: (r.instance_id, r.system)
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=REVIEW_COLUMNS)
        writer.writeheader()
        for r in sample:
            task = texts[(r.instance_id, r.system)]
            writer.writerow({
                "instance_id": r.instance_id,
                "system": r.system,
                "references": numbered_lines(task.references),
                "predictions": numbered_lines(task.predictions),
                "a_matcher": agreement.a,
                "a_pairs": format_pairs(r.pairs_a),
                "b_matcher": agreement.b,
                "b_pairs": format_pairs(r.pairs_b),
                "manual_pairs": "",
                "notes": "",
            })  # fmt: skip
    return len(sample)
