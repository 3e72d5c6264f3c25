"""The prompted LLM whose last step maps its descriptions to codes (system kind ``llm-codes``,
CliniBench §4.2): guided JSON of diagnosis descriptions, then :class:`CodeMapper`, then the ranked
items carry ``PredictionItem.code`` (rolled up, duplicates after the roll-up removed, first kept).

Configured like ``llm``, plus ``mapping`` (exact | bm25 | embedding), ``mapping_options`` (the
retriever's, e.g. ``{model: …}`` for embedding) and ``mapping_targets`` (``dictionary``, the default
and the paper's: the whole ICD-9-CM / ICD-10-CM dictionary of the dataset's version; ``train``: the
training vocabulary only). ``min_items`` defaults to 20 here (``llm``: 1), the paper's exactly 20
descriptions; ``max_items`` is 20 as for ``llm``. The paper's decoding::

    systems:
      qwen-cb-fewshot:
        kind: llm-codes
        base_url: http://127.0.0.1:8000/v1
        model: Qwen/Qwen2-7B-Instruct
        prompt: few-shot          # zero-shot | cot | few-shot (k: 1, 3 or 5)
        retriever: bm25           # bm25 | dense | latent | random | gold (see below)
        k: 5
        min_items: 20             # exactly 20 descriptions …
        max_items: 20
        min_chars: 3              # … of 3 to 70 characters
        max_chars: 70
        max_tokens: 1500
        temperature: 0            # greedy
        mapping: embedding

Retrievers (§4.3): ``latent`` takes ``retriever_options: {model_dir: DIR}``, the folder an
``encoder`` system wrote with ``save_dir: DIR``. ``gold`` is the paper's ideal retriever: the
training notes whose 3-character codes are closest, by the Otsuka coefficient, to the *test*
note's own gold codes. It needs the answer, so the system then declares itself an oracle
(``needs_test_targets``): the runner hands it the test targets, the manifest says so, and the
report prints the run's caveat — an upper bound of few-shot learning, never a result.

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
from admitdx.retrieval import Hit
from admitdx.retrieval.gold import ORACLE_NOTE, GoldRetriever
from admitdx.systems import register
from admitdx.systems.code_mapping import CodeMapper, Method, Targets
from admitdx.systems.llm import DESCRIPTION, LLMPredictor, _caveat
from admitdx.systems.runner import ORACLE_INPUT
from admitdx.tasks.spec import TaskSpec

#: The paper's guided decoding asks for exactly 20 descriptions (§4.2); ``llm``'s default is 1.
MIN_ITEMS = 20


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


def label_set(inst: Instance) -> set[str]:
    """What the gold retriever compares: an instance's codes (its reference texts where uncoded)."""
    return {r.code or r.text for r in inst.references}


def _codes_caveat(manifest_inputs: dict[str, Any]) -> str | None:
    """The oracle mark of a gold-retriever run, then the toy-model caveat of any LLM run."""
    marks = [ORACLE_NOTE + "." if manifest_inputs.get(ORACLE_INPUT) else None, _caveat(manifest_inputs)]
    return " ".join(m for m in marks if m) or None


@register(
    "llm-codes",
    DESCRIPTION + " Its descriptions are mapped to codes (CliniBench 4.2). With `retriever: gold` it is "
    "an oracle: it uses the test labels to choose demonstrations (an upper bound).",
    caveat=_codes_caveat,
)
class LLMCodePredictor(LLMPredictor):
    def __init__(
        self,
        *,
        task: TaskSpec,
        allow_hosts: list[AllowedHost] | None = None,
        mapping: Method = "embedding",
        mapping_options: dict[str, Any] | None = None,
        mapping_targets: Targets = "dictionary",
        min_items: int = MIN_ITEMS,
        **options: Any,
    ) -> None:
        super().__init__(task=task, allow_hosts=allow_hosts, min_items=min_items, **options)
        self.mapper = CodeMapper(mapping, mapping_options, mapping_targets)
        self.name = f"llm-codes-{self.style}"
        self._answers = {"answers": 0, "valid_json": 0, "distinct_codes": 0}

    @property
    def needs_test_targets(self) -> bool:
        """The runner's oracle hook: only the gold retriever reads the test labels."""
        return isinstance(self.retriever, GoldRetriever)

    def manifest_inputs(self) -> dict[str, Any]:
        # the targets too: a run mapped onto the training vocabulary (before issue 20) must not resume
        return {
            **super().manifest_inputs(),
            "mapping": self.mapper.method,
            "mapping_targets": self.mapper.targets,
        }

    def _index_exemplars(self) -> None:
        if self.needs_test_targets:
            self.retriever.fit([label_set(t) for t in self._train])
        else:
            super()._index_exemplars()

    def _neighbours(self, inst: Instance) -> list[Hit]:
        if self.needs_test_targets:
            return self.retriever.query(label_set(inst), self.k)
        return super()._neighbours(inst)

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
