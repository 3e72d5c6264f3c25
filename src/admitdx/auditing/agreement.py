"""How far an auditor agrees with the synthetic generator's intended evidence classes.

The synthetic root's ``_truth/encounters.jsonl.gz`` (see :mod:`admitdx.synthetic.truth`)
records, for every ED stay and condition, the evidence class the generator *meant*. A reference is
joined to it by (stay_id, ICD code). Reported: the 3×3 confusion matrix (truth rows, auditor
columns), accuracy, Cohen's kappa, per-class precision and recall, and the counts that could not
be compared (no truth record, or an auditor answer that could not be parsed).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from admitdx.auditing.verdict import EVIDENCE_CLASSES
from admitdx.contracts import Instance
from admitdx.synthetic.truth import read_truth


def truth_classes(synthetic_root: Path) -> dict[tuple[int, str], str]:
    """(stay_id, ICD code without dots) → intended evidence class."""
    out: dict[tuple[int, str], str] = {}
    for enc in read_truth(synthetic_root):
        for cond in enc["conditions"]:
            out[(int(enc["stay_id"]), cond["icd_code"].replace(".", "").upper())] = cond["evidence_class"]
    return out


def cohen_kappa(matrix: dict[str, dict[str, int]]) -> float | None:
    n = sum(sum(row.values()) for row in matrix.values())
    if n == 0:
        return None
    observed = sum(matrix[c][c] for c in EVIDENCE_CLASSES) / n
    expected = sum(
        sum(matrix[c].values()) * sum(matrix[r][c] for r in EVIDENCE_CLASSES) for c in EVIDENCE_CLASSES
    ) / (n * n)
    return None if expected == 1 else (observed - expected) / (1 - expected)


def agreement(instances: list[Instance], synthetic_root: Path) -> dict[str, Any]:
    """Compare the audited ``evidence_class`` of every reference with the generator's truth."""
    truth = truth_classes(synthetic_root)
    matrix = {t: dict.fromkeys(EVIDENCE_CLASSES, 0) for t in EVIDENCE_CLASSES}
    skipped: Counter[str] = Counter()
    for inst in instances:
        for ref in inst.references:
            key = (int(inst.stay_id or -1), (ref.code or "").replace(".", "").upper())
            if key not in truth:
                skipped["no truth record"] += 1
            elif ref.evidence_class is None:
                skipped["not audited / unparseable"] += 1
            else:
                matrix[truth[key]][ref.evidence_class] += 1
    n = sum(sum(row.values()) for row in matrix.values())
    per_class = {}
    for c in EVIDENCE_CLASSES:
        predicted = sum(matrix[t][c] for t in EVIDENCE_CLASSES)
        actual = sum(matrix[c].values())
        per_class[c] = {
            "precision": matrix[c][c] / predicted if predicted else None,
            "recall": matrix[c][c] / actual if actual else None,
            "truth": actual,
            "auditor": predicted,
        }
    return {
        "compared": n,
        "accuracy": sum(matrix[c][c] for c in EVIDENCE_CLASSES) / n if n else None,
        "cohen_kappa": cohen_kappa(matrix),
        "confusion": matrix,
        "per_class": per_class,
        "skipped": dict(skipped),
    }
