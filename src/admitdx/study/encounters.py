"""The per-encounter browser's data: each evaluated encounter's input sections, its gold answer,
and every scored system's answer with the pairs that matched it.

Pairs come from where the score came from: the matcher's ``matches/<matcher>.jsonl`` for diagnosis
tasks; for code tasks (CliniBench) a gold code is found when a predicted code has the same
3-character roll-up (each gold code paired with the first such prediction, as micro-F1 counts it);
for category and text tasks there are no pairs and an answer is correct when it equals the target.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from admitdx.contracts import Instance, Prediction, load_instances, load_predictions
from admitdx.matching.runner import load_matches
from admitdx.study.match_audit import attach_verdicts

Encounter = dict[str, Any]


def encounters(dataset: Path, results: dict[str, Any], split: str = "test") -> list[Encounter]:
    """One record per evaluated encounter of ``results`` (a score run of ``dataset``), in order."""
    instances = load_instances(dataset, split=split)
    matcher = results["params"].get("matcher")
    systems: dict[str, tuple[dict[str, Prediction], dict[str, list[list[int]]]]] = {}
    for s in results["systems"]:
        directory = Path(s["predictions_dir"])
        predictions = {p.instance_id: p for p in load_predictions(directory)}
        pairs = (
            {m.instance_id: [list(p) for p in m.pairs] for m in load_matches(directory, matcher)}
            if matcher
            else {}
        )
        systems[s["name"]] = (predictions, pairs)
    found = [_encounter(inst, systems, matched=bool(matcher)) for inst in instances]
    if matcher:
        attach_verdicts(found, results, matcher)
    return found


def _encounter(
    inst: Instance,
    systems: dict[str, tuple[dict[str, Prediction], dict[str, list[list[int]]]]],
    *,
    matched: bool,
) -> Encounter:
    gold = [
        {"text": r.text, "code": r.code, "evidence_class": r.evidence_class, "explicit": r.explicit}
        for r in inst.references
    ]
    answers = {}
    for name, (predictions, pairs) in systems.items():
        p = predictions.get(inst.id)
        items = [{"text": it.text, "code": it.code} for it in p.items] if p else []
        found = pairs.get(inst.id, []) if matched else _code_pairs(items, gold)
        answers[name] = {
            "items": [it["text"] or it["code"] or "" for it in items],
            "answer": _shown(p.answer) if p else None,
            "pairs": found,
            "parse_error": p.parse_error if p else "no prediction",
            "correct": _correct(inst, p, found),
        }
    return {
        "id": inst.id,
        "subject_id": inst.subject_id,
        "sections": {k: v for k, v in inst.sections.items() if v},
        "gold": gold,
        "target": _shown(inst.target),
        "systems": answers,
    }


def _code_pairs(items: list[dict[str, Any]], gold: list[dict[str, Any]]) -> list[list[int]]:
    pairs, used = [], set()
    for r, ref in enumerate(gold):
        code = _three(ref["code"])
        for p, item in enumerate(items):
            if code and p not in used and _three(item["code"]) == code:
                pairs.append([p, r])
                used.add(p)
                break
    return pairs


def _three(code: str | None) -> str | None:
    return code.replace(".", "").upper()[:3] if code else None


def _correct(inst: Instance, p: Prediction | None, pairs: list[list[int]]) -> bool:
    """Every gold diagnosis found, or the category / text equal to the target."""
    if inst.references:
        return len({r for _, r in pairs}) == len(inst.references)
    return p is not None and p.answer is not None and _shown(p.answer) == _shown(inst.target)


def _shown(value: Any) -> str | None:
    """A category, a text, or a text task's parts (``{part: text}``) as one string."""
    if value is None or isinstance(value, str):
        return value
    return "\n".join(f"{k}: {v}" for k, v in value.items())
