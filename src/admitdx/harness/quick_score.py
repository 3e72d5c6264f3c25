"""The harness-native score of an exported task: an honest per-sample number for a quick look in
Inspect View or lm-eval's table, and deliberately not the papers' metric (its name says so).

It reads the answer as ``predict`` does (thinking apart, the tolerant JSON parse, the task's answer
reader) and then compares strictly:

* a category or a text: 1 when the answer equals the target (case and surrounding space ignored);
* a diagnosis list: the share of gold labels the list names word for word (normalised as
  :func:`admitdx.systems.labels.label_key`) or by their code (CliniBench codes).

EarlyDx's one-to-one semantic matching, CliniBench's ranking metrics and ER-Reason's ROUGE and
concept recall are admitdx's scoring, after ``admitdx import``: word-for-word overlap undercounts a
correct diagnosis in other words, so this number is a floor, not a result.
"""

from __future__ import annotations

from typing import Any

from admitdx.llm.parse import parse_output
from admitdx.llm.reasoning import split_thinking
from admitdx.systems.labels import label_key
from admitdx.tasks.answers import read_category, read_diagnoses, read_text

#: The metric's name in both harnesses.
METRIC = "quick_exact_not_paper_metric"


def quick_score(header: dict[str, Any], completion: str, target: Any) -> float:
    """0..1 for one sample's model output against its gold ``target`` (module docstring)."""
    parsed = parse_output(split_thinking(completion).answer)
    if parsed.error is not None:
        return 0.0
    answer = header["answer"]
    if answer == "diagnoses":
        items = read_diagnoses(parsed.value, int(header["max_items"])).items
        named = {label_key(i.text) for i in items}
        gold = target or []
        keys = [{label_key(g["text"]), *([label_key(g["code"])] if g.get("code") else [])} for g in gold]
        hits = sum(bool(k & named) for k in keys)
        return hits / len(gold) if gold else 0.0
    if answer == "category":
        read = read_category(parsed.value, tuple(header["categories"]))
    else:
        read = read_text(parsed.value)
    if read.error is not None or not isinstance(read.answer, str) or not isinstance(target, str):
        return 0.0
    return float(read.answer.strip().lower() == target.strip().lower())
