"""Manual matching: a reviewer's pairs, read back from the review CSV as the ``manual`` matcher.

``admitdx agree --export review.csv`` writes a sample of instances with both lists numbered from 1
and an empty ``manual_pairs`` column. The reviewer fills it with the matched pairs as
``prediction-reference`` numbers separated by ``;`` (``1-2; 3-1``), or ``none`` when nothing
matches; a row left blank was not reviewed and is skipped, so it never counts as "no match".
``admitdx match --matcher manual --param csv=review.csv`` then turns the reviewed rows into Match
records (``details.reviewed`` False for instances outside the review) that ``admitdx agree`` can
compare with any other matcher (EarlyDx's manual review of 100 sampled pairs, figure 5).

The CSV keeps the texts the reviewer saw; if the predictions or references have changed since,
reading it fails instead of attaching old decisions to new texts.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from admitdx.errors import InputError
from admitdx.matching.base import Matcher, MatchOutcome, MatchTask, Pair, check_one_to_one
from admitdx.runs import sha256_file

REVIEW_COLUMNS = [
    "instance_id", "system", "references", "predictions",
    "a_matcher", "a_pairs", "b_matcher", "b_pairs", "manual_pairs", "notes",
]  # fmt: skip


def format_pairs(pairs: list[Pair]) -> str:
    """0-based pairs as the reviewer reads them: 1-based ``p-r`` joined by ``; `` (``none`` if empty)."""
    return "; ".join(f"{p + 1}-{r + 1}" for p, r in sorted(pairs)) or "none"


def parse_pairs(text: str) -> list[Pair]:
    """Inverse of :func:`format_pairs`; raises ValueError on anything else."""
    text = text.strip().lower()
    if text == "none":
        return []
    pairs = []
    for chunk in filter(None, (c.strip() for c in text.replace(",", ";").split(";"))):
        p, sep, r = chunk.partition("-")
        if not sep or not p.strip().isdigit() or not r.strip().isdigit():
            raise ValueError(f"{chunk!r} is not of the form prediction-reference, e.g. 1-2")
        pairs.append((int(p) - 1, int(r) - 1))
    return pairs


def numbered_lines(texts: list[str]) -> str:
    return "\n".join(f"{i}. {t}" for i, t in enumerate(texts, start=1))


def read_review(path: Path) -> dict[tuple[str, str], tuple[list[Pair], str, str]]:
    """``(instance_id, system) → (pairs, numbered references, numbered predictions)`` of reviewed rows."""
    out: dict[tuple[str, str], tuple[list[Pair], str, str]] = {}
    with Path(path).open(newline="", encoding="utf-8") as f:
        for row_no, row in enumerate(csv.DictReader(f), start=2):
            cell = (row.get("manual_pairs") or "").strip()
            if not cell:
                continue
            try:
                pairs = parse_pairs(cell)
            except ValueError as e:
                raise InputError(
                    str(e),
                    table=str(path),
                    column="manual_pairs",
                    row=row_no,
                    hint="write pairs as 1-2; 3-1 (prediction-reference), or none",
                ) from e
            # Spreadsheet programs may save the in-cell line breaks as \r\n.
            refs, preds = (row[c].replace("\r\n", "\n") for c in ("references", "predictions"))
            out[(row["instance_id"], row["system"])] = (pairs, refs, preds)
    return out


class ManualMatcher(Matcher):
    """``ManualMatcher(csv=PATH)``: the reviewer's pairs for reviewed instances, validated one-to-one."""

    name = "manual"
    cacheable = False

    def __init__(self, csv: str | Path) -> None:
        self.path = Path(csv)
        if not self.path.exists():
            raise InputError(
                f"review file {self.path} not found",
                hint="export one with `admitdx agree ... --sample N --export FILE.csv`",
            )
        self.review = read_review(self.path)

    def params(self) -> dict[str, Any]:
        return {"csv": str(self.path), "csv_sha256": sha256_file(self.path)}

    def cache_key(self, task: MatchTask) -> str:
        """Per instance, not per text: a reviewer may judge two instances with equal texts apart."""
        return f"{super().cache_key(task)}:{task.instance_id}:{task.system}"

    def match(self, task: MatchTask) -> MatchOutcome:
        entry = self.review.get((task.instance_id, task.system))
        if entry is None:
            return MatchOutcome(pairs=[], details={"reviewed": False})
        pairs, refs, preds = entry
        if refs != numbered_lines(task.references) or preds != numbered_lines(task.predictions):
            raise InputError(
                f"the review of instance '{task.instance_id}' was made on different texts",
                table=str(self.path),
                hint="export a new review sample for the current predictions",
            )
        try:
            checked = check_one_to_one(pairs, len(task.predictions), len(task.references))
        except ValueError as e:
            raise InputError(
                f"instance '{task.instance_id}': {e}",
                table=str(self.path),
                column="manual_pairs",
                hint="each prediction and each reference may appear in at most one pair",
            ) from e
        return MatchOutcome(pairs=checked, details={"reviewed": True})

    def summarize(self, outcomes: list[MatchOutcome]) -> dict[str, Any]:
        return {"reviewed": sum(1 for o in outcomes if o.details.get("reviewed"))}
