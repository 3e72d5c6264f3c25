"""What the lm-evaluation-harness task of an export runs: its ``utils.py`` imports these functions,
which its YAML names with ``!function``.

lm-eval builds a chat request from a document as [system: the task's ``description``, then each
few-shot document's user and assistant turns, then the document's text]. The export's documents
carry exactly the parts of the rendered messages: ``system`` (the description field), ``turns``
(the demonstrations the retriever chose for this instance, returned by :class:`ExemplarTurns`,
a sampler that ignores lm-eval's random draw) and ``user`` (the record). With
``--apply_chat_template --fewshot_as_multiturn`` the request sent is then ``admitdx predict``'s,
message for message; ``admitdx import lm-eval`` compares the logged context with the export and
refuses a run that sent anything else.

``process_results`` gives the quick score (:mod:`admitdx.harness.quick_score`), named as not the
paper's metric.
"""

from __future__ import annotations

import json
from typing import Any

from lm_eval.api.samplers import ContextSampler

from admitdx.harness.logs import HEADER_KEY
from admitdx.harness.quick_score import METRIC, quick_score


def doc_to_text(doc: dict[str, Any]) -> str:
    return doc["user"]


def doc_to_target(doc: dict[str, Any]) -> str:
    """lm-eval logs it as the sample's target; the quick score reads the JSON."""
    return doc["target"]


def turn_text(turn: dict[str, Any]) -> str:
    return turn["user"]


def turn_answer(turn: dict[str, Any]) -> str:
    return turn["assistant"]


class ExemplarTurns(ContextSampler):
    """The document's own demonstrations, in the exported order (lm-eval's ``n`` is the export's k)."""

    def sample(
        self, n: int, eval_doc: dict[str, Any] | None = None, df: Any = None, **kwargs: Any
    ) -> list[dict]:
        if eval_doc is None:
            raise ValueError(
                "the admitdx export's sampler needs the evaluated document (fewshot_split: test)"
            )
        return [{"user": u, "assistant": a} for u, a in json.loads(eval_doc["turns"])]


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    header = json.loads(doc[HEADER_KEY])
    return {METRIC: quick_score(header, results[0], json.loads(doc["target"]))}
