"""Choosing the guarded matcher's thresholds on the adjudicated pair set, under a precision floor.

The guard sorts every pair into a case (:class:`admitdx.matching.guarded.Assessment`); three
thresholds then decide: ``threshold`` (no codes to compare), ``agree_threshold`` (codes agree) and
``near_identical`` (codes differ). :func:`choose_thresholds` scans every combination of the
distinct similarities on the set (plus a value above all of them) and keeps those whose precision
reaches ``precision_floor`` (default 0.95: a false match inflates a system's score as much as a
missed one deflates it, and clinicians sign off on matches, so precision comes first); among them
it takes the highest recall, then the best agreement, then the highest thresholds (the most
cautious). With no combination reaching the floor it says so (``floor_met`` False) and keeps the
best precision.

The thresholds may be chosen on several pair files at once (their union: more pairs, a less noisy
threshold). The result is recorded in ``data/guarded_calibration.json`` with every file's name,
SHA-256 and size, the set's version (the files' names joined by "+", and the SHA-256 of their
SHA-256s), the precision, recall and agreement reached on the union and on each file, and the term
table's SHA-256; ``admitdx match --calibrate --pairs FILE [--pairs FILE …]`` recomputes and rewrites
it. Every match
summary of the guarded matcher carries this record, and results.json copies it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from admitdx.runs import sha256_file

CALIBRATION_FILE = Path(str(resources.files("admitdx.matching") / "data" / "guarded_calibration.json"))
DEFAULT_PRECISION_FLOOR = 0.95
#: which threshold decides each case of the guard ("always": accepted whatever the similarity)
CASE_GROUP = {"identical": "always", "same_code": "always", "unsure": "uncoded", "contained": "agree"}
#: "near-identical" is a coarse notion: scanned on a few values, not on every similarity of the set.
#: Not below 0.9: at 0.85 the union of the three pair sets let through dysphagia ↔ dysphasia,
#: peritonsillar ↔ peritoneal abscess and cholelithiasis ↔ gallstone pancreatitis (codes differing,
#: cosine 0.86-0.88) for as many true pairs; a one-letter neighbour is not a near-identical text
NEAR_IDENTICAL_GRID = np.array([0.9, 0.95, 1.01])


@dataclass(frozen=True)
class GuardThresholds:
    threshold: float
    agree_threshold: float
    near_identical: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass(frozen=True)
class GuardCalibration:
    """Chosen thresholds, the set they were chosen on, and what they reach there."""

    model_id: str
    thresholds: GuardThresholds
    precision_floor: float
    floor_met: bool
    precision: float
    recall: float
    agreement: float
    n_pairs: int
    n_same: int
    pairs_file: str
    pairs_sha256: str
    terms_sha256: str
    created: str
    by_case: dict[str, int] = field(default_factory=dict)
    #: per file: name, SHA-256, pairs, and the precision and recall the thresholds reach on it
    files: list[dict[str, Any]] = field(default_factory=list)

    @property
    def set_version(self) -> str:
        return f"{self.pairs_file}@{self.pairs_sha256[:12]} ({self.n_pairs} pairs)"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["thresholds"] = self.thresholds.to_dict()
        d["set_version"] = self.set_version
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GuardCalibration:
        d = {k: v for k, v in d.items() if k != "set_version"}
        return cls(**{**d, "thresholds": GuardThresholds(**d["thresholds"])})


def _candidates(values: np.ndarray) -> np.ndarray:
    # rounded down: a threshold rounded up past a pair's similarity would refuse the very pair it
    # was taken from (0.80077 → 0.8008)
    distinct = np.unique(np.floor(values * 1e4 + 1e-6) / 1e4)
    return np.concatenate([distinct, [1.01]])


def choose_thresholds(
    cases: list[str], similarities: np.ndarray, truth: np.ndarray, precision_floor: float
) -> tuple[GuardThresholds, dict[str, float], bool]:
    """The thresholds (see the module docstring) and the precision, recall, agreement they reach."""
    cases_a = np.array([CASE_GROUP.get(c, c) for c in cases])
    fixed = cases_a == "always"
    best: tuple | None = None
    per_case = {c: _candidates(similarities[cases_a == c]) if (cases_a == c).any() else np.array([1.01])
                for c in ("uncoded", "agree")}  # fmt: skip
    per_case["conflict"] = NEAR_IDENTICAL_GRID
    # each case's acceptance depends on its own threshold only: precompute per case and value
    counts: dict[str, list[tuple[float, int, int]]] = {}
    for case, values in per_case.items():
        mask = cases_a == case
        counts[case] = [(float(v), int((mask & (similarities >= v) & truth).sum()),
                         int((mask & (similarities >= v) & ~truth).sum())) for v in values]  # fmt: skip
    base_tp, base_fp = int((fixed & truth).sum()), int((fixed & ~truth).sum())
    n_same = int(truth.sum())
    n = len(truth)
    for tu, tp_u, fp_u in counts["uncoded"]:
        for ta, tp_a, fp_a in counts["agree"]:
            for tc, tp_c, fp_c in counts["conflict"]:
                tp, fp = base_tp + tp_u + tp_a + tp_c, base_fp + fp_u + fp_a + fp_c
                precision = tp / (tp + fp) if tp + fp else 1.0
                recall = tp / n_same if n_same else 0.0
                agreement = (tp + (n - n_same - fp)) / n
                met = precision >= precision_floor
                key = (met, recall if met else precision, agreement, tu + ta + tc)
                if best is None or key > best[0]:
                    best = (key, (tu, ta, tc), (precision, recall, agreement))
    assert best is not None
    (met, *_), (tu, ta, tc), (precision, recall, agreement) = best
    scores = {"precision": round(precision, 4), "recall": round(recall, 4), "agreement": round(agreement, 4)}
    return GuardThresholds(round(tu, 4), round(ta, 4), round(tc, 4)), scores, bool(met)


def calibrate(
    matcher: Any, pairs_paths: Path | Sequence[Path], precision_floor: float = DEFAULT_PRECISION_FLOOR
) -> GuardCalibration:
    """Assess every adjudicated pair of the files with ``matcher`` (a GuardedMatcher) and choose its
    thresholds on their union."""
    from admitdx.matching.adjudicated import pair_tasks, read_pairs
    from admitdx.matching.guard_text import terms

    paths = [Path(pairs_paths)] if isinstance(pairs_paths, str | Path) else [Path(p) for p in pairs_paths]
    per_file = [read_pairs(p) for p in paths]
    pairs = [p for file in per_file for p in file]
    assessed = [rows[0][0] for rows in matcher.assess_many(pair_tasks(pairs))]
    truth = np.array([p.same for p in pairs], dtype=bool)
    similarities = np.array([a.similarity for a in assessed])
    cases = [a.case for a in assessed]
    thresholds, scores, met = choose_thresholds(cases, similarities, truth, precision_floor)
    accepted = np.array([a.accepted(thresholds) for a in assessed], dtype=bool)
    shas = [sha256_file(p) for p in paths]
    files, start = [], 0
    for path, sha, file in zip(paths, shas, per_file, strict=True):
        a, t = accepted[start : start + len(file)], truth[start : start + len(file)]
        start += len(file)
        files.append({"file": path.name, "sha256": sha, "n_pairs": len(file), "n_same": int(t.sum()),
                      "precision": round(float((a & t).sum() / a.sum()), 4) if a.any() else 1.0,
                      "recall": round(float((a & t).sum() / t.sum()), 4) if t.any() else 0.0})  # fmt: skip
    return GuardCalibration(
        model_id=matcher.embedder.model_id,
        thresholds=thresholds,
        precision_floor=precision_floor,
        floor_met=met,
        n_pairs=len(pairs),
        n_same=int(truth.sum()),
        pairs_file="+".join(p.name for p in paths),
        pairs_sha256=shas[0] if len(shas) == 1 else hashlib.sha256("".join(shas).encode()).hexdigest(),
        terms_sha256=terms().sha256,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        by_case={c: cases.count(c) for c in sorted(set(cases))},
        files=files,
        **scores,
    )


def recorded_guard_calibration(path: Path = CALIBRATION_FILE) -> GuardCalibration | None:
    """The calibration shipped with admitdx (None if none is recorded)."""
    return GuardCalibration.from_dict(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else None


def record_guard_calibration(calibration: GuardCalibration, path: Path = CALIBRATION_FILE) -> Path:
    path.write_text(json.dumps(calibration.to_dict(), indent=2) + "\n", encoding="utf-8")
    return path
