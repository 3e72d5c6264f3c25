"""Time ``admitdx data synth`` and measure its peak memory at several sizes.

Usage:
    python bench/bench_synth.py                        # 1k and 10k patients, 2 workers
    python bench/bench_synth.py 1000 10000 100000 --workers 2
    python bench/bench_synth.py 2000 --workers 1 --keep /tmp/synth2k

Each size runs in a fresh Python process. Prints patients, ED stays, rows written, seconds,
CPU seconds (parent and workers), rows/s, and peak resident memory of the parent and of the largest
worker (``ru_maxrss``); with ``--workers N`` the total peak is at most parent + N x worker. Targets
(issue 21): 100k patients in under 2 minutes on 2 cores and under 1 GiB (issue 2 had 10 minutes and
4 GiB). On a machine other jobs load, wall time says little: CPU seconds / workers is the wall time
an idle machine would give.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TARGETS_S = {10_000: 12, 100_000: 120}
TARGET_PEAK_MB = 1024

_CHILD = """
import json, resource, sys
from pathlib import Path
from admitdx.synthetic import generate_synthetic
out, patients, workers = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
s = generate_synthetic(out, patients, seed=7, workers=workers)
print(json.dumps({
    "seconds": s.seconds, "rows": s.total_rows, "stays": s.rows.get("_truth.encounters", 0),
    "labevents": s.rows.get("hosp.labevents", 0),
    "bytes": sum(p.stat().st_size for p in out.rglob("*") if p.is_file()),
    "parent_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "worker_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    "cpu_s": sum(resource.getrusage(w).ru_utime + resource.getrusage(w).ru_stime
                 for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)),
}))
"""


def bench(patients: int, workers: int, workdir: Path) -> dict[str, float]:
    out = workdir / f"synth_{patients}"
    shutil.rmtree(out, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(out), str(patients), str(workers)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"generation of {patients} patients failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sizes", nargs="*", type=int, default=[1000, 10_000], help="patient counts")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="write roots here and keep them (default: a temp folder)")
    args = parser.parse_args()
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="bench_synth_"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(
        f"{'patients':>9} {'ED stays':>9} {'rows':>11} {'MB on disk':>10} {'seconds':>8} {'CPU s':>7} "
        f"{'rows/s':>9} {'parent MB':>9} {'worker MB':>9}  target"
    )
    try:
        for n in args.sizes:
            r = bench(n, args.workers, workdir)
            target = TARGETS_S.get(n)
            verdict = ""
            if target:
                peak = r["parent_mb"] + args.workers * r["worker_mb"]
                ok = r["seconds"] < target and peak < TARGET_PEAK_MB
                idle = r["cpu_s"] / args.workers
                verdict = (
                    f"< {target} s, < {TARGET_PEAK_MB} MB: {'met' if ok else 'MISSED'} (idle ≈ {idle:.0f} s)"
                )
            print(
                f"{n:>9,} {r['stays']:>9,} {r['rows']:>11,} {r['bytes'] / 1e6:>10.1f} {r['seconds']:>8.1f} "
                f"{r['cpu_s']:>7.1f} {r['rows'] / r['seconds']:>9,.0f} {r['parent_mb']:>9.0f} "
                f"{r['worker_mb']:>9.0f}  {verdict}",
                flush=True,
            )
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
