"""Time ``admitdx build clinibench`` (all four datasets) and its peak memory on synthetic MIMIC-IV.

Usage:
    python bench/bench_build_clinibench.py                      # 10k synthetic patients
    python bench/bench_build_clinibench.py --patients 100000    # the issue's size
    python bench/bench_build_clinibench.py --root DIR            # an existing root instead

The build runs in a fresh Python process so that its peak resident memory (``ru_maxrss`` of that
child, DuckDB's buffers included) is its own; run it on the 2-core target machine (nothing
here pins threads). Synthetic roots are generated once per size under ``--workdir`` (seed 7) and
reused. Target (issue 10): 100k patients built in under 5 minutes and 4 GiB on 2 cores. Below
100k the figures are extrapolated linearly in patients, and the script says so: the build's two
passes stream notes, so time and spool size grow with notes, while memory grows only with the
per-patient split records.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 300
TARGET_PEAK_MB = 4096
TARGET_PATIENTS = 100_000

_CHILD = """
import json, resource, shutil, sys, time
from pathlib import Path
from admitdx.tasks.clinibench import CliniBenchParams, build_clinibench
root, out = Path(sys.argv[1]), Path(sys.argv[2])
shutil.rmtree(out, ignore_errors=True)
started = time.perf_counter()
result = build_clinibench(root, out, CliniBenchParams(), memory_limit="3GB")
seconds = time.perf_counter() - started
notes = {name: d["counts"]["notes"] for name, d in result["datasets"].items()}
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mb": peak, "notes": notes}))
"""


def synthetic_root(workdir: Path, patients: int) -> Path:
    from admitdx.synthetic import generate_synthetic

    root = workdir / f"synth-{patients}"
    if not (root / "_truth" / "meta.json").exists():
        started = time.perf_counter()
        generate_synthetic(root, patients=patients, seed=7, overwrite=True)
        seconds = time.perf_counter() - started
        print(f"generated {patients:,} patients in {seconds:.0f} s (not part of the build)")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--patients", type=int, default=10_000)
    parser.add_argument("--root", type=Path, help="an existing MIMIC-IV root with note/ and icu/")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "admitdx-bench")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    root = args.root or synthetic_root(args.workdir, args.patients)
    out = args.workdir / "clinibench-out"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    notes = sum(n for name, n in result["notes"].items() if name.startswith("hosp"))
    print(f"root: {root}")
    print(f"notes per dataset: {result['notes']}")
    print(f"build: {result['seconds']:.1f} s wall, {cpu:.1f} s CPU, peak {result['peak_mb']:.0f} MB")
    meta = root / "_truth" / "meta.json"
    patients = json.loads(meta.read_text())["patients"] if meta.exists() else None
    if patients and patients < TARGET_PATIENTS:
        scale = TARGET_PATIENTS / patients
        wall = result["seconds"] * scale
        verdict = "met" if wall < TARGET_SECONDS else "NOT met"
        print(
            f"extrapolated to {TARGET_PATIENTS:,} patients, linear in patients (~{notes * scale:,.0f} hosp "
            f"notes): {wall:.0f} s wall, target {TARGET_SECONDS} s {verdict}; peak memory measured at "
            f"{patients:,} only (notes stream; per-patient split records grow)"
        )
    else:
        ok = result["seconds"] < TARGET_SECONDS and result["peak_mb"] < TARGET_PEAK_MB
        print(f"target {TARGET_SECONDS} s and {TARGET_PEAK_MB} MB: {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
