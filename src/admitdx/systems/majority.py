"""Majority class: every instance of a category task gets the most common training answer.

ER-Reason's control for acuity and disposition: what the class prior alone is worth (on a
disposition task where most stays are admitted, "admit everyone" is a strong-looking accuracy and
a 0 % discharge rate). Ties go to the category listed first in the task's spec.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from admitdx.contracts import Instance, Prediction
from admitdx.errors import UsageError
from admitdx.systems import register
from admitdx.tasks.spec import TaskSpec


@register(
    "majority", "majority class: the most common training answer of a category task", answers=("category",)
)
class MajorityClass:
    name = "majority"

    def __init__(self, *, task: TaskSpec) -> None:
        self.categories = task.categories
        self.answer: str | None = None

    def fit(self, train: list[Instance]) -> None:
        counts = Counter(i.target for i in train if i.target in self.categories)
        if not counts:
            raise UsageError("majority: the training split has no answers", hint="build with a train split")
        top = max(counts.values())
        self.answer = next(c for c in self.categories if counts[c] == top)

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        for inst in instances:
            yield Prediction(instance_id=inst.id, system=self.name, items=[], answer=self.answer)
