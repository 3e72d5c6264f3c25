"""Time ``admitdx data synth`` and measure its peak memory at several sizes.

Usage:
    python bench/bench_synth.py                        # 1k and 10k patients, 2 workers
    python bench/bench_synth.py 1000 10000 100000 --workers 2
    python bench/bench_synth.py 2000 --workers 1 --keep /tmp/synth2k

Each size runs in a fresh Python process. Prints patients, ED stays, rows written, seconds,
rows/s, and peak resident memory of the parent and of the largest worker (``ru_maxrss``); with
``--workers N`` the total peak is at most parent + N x worker. Targets (issue 2): 10k patients in
under 60 s and 100k in under 10 minutes on 2 cores, peak memory under 4 GiB.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TARGETS_S = {10_000: 60, 100_000: 600}
TARGET_PEAK_MB = 4096

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
        f"{'patients':>9} {'ED stays':>9} {'rows':>11} {'MB on disk':>10} {'seconds':>8} {'rows/s':>9} "
        f"{'parent MB':>9} {'worker MB':>9}  target"
    )
    try:
        for n in args.sizes:
            r = bench(n, args.workers, workdir)
            target = TARGETS_S.get(n)
            verdict = ""
            if target:
                peak = r["parent_mb"] + args.workers * r["worker_mb"]
                ok = r["seconds"] < target and peak < TARGET_PEAK_MB
                verdict = f"< {target} s, < {TARGET_PEAK_MB} MB: {'met' if ok else 'MISSED'}"
            print(
                f"{n:>9,} {r['stays']:>9,} {r['rows']:>11,} {r['bytes'] / 1e6:>10.1f} {r['seconds']:>8.1f} "
                f"{r['rows'] / r['seconds']:>9,.0f} {r['parent_mb']:>9.0f} {r['worker_mb']:>9.0f}  {verdict}",
                flush=True,
            )
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
