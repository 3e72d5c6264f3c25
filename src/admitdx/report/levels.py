"""``table.md``'s final-diagnosis blocks beyond Table 6's eight rates: the CCSR and HCC rates over
the encounters where answer and gold both have a category (how ER-Reason's table 6 computed its
HCC rate) with that coverage, the ceiling of an answerer giving ICD-10-CM codes, and the tables
the categories came from. Older results.json files without them show nothing extra."""

from __future__ import annotations

from typing import Any

from admitdx.report.cells import fmt, fmt_ci

CONDITIONAL = ("ccsr_conditional", "ccsr_coverage", "hcc_conditional", "hcc_coverage")
CEILINGS = ("exact", "category3", "ccsr", "hcc")


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def level_blocks(results: dict[str, Any]) -> list[str]:
    systems = results["systems"]
    if not systems or "main.hcc_conditional" not in systems[0]["metrics"]:
        return []
    names = [f"{t}.{k}" for t in ("main", "any") for k in CONDITIONAL]
    lines = ["", "## CCSR and HCC where both codes have a category (paper-style), with coverage", ""]
    lines += [_row(["system", *names]), _row(["---"] * (len(names) + 1))]
    lines += [_row([s["name"], *(fmt_ci(s["metrics"].get(n)) for n in names)]) for s in systems]
    ceiling = systems[0]["metrics"]
    cells = ", ".join(f"{k} {fmt(ceiling[f'main.{k}_ceiling']['value'])}" for k in CEILINGS)
    lines += ["", f"> Ceiling of an ICD-10-CM answerer against the main code: {cells}."]
    sources = results.get("icd_levels") or {}
    if sources:
        lines += [f"> Categories: CCSR from {sources['ccsr_source']}; HCC from {sources['hcc_source']}; "
                  f"ICD-9-CM gold through {sources['gem_source']}."]  # fmt: skip
    return lines
