"""A task run repeated over seeds (a study's ``repeat: {seeds: [...]}``) as one leaderboard column
group: each cell the mean over the seeds, their spread (sample standard deviation, lowest and
highest) beside the bootstrap interval, and the per-seed values it came from.

The bootstrap interval of a repeated cell is the mean of the seeds' interval bounds: each seed's
interval says how much its number would move with other patients, the spread how much it moves
with another seed (another split, another initialisation); one does not replace the other. The
difference with the best system is the difference of the means, with no interval (the seeds'
bootstrap replicates are not paired across seeds), so it is never marked.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any


def seed_cell(
    entries: Sequence[dict[str, Any] | None], seeds: Sequence[int], key: str, n: Sequence[int]
) -> dict[str, Any] | None:
    """The cell of one system over the seeds: ``entries`` are its results.json entries, one per seed
    (None where the seed's run did not have it)."""
    found = [
        (s, e["metrics"][key], k)
        for s, e, k in zip(seeds, entries, n, strict=True)
        if e and e["metrics"].get(key)
    ]
    values = [(s, m["value"], k, m.get("ci")) for s, m, k in found if m.get("value") is not None]
    if not values:
        return None
    numbers = [v for _, v, _, _ in values]
    cis = [ci for _, _, _, ci in values if ci and None not in ci]
    return {
        "value": statistics.fmean(numbers),
        "ci": [statistics.fmean(c[0] for c in cis), statistics.fmean(c[1] for c in cis)] if cis else None,
        "n": round(statistics.fmean(k for _, _, k, _ in values)),
        "rank": None,
        "seeds": {
            "seeds": [s for s, _, _, _ in values],
            "values": numbers,
            "n": [k for _, _, k, _ in values],
            "sd": statistics.stdev(numbers) if len(numbers) > 1 else None,
            "min": min(numbers),
            "max": max(numbers),
        },
    }


def mark_best(cells: dict[str, dict[str, Any] | None]) -> str | None:
    """The system of the highest mean (the first of equal ones); each other cell's difference with it."""
    scored = {name: c for name, c in cells.items() if c}
    if not scored:
        return None
    best = max(scored, key=lambda name: scored[name]["value"])
    for name, c in scored.items():
        c["best"] = name == best
        c["difference"] = (
            None if name == best else {"value": c["value"] - scored[best]["value"], "ci": None, "mark": False}
        )
    return best


def spread_text(cell: dict[str, Any] | None) -> str:
    """``3 seeds: sd 0.012, 0.490–0.530``."""
    seeds = (cell or {}).get("seeds")
    if not seeds:
        return ""
    sd = f"sd {seeds['sd']:.3f}, " if seeds["sd"] is not None else ""
    return f"{len(seeds['values'])} seeds: {sd}{seeds['min']:.3f}–{seeds['max']:.3f}"
