"""The papers' published numbers (``published.csv``), to show beside a study's own rows.

One row per number: the benchmark, the admitdx tasks it compares with (space-separated), a
``match`` of task parameters it needs (``module=hosp``: CliniBench's hosp and icu tables differ),
the system and setting as the paper names them, the metric under admitdx's results.json key, the
value as a fraction, the number as ``printed``, its table (or section), the data it was measured
on, and ``quote``: the paper text that holds the number (tests check every quote against the
papers). They were measured on the full data; a demo or synthetic root is not comparable, and every
page that shows them says so.

What is in it: CliniBench table 2 (hosp and icu; recall, precision, MAP and main-diagnosis
accuracy, zero-shot, zero-shot + CoT and five demonstrations; the paper gives no macro-F1 there),
ER-Reason tables 2, 3, 4, 6 and 7, and EarlyDx's table 2 as far as its text states the values
(the table's body is not in the paper text we have: nine numbers from §5.1).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PUBLISHED_FILE = Path(__file__).with_name("published.csv")


@dataclass(frozen=True)
class Published:
    benchmark: str
    tasks: tuple[str, ...]
    match: dict[str, str]
    system: str
    setting: str
    metric: str
    value: float
    printed: str
    unit: str  # how the paper prints it: "%" or "fraction"
    source: str
    data: str
    quote: str

    def applies_to(self, task: str, params: Any) -> bool:
        """Whether this number was measured on ``task`` built with parameters like ``params``."""
        return task in self.tasks and all(str(getattr(params, k, None)) == v for k, v in self.match.items())

    @property
    def label(self) -> str:
        return f"{self.system} ({self.setting})" if self.setting else self.system


def load_published(path: Path = PUBLISHED_FILE) -> list[Published]:
    with open(path, encoding="utf-8", newline="") as f:
        return [
            Published(
                benchmark=r["benchmark"],
                tasks=tuple(r["tasks"].split()),
                match=dict(pair.split("=", 1) for pair in r["match"].split()),
                system=r["system"],
                setting=r["setting"],
                metric=r["metric"],
                value=float(r["value"]),
                printed=r["printed"],
                unit=r["unit"],
                source=r["source"],
                data=r["data"],
                quote=r["quote"],
            )
            for r in csv.DictReader(f)
        ]
