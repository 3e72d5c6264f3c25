"""What table 1 reports per dataset: notes, full and short codes, codes and tokens per note, and the
head / tail tertile thresholds of label frequency.

Tokens: the paper counts BioMedBERT WordPiece tokens; no tokenizer model may be downloaded at run
time, so we count BERT's basic (pre-WordPiece) units — runs of word characters and single
punctuation marks — a lower bound on the paper's figure (WordPiece only splits words further).

Tertiles (appendix A.2, figure 3): the evaluated labels sorted by training-split frequency
(descending, ties by code) and cut into three parts as ``numpy.array_split`` does (the first parts
one longer when the count is not a multiple of three) — the rule the CliniBench scoring suite
applies. The head threshold is the smallest frequency in the head; the tail threshold is one more
than the largest frequency in the tail ("each tail code appears fewer than N times", table 1).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokens(text: str) -> list[str]:
    """BERT's basic split: word-character runs and single punctuation marks."""
    return _TOKEN.findall(text)


def tertile_thresholds(frequencies: Mapping[str, int], labels: set[str]) -> dict[str, int | None]:
    ordered = sorted(labels, key=lambda lab: (-frequencies.get(lab, 0), lab))
    n = len(ordered)
    if n < 3:
        return {"head": None, "tail": None}
    sizes = [n // 3 + (1 if i < n % 3 else 0) for i in range(3)]
    head, tail = ordered[: sizes[0]], ordered[sizes[0] + sizes[1] :]
    return {
        "head": min(frequencies.get(lab, 0) for lab in head),
        "tail": max(frequencies.get(lab, 0) for lab in tail) + 1,
    }


def _mean(values: Sequence[int]) -> float:
    return round(sum(values) / len(values), 2) if values else 0.0


def dataset_counts(
    *,
    notes: Counter[str],
    tokens_per_note: Sequence[int],
    codes_per_note: Sequence[int],
    full_codes: int,
    per_split: Mapping[str, Counter[str]],
    evaluated: set[str],
    dropped: Mapping[str, int],
) -> dict[str, Any]:
    total = sum(notes.values())
    every = set().union(*per_split.values())
    return {
        "notes": total,
        "notes_per_split": {s: notes[s] for s in per_split},
        "split_fractions": {s: round(notes[s] / total, 4) if total else 0.0 for s in per_split},
        "full_codes": full_codes,
        "short_codes": len(every),
        "evaluated_labels": len(evaluated),
        "excluded_labels": len(every - evaluated),
        "codes_per_note": _mean(codes_per_note),
        "tokens_per_note": _mean(tokens_per_note),
        "tertile_thresholds": tertile_thresholds(per_split["train"], evaluated),
        "dropped": dict(sorted(dropped.items())),
    }


#: Table 1's rows, as named in a dataset's counts.
TABLE_ONE_ROWS = ("notes", "full_codes", "short_codes", "codes_per_note", "tokens_per_note")


def table_one(counts: Mapping[str, Any]) -> dict[str, Any]:
    """One dataset's column of table 1 (the tertile thresholds as "tail" and "head")."""
    return {
        **{row: counts[row] for row in TABLE_ONE_ROWS},
        "tail": counts["tertile_thresholds"]["tail"],
        "head": counts["tertile_thresholds"]["head"],
    }
