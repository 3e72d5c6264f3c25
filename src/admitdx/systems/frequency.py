"""The frequency prior: every encounter gets the k most common training diagnoses.

EarlyDx section 5.1 uses it as a control ("always predicts the three most common training
diagnoses", 0.10 F1 overall): it shows what the marginal label distribution alone is worth.
"Most common" counts training encounters carrying the label (a label repeated within one encounter
counts once); ties go to the alphabetically first title. The score is the share of training
encounters that carry the label.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from admitdx.contracts import Instance, Prediction, PredictionItem
from admitdx.systems import register
from admitdx.systems.labels import LabelCounts


@register("frequency", "frequency prior: the k most common training diagnoses for everyone (k=3)")
class FrequencyPrior:
    name = "frequency"

    def __init__(self, *, k: int = 3) -> None:
        self.k = k
        self._items: list[PredictionItem] = []

    def fit(self, train: list[Instance]) -> None:
        counts = LabelCounts.from_instances(train)
        self._items = [
            PredictionItem(counts.spelling[key], score=counts.encounters[key] / counts.n_instances)
            for key in counts.most_frequent(self.k)
        ]

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        for inst in instances:
            yield Prediction(instance_id=inst.id, system=self.name, items=list(self._items))
