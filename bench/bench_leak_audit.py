"""The leak audit over built datasets, and the disposition lexicon on the blind fixture.

Usage:
    python bench/bench_leak_audit.py DATASET_DIR [DATASET_DIR ...]   # audit any built datasets
    python bench/bench_leak_audit.py --blind                          # the 119 blind expressions

For each dataset folder it runs the task's rule over ``instances.jsonl`` (a build made before the
audit existed included, so before/after compares two builds of the same source) and prints the
instances with findings and the findings by field and rule, with the time the audit took. With
``--blind`` it prints how many expressions of
``tests/data/blind/headings/disposition_expressions.jsonl`` survive redaction in their sentences,
by category.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from pathlib import Path

from admitdx.tasks.erreason.disposition_lexicon import redact_disposition
from admitdx.tasks.leak_audit import rule_for

BLIND = Path(__file__).parents[1] / "tests" / "data" / "blind" / "headings" / "disposition_expressions.jsonl"


def audit(dataset: Path) -> None:
    records = [json.loads(line) for line in (dataset / "instances.jsonl").read_text().splitlines()]
    started = time.perf_counter()
    found: Counter[tuple[str, str]] = Counter()
    instances = set()
    for record in records:
        rule = rule_for(record["task"])
        for field, name, _, _ in rule(record) if rule else ():
            found[(field, name)] += 1
            instances.add(record["id"])
    seconds = time.perf_counter() - started
    print(f"{dataset}: {len(instances)} of {len(records)} instances with findings ({seconds:.2f} s)")
    for (field, name), n in sorted(found.items()):
        print(f"  {field:24} {name:22} {n}")


def _survives(expression: str, sentence: str) -> bool:
    return re.search(re.escape(expression), redact_disposition(sentence) or "", re.I) is not None


def blind() -> None:
    rows = [json.loads(line) for line in BLIND.read_text().splitlines()]
    survived = [r for r in rows if _survives(r["expression"], r["sentence"])]
    totals, kept = Counter(r["category"] for r in rows), Counter(r["category"] for r in survived)
    print(f"{len(survived)} of {len(rows)} blind disposition expressions survive redaction")
    for category in sorted(totals):
        print(f"  {category:24} {kept[category]}/{totals[category]}")
    for r in survived:
        print(f"  survives: {r['id']} {r['expression']!r}")


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("datasets", nargs="*", type=Path)
    parser.add_argument("--blind", action="store_true")
    args = parser.parse_args()
    if args.blind:
        blind()
    for dataset in args.datasets:
        audit(dataset)


if __name__ == "__main__":
    main()
