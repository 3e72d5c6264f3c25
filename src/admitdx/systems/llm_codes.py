"""The prompted LLM whose last step maps its descriptions to codes (system kind ``llm-codes``,
CliniBench §4.2): guided JSON of diagnosis descriptions, then :class:`CodeMapper`, then the ranked
items carry ``PredictionItem.code`` (rolled up, duplicates after the roll-up removed, first kept).

Configured like ``llm``, plus ``mapping`` (exact | bm25 | embedding) and ``mapping_options`` (the
retriever's, e.g. ``{model: …}`` for embedding). The paper's decoding::

    systems:
      qwen-cb-fewshot:
        kind: llm-codes
        base_url: http://127.0.0.1:8000/v1
        model: Qwen/Qwen2-7B-Instruct
        prompt: few-shot          # zero-shot | cot | few-shot (k: 1, 3 or 5; retriever bm25/dense/random)
        k: 5
        min_items: 20             # exactly 20 descriptions …
        max_items: 20
        min_chars: 3              # … of 3 to 70 characters
        max_chars: 70
        max_tokens: 1500
        temperature: 0            # greedy
        mapping: embedding

An unmapped description stays in the list without a code (the suite counts it as ``uncoded``).
The run's fit summary reports appendix A.3's figures: the valid-JSON rate and the mean number of
distinct codes per answer, with the mapping's discarded share.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from admitdx.contracts import Instance, Prediction, PredictionItem
from admitdx.llm.client import Completion
from admitdx.llm.egress import AllowedHost
from admitdx.systems import register
from admitdx.systems.code_mapping import CodeMapper, Method
from admitdx.systems.llm import DESCRIPTION, LLMPredictor, _caveat
from admitdx.tasks.spec import TaskSpec


def coded_items(items: list[PredictionItem], codes: list[str | None]) -> list[PredictionItem]:
    """Items with their codes, a code seen at a better rank dropping the later item (§4.2)."""
    out: list[PredictionItem] = []
    seen: set[str] = set()
    for item, code in zip(items, codes, strict=True):
        if code is not None and code in seen:
            continue
        if code is not None:
            seen.add(code)
        out.append(replace(item, code=code))
    return out


@register(
    "llm-codes", DESCRIPTION + " Its descriptions are mapped to codes (CliniBench 4.2).", caveat=_caveat
)
class LLMCodePredictor(LLMPredictor):
    def __init__(
        self,
        *,
        task: TaskSpec,
        allow_hosts: list[AllowedHost] | None = None,
        mapping: Method = "embedding",
        mapping_options: dict[str, Any] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(task=task, allow_hosts=allow_hosts, **options)
        self.mapper = CodeMapper(mapping, mapping_options)
        self.name = f"llm-codes-{self.style}"
        self._answers = {"answers": 0, "valid_json": 0, "distinct_codes": 0}

    def manifest_inputs(self) -> dict[str, Any]:
        return {**super().manifest_inputs(), "mapping": self.mapper.method}

    def fit(self, train: list[Instance]) -> None:
        super().fit(train)
        self.mapper.fit(train)

    def to_prediction(self, inst: Instance, c: Completion) -> Prediction:
        prediction = super().to_prediction(inst, c)
        codes = self.mapper.map([it.text for it in prediction.items])
        items = coded_items(prediction.items, codes)
        self._answers["answers"] += 1
        self._answers["valid_json"] += prediction.parse_error is None
        self._answers["distinct_codes"] += len({it.code for it in items if it.code})
        return replace(prediction, items=items)

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        try:
            yield from super().predict(instances)
        finally:
            n = self._answers["answers"]
            self.fit_summary = {
                **self.fit_summary,
                **self.mapper.summary(),
                "valid_json_rate": round(self._answers["valid_json"] / n, 4) if n else None,
                "mean_distinct_codes": round(self._answers["distinct_codes"] / n, 2) if n else None,
            }
