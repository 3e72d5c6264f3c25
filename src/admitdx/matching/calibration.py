"""Choosing the embedding matcher's similarity threshold on a hand-labelled calibration set.

The calibration set (``data/embedding_calibration_pairs.csv``) holds (prediction, reference,
is_match) pairs written by hand from clinical knowledge, each with a one-line reason. The rule
for ``is_match``: a clinician would count the prediction as naming the reference's condition,
allowing a difference in specificity within the same disease (NSTEMI ↔ acute myocardial
infarction, hip fracture ↔ fracture of the femoral neck) and lay or abbreviated wording; *not* a
different disease in the same organ system (atrial fibrillation ↔ flutter), a cause or
consequence (sepsis ↔ its source UTI, cirrhosis ↔ hepatic encephalopathy), a symptom for a
diagnosis (chest pain ↔ myocardial infarction) or an opposite (hypo- ↔ hyperkalemia). Negatives
are deliberately hard: near neighbours a careless matcher would accept.

Procedure (:func:`calibrate_threshold`): embed both sides exactly as the matcher does, take the
cosine similarity of each pair, and scan every midpoint between consecutive distinct similarities;
keep the thresholds with the best ``objective`` (F1 of "is a match" by default, because a false
match inflates a system's score as much as a missed one deflates it) and return the median of
them, which keeps the choice away from the edge of the optimal range. The result for the default
model is recorded in ``data/embedding_calibration.json`` and is the matcher's default threshold;
``python -m admitdx.matching.calibration`` recomputes and rewrites it.
"""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Literal

import numpy as np

from admitdx.embeddings import Embedder
from admitdx.errors import InputError
from admitdx.matching.normalize import expand_diagnosis
from admitdx.runs import sha256_file

Objective = Literal["f1", "accuracy"]

DATA_DIR = Path(str(resources.files("admitdx.matching") / "data"))
CALIBRATION_PAIRS = DATA_DIR / "embedding_calibration_pairs.csv"
CALIBRATION_RESULT = DATA_DIR / "embedding_calibration.json"


@dataclass(frozen=True)
class CalibrationPair:
    prediction: str
    reference: str
    is_match: bool


@dataclass(frozen=True)
class Calibration:
    """The chosen threshold and how well it separates the calibration pairs."""

    model_id: str
    threshold: float
    objective: str
    precision: float
    recall: float
    f1: float
    accuracy: float
    n_pairs: int
    n_matches: int
    pairs_sha256: str
    expand_abbreviations: bool
    created: str


def read_calibration_pairs(path: Path = CALIBRATION_PAIRS) -> list[CalibrationPair]:
    """Read a calibration CSV with columns prediction, reference, is_match (0/1) and optional why."""
    pairs: list[CalibrationPair] = []
    with Path(path).open(newline="", encoding="utf-8") as f:
        for row_no, row in enumerate(csv.DictReader(f), start=2):
            flag = (row.get("is_match") or "").strip()
            if flag not in {"0", "1"}:
                raise InputError(
                    f"is_match must be 0 or 1, got {flag!r}", table=str(path), column="is_match", row=row_no
                )
            pairs.append(CalibrationPair(row["prediction"], row["reference"], flag == "1"))
    return pairs


def _scores(truth: np.ndarray, predicted: np.ndarray) -> dict[str, float]:
    tp = float(np.sum(truth & predicted))
    fp = float(np.sum(~truth & predicted))
    fn = float(np.sum(truth & ~predicted))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "accuracy": float(np.mean(truth == predicted)),
    }


def best_threshold(similarities: np.ndarray, truth: np.ndarray, objective: Objective = "f1") -> float:
    """The median of the midpoints between distinct similarities that maximise ``objective``."""
    values = np.unique(similarities)
    candidates = np.concatenate([[values[0] - 1e-6], (values[:-1] + values[1:]) / 2, [values[-1] + 1e-6]])
    scored = np.array([_scores(truth, similarities >= t)[objective] for t in candidates])
    optimal = candidates[np.isclose(scored, scored.max())]
    return float(np.median(optimal))


def calibrate_threshold(
    embedder: Embedder,
    pairs: list[CalibrationPair] | None = None,
    *,
    objective: Objective = "f1",
    expand_abbreviations: bool = True,
    pairs_path: Path = CALIBRATION_PAIRS,
) -> Calibration:
    """Choose the similarity threshold for ``embedder`` on ``pairs`` (default: the shipped set)."""
    pairs = pairs if pairs is not None else read_calibration_pairs(pairs_path)
    prep = expand_diagnosis if expand_abbreviations else (lambda t: t)
    left = embedder.encode([prep(p.prediction) for p in pairs])
    right = embedder.encode([prep(p.reference) for p in pairs])
    similarities = np.sum(left * right, axis=1)
    truth = np.array([p.is_match for p in pairs], dtype=bool)
    threshold = best_threshold(similarities, truth, objective)
    scores = _scores(truth, similarities >= threshold)
    return Calibration(
        model_id=embedder.model_id,
        threshold=round(threshold, 4),
        objective=objective,
        n_pairs=len(pairs),
        n_matches=int(truth.sum()),
        pairs_sha256=sha256_file(pairs_path),
        expand_abbreviations=expand_abbreviations,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        **{k: round(v, 4) for k, v in scores.items()},
    )


def recorded_calibration(path: Path = CALIBRATION_RESULT) -> Calibration | None:
    """The calibration shipped with admitdx (None if it has not been recorded)."""
    return Calibration(**json.loads(path.read_text(encoding="utf-8"))) if path.exists() else None


def record_calibration(calibration: Calibration, path: Path = CALIBRATION_RESULT) -> Path:
    path.write_text(json.dumps(asdict(calibration), indent=2) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    result = calibrate_threshold(Embedder(precision="float32"))  # the embedding matcher's default
    print(json.dumps(asdict(result), indent=2))
    print(f"written to {record_calibration(result)}")
