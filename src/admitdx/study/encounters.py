"""The per-encounter browser's data: each evaluated encounter's input sections, its gold answer,
and every scored system's answer with the pairs that matched it, and its transcript: the prompt as
sent, the raw output, the reasoning, tokens and latency (an LLM run's ``samples.jsonl``; for other
systems what the prediction itself records), each matched pair with the matcher's similarity and,
where the matcher records one, its guard's verdict.

Pairs come from where the score came from: the matcher's ``matches/<matcher>.jsonl`` for diagnosis
tasks; for code tasks (CliniBench) a gold code is found when a predicted code has the same
3-character roll-up (each gold code paired with the first such prediction, as micro-F1 counts it);
for category and text tasks there are no pairs and an answer is correct when it equals the target.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from admitdx.contracts import Instance, Match, Prediction, load_instances, load_predictions
from admitdx.jsonl import read_jsonl
from admitdx.llm.usage import reasoning_tokens
from admitdx.matching.runner import load_matches
from admitdx.systems.sample_log import SAMPLES_FILE

Encounter = dict[str, Any]


def encounters(dataset: Path, results: dict[str, Any], split: str = "test") -> list[Encounter]:
    """One record per evaluated encounter of ``results`` (a score run of ``dataset``), in order."""
    instances = load_instances(dataset, split=split)
    matcher = results["params"].get("matcher")
    systems: dict[str, _System] = {}
    for s in results["systems"]:
        directory = Path(s["predictions_dir"])
        predictions = {p.instance_id: p for p in load_predictions(directory)}
        matches = {m.instance_id: m for m in load_matches(directory, matcher)} if matcher else {}
        systems[s["name"]] = _System(predictions, matches, _samples(directory))
    return [_encounter(inst, systems, matched=bool(matcher)) for inst in instances]


@dataclass(frozen=True)
class _System:
    predictions: dict[str, Prediction]
    matches: dict[str, Match]
    samples: dict[str, list[dict[str, Any]]]  # instance id → its calls (a text task's parts: one each)


def _samples(directory: Path) -> dict[str, list[dict[str, Any]]]:
    """An LLM run's samples.jsonl by instance (empty for a system that calls no model)."""
    path = directory / SAMPLES_FILE
    out: dict[str, list[dict[str, Any]]] = {}
    for record in read_jsonl(path) if path.is_file() else ():
        out.setdefault(record["instance_id"], []).append(record)
    return out


def _encounter(inst: Instance, systems: dict[str, _System], *, matched: bool) -> Encounter:
    gold = [
        {"text": r.text, "code": r.code, "evidence_class": r.evidence_class, "explicit": r.explicit}
        for r in inst.references
    ]
    answers = {}
    for name, system in systems.items():
        p = system.predictions.get(inst.id)
        items = [{"text": it.text, "code": it.code} for it in p.items] if p else []
        match = system.matches.get(inst.id)
        found = [list(pair) for pair in match.pairs] if match else [] if matched else _code_pairs(items, gold)
        shown = [it["text"] or it["code"] or "" for it in items]
        matched, refused = _matched(found, match, shown, gold)
        answers[name] = {
            "items": shown,
            "answer": _shown(p.answer) if p else None,
            "pairs": found,
            "parse_error": p.parse_error if p else "no prediction",
            "correct": _correct(inst, p, found),
            "matched": matched,
            "refused": refused,
            "transcript": _transcript(p, system.samples.get(inst.id, [])),
        }
    return {
        "id": inst.id,
        "subject_id": inst.subject_id,
        "sections": {k: v for k, v in inst.sections.items() if v},
        "gold": gold,
        "target": _shown(inst.target),
        "systems": answers,
    }


def _matched(
    pairs: list[list[int]], match: Match | None, items: list[str], gold: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(each pair as the reader checks it: the predicted text, the gold text, the matcher's similarity
    — the embedding and guarded matchers record one per pair — and the guard's verdict with its
    reason; the near misses the guard refused). Verdicts are the guarded matcher's
    ``details.verdicts`` (``{prediction, reference, similarity, verdict, reason}``)."""
    details = match.details if match else {}
    similarity = details.get("similarity")
    verdicts = {(v.get("prediction"), v.get("reference")): v for v in details.get("verdicts") or []}

    def text(p: int, r: int) -> dict[str, Any]:
        return {
            "prediction": items[p] if p < len(items) else "",
            "gold": gold[r]["text"] if r < len(gold) else "",
        }

    out = []
    for k, (p, r) in enumerate(pairs):
        verdict = verdicts.get((p, r))
        out.append({
            **text(p, r),
            "similarity": similarity[k] if isinstance(similarity, list) and k < len(similarity) else None,
            "guard": f"{verdict['verdict']}: {verdict['reason']}" if verdict else None,
        })  # fmt: skip
    refused = [
        {
            **text(v["prediction"], v["reference"]),
            "similarity": v.get("similarity"),
            "reason": v.get("reason"),
        }
        for v in verdicts.values()
        if v.get("verdict") == "refused"
    ]
    return out, refused


def _transcript(p: Prediction | None, samples: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The calls behind an answer: samples.jsonl's records when the run kept them, else the raw
    output, tokens and latency the prediction records (None when it records none)."""
    calls = [
        {k: c.get(k) for k in ("prompt", "messages", "raw", "reasoning", "finish_reason", "cached")}
        for c in samples
    ]
    usage = [c.get("usage") or {} for c in samples] or [(p.usage or {}) if p else {}]
    latency = [c.get("latency_s") for c in samples] or [p.latency_s if p else None]
    if not calls and p is not None and p.raw is not None:
        calls = [{"raw": p.raw}]
    if not calls and not any(usage) and all(v is None for v in latency):
        return None
    tokens = {
        "prompt": sum(int(u.get("prompt_tokens") or 0) for u in usage),
        "completion": sum(int(u.get("completion_tokens") or 0) for u in usage),
        "reasoning": sum(reasoning_tokens(u) for u in usage),
    }
    seconds = [v for v in latency if v is not None]
    return {"calls": calls, "tokens": tokens, "latency_s": round(sum(seconds), 3) if seconds else None}


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
