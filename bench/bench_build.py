"""Time ``admitdx build earlydx`` (and its peak memory) on synthetic MIMIC-IV roots.

Usage:
    python bench/bench_build.py                                  # 10k and 100k synthetic patients
    python bench/bench_build.py --patients 10000
    python bench/bench_build.py --root ../shared/data/mimic-iv-demo   # an existing root instead
    python bench/bench_build.py --parquet                        # also build from `data convert` output

Each build runs in a fresh Python process so that its peak resident memory (``ru_maxrss``,
DuckDB's buffers included) is its own. Synthetic roots are generated once per size under
``--workdir`` (seed 7) and reused; generation time is printed but is the generator's benchmark, not
this one. Targets (issue 3): 100k patients built in under 5 minutes with under 4 GiB peak memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 300
TARGET_PEAK_MB = 4096


def run_build(root: Path, out: Path) -> dict[str, float]:
    """One build in this process: seconds, peak memory and the counts that matter."""
    from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx

    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    result = build_earlydx(root, out, EarlyDxParams())
    seconds = time.perf_counter() - started
    counts = result["counts"]
    return {
        "seconds": seconds,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "cohort": counts["cohort_stays"],
        "encounters": counts["encounters_with_labels"],
        "per_second": counts["cohort_stays"] / seconds,
    }


def _in_child(root: Path, out: Path) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--child", "--root", str(root), "--out", str(out)]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _synthetic_root(patients: int, workdir: Path) -> Path:
    from admitdx.synthetic import generate_synthetic

    root = workdir / f"synthetic-{patients}"
    if not (root / "_truth" / "meta.json").exists():
        shutil.rmtree(root, ignore_errors=True)
        started = time.perf_counter()
        generate_synthetic(root, patients=patients, seed=7)
        print(
            f"generated {patients:,} patients in {time.perf_counter() - started:.0f} s → {root}", flush=True
        )
    return root


def _parquet_copy(root: Path) -> Path:
    from admitdx.sources.convert import convert_mimic

    out = root.with_name(root.name + "-parquet")
    if not out.exists():
        list(convert_mimic(root, out))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--patients", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--root", type=Path, help="benchmark this MIMIC-IV root instead of synthetic ones")
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "admitdx-bench")
    ap.add_argument("--parquet", action="store_true", help="also build from a `data convert` Parquet copy")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(run_build(args.root, args.out)))
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    roots = (
        [(str(args.root), args.root)]
        if args.root
        else [(f"{n:,} patients", _synthetic_root(n, args.workdir)) for n in args.patients]
    )
    if args.parquet:
        roots += [(f"{name} (parquet)", _parquet_copy(root)) for name, root in roots]
    print(
        f"{'root':<26}{'cohort':>9}{'encounters':>12}{'seconds':>10}{'stays/s':>10}{'peak MiB':>10}  target"
    )
    for name, root in roots:
        r = _in_child(root, args.workdir / "earlydx-out")
        verdict = "ok" if r["seconds"] < TARGET_SECONDS and r["peak_mb"] < TARGET_PEAK_MB else "MISSED"
        print(
            f"{name:<26}{r['cohort']:>9,}{r['encounters']:>12,}{r['seconds']:>10.1f}{r['per_second']:>10,.0f}"
            f"{r['peak_mb']:>10,.0f}  {verdict} (<{TARGET_SECONDS} s, <{TARGET_PEAK_MB} MiB)",
            flush=True,
        )


if __name__ == "__main__":
    main()
