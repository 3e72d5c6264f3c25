"""Measure the synthetic generator's facts (``admitdx.synthetic.facts``) on real and synthetic roots.

Usage:
    python bench/measure_demo_facts.py                                   # the open demo in ../shared
    python bench/measure_demo_facts.py --mimic ../shared/data/mimic-iv-demo --synthetic /tmp/synth

For every fact that has SQL it prints the value recorded in the facts file, what the demo gives
(the two must agree for facts whose source is the demo) and, with ``--synthetic``, what a generated
root gives and whether that is within the fact's tolerance. Exit 1 when a demo fact disagrees with
the demo or a synthetic value is out of tolerance.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from admitdx.sources.mimic import open_mimic
from admitdx.synthetic.facts import DEMO, FACTS, measure_sql

DEFAULT_DEMO = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "mimic-iv-demo"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mimic", type=Path, default=DEFAULT_DEMO, help="the real MIMIC-IV demo root")
    parser.add_argument("--synthetic", type=Path, help="a generated root to compare")
    args = parser.parse_args()
    with open_mimic(args.mimic) as src:
        demo = measure_sql(src)
    synth = {}
    if args.synthetic:
        with open_mimic(args.synthetic) as src:
            synth = measure_sql(src)
    bad = 0
    print(f"{'fact':26s} {'recorded':>9s} {'demo':>9s} {'synthetic':>9s} {'±':>6s}  source")
    for f in FACTS:
        if not f.sql:
            continue
        demo_ok = not f.source.startswith(DEMO) or math.isclose(demo[f.name], f.value)
        synth_ok = f.name not in synth or f.holds(synth[f.name])
        bad += (not demo_ok) + (not synth_ok)
        s = f"{synth[f.name]:9.4f}" if f.name in synth else " " * 9
        flag = (
            "" if demo_ok and synth_ok else "  <-- " + ("demo differs" if not demo_ok else "out of tolerance")
        )
        print(
            f"{f.name:26s} {f.value:9.4f} {demo[f.name]:9.4f} {s} {f.tolerance:6.3f}  {f.source[:40]}{flag}"
        )
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
