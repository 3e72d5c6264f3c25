"""The encounter browser's audit of a matcher's verdicts: per system and encounter, each accepted
pair with its similarity and reason, and each refused near miss with why it was refused (issue 33).

Fed by the match records alone (``details.verdicts``, which the guarded matcher writes); a matcher
that keeps no verdicts (exact, icd, embedding) leaves the list empty and the browser shows nothing.
Kept apart from :mod:`admitdx.study.encounters` so that the browser's other data can change
without touching it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from admitdx.matching.runner import load_matches


def attach_verdicts(encounters: list[dict[str, Any]], results: dict[str, Any], matcher: str) -> None:
    """Add ``verdicts`` (prediction text, gold text, similarity, verdict, reason) to every answer."""
    for s in results["systems"]:
        by_instance = {
            m.instance_id: m.details.get("verdicts") or []
            for m in load_matches(Path(s["predictions_dir"]), matcher)
        }
        for e in encounters:
            answer = e["systems"].get(s["name"])
            if answer is None:
                continue
            answer["verdicts"] = [
                {
                    "prediction": answer["items"][v["prediction"]],
                    "gold": e["gold"][v["reference"]]["text"],
                    "similarity": v["similarity"],
                    "verdict": v["verdict"],
                    "reason": v["reason"],
                }
                for v in by_instance.get(e["id"], [])
                if v["prediction"] < len(answer["items"]) and v["reference"] < len(e["gold"])
            ]
