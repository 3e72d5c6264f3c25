"""Time ``admitdx data check`` and ``data convert`` on synthetic MIMIC-IV roots of several sizes, and
what verifying gzip checksums costs ``check`` and ``build``.

Usage:
    python bench/bench_data.py                      # 1k and 10k synthetic patients
    python bench/bench_data.py --patients 1000 10000 100000
    python bench/bench_data.py --root ../shared/data/mimic-iv-demo   # an existing root instead

Each step runs in a fresh Python process so that its peak resident memory (VmHWM, which includes
DuckDB's buffers) is its own. Prints, per root and step: rows read, seconds, rows/s, peak
memory. Synthetic roots come from ``admitdx.synthetic.generate_synthetic`` (seed fixed) and
are generated once per size under ``--workdir``; the generation time is printed but is not what
this script measures (see the generator's own benchmark).

Integrity overhead: ``crc`` is the fresh gzip CRC verification of every ``.csv.gz`` of the root
(what ``data check`` adds on every run); ``build`` times the build's gate (checksums and one scan of
each table the build reads) with an empty verdict cache, which is what the first build of a root
pays, and again with the verdicts remembered, which is what every later build pays, then a whole
build for scale. Every step gets its own ``$ADMITDX_CACHE_DIR`` so nothing is remembered from
another step.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Targets from issue 2 (peak memory under 4 GiB on 2 cores); printed next to the figures.
PEAK_MEMORY_TARGET_MB = 4096


def _peak_rss_mb() -> float:
    """Peak resident memory of this process in MiB.

    Linux's VmHWM, not ru_maxrss: ru_maxrss survives fork + exec, so a child started by a parent that
    had just generated a large root would report the parent's peak.
    """
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux, bytes on macOS


def run_step(step: str, root: Path, out: Path) -> dict[str, float]:
    """One step in this process: returns rows, seconds and peak memory."""
    from admitdx.sources.check import check_mimic
    from admitdx.sources.convert import convert_mimic

    if step in ("crc", "build"):
        return _integrity_step(step, root, out)
    started = time.perf_counter()
    if step == "check":
        report = check_mimic(root)
        rows = sum(t.rows or 0 for m in report.modules for t in m.tables)
        if not report.ok:
            raise SystemExit(f"data check found errors in {root}: {report.errors()[:3]}")
    else:
        shutil.rmtree(out, ignore_errors=True)
        rows = sum(r.rows for r in convert_mimic(root, out))
    return {"rows": rows, "seconds": time.perf_counter() - started, "peak_mb": _peak_rss_mb()}


def _integrity_step(step: str, root: Path, out: Path) -> dict[str, float]:
    """``crc``: fresh checksums of every gzip table. ``build``: the build's gate (opening the root
    with EarlyDx's needs) with no remembered verdicts and again with them, then a build."""
    from admitdx.sources.files import discover_tables
    from admitdx.sources.integrity import default_verdicts, verify_gzips
    from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx

    if step == "crc":
        paths = [tf.path for tf in discover_tables(root).values() if tf.gzipped]
        started = time.perf_counter()
        damaged = [p for p, r in verify_gzips(paths, default_verdicts(), fresh=True).items() if r.damage]
        if damaged:
            raise SystemExit(f"corrupt gzip files in {root}: {damaged}")
        mb = sum(p.stat().st_size for p in paths) / 2**20
        return {"rows": 0, "seconds": time.perf_counter() - started, "peak_mb": _peak_rss_mb(), "gz_mb": mb}
    from admitdx.sources.mimic import open_mimic
    from admitdx.tasks.earlydx.build import NEEDS

    gate = []
    for _ in range(2):  # first with the step's empty verdict cache, then with what it remembered
        started = time.perf_counter()
        with open_mimic(root, needs=NEEDS):
            gate.append(time.perf_counter() - started)
    started = time.perf_counter()
    result = build_earlydx(root, out, EarlyDxParams(), force=True)
    seconds = time.perf_counter() - started
    shutil.rmtree(out, ignore_errors=True)
    rows = result["counts"]["encounters_with_labels"]
    return {
        "rows": rows,
        "seconds": seconds,
        "gate_cold": gate[0],
        "gate_warm": gate[1],
        "peak_mb": _peak_rss_mb(),
    }


def _in_child(step: str, root: Path, out: Path, cache: Path) -> dict[str, float]:
    """Run one step in a fresh process with its own (empty) verdict cache."""
    shutil.rmtree(cache, ignore_errors=True)
    cmd = [sys.executable, __file__, "--step", step, "--root", str(root), "--out", str(out)]
    env = {**os.environ, "ADMITDX_CACHE_DIR": str(cache)}
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _synthetic_root(patients: int, seed: int, workdir: Path) -> Path:
    try:
        from admitdx.synthetic import generate_synthetic
    except ImportError as e:
        raise SystemExit(f"the synthetic generator is not available ({e}); pass --root DIR instead") from e
    root = workdir / f"synthetic-{patients}-seed{seed}"
    if not (root / "hosp").is_dir():
        started = time.perf_counter()
        generate_synthetic(root, patients=patients, seed=seed)
        print(
            f"generated {patients:,} patients in {time.perf_counter() - started:.1f} s → {root}", flush=True
        )
    return root


def _du_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--patients", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--root", type=Path, help="benchmark this existing root instead of synthetic ones")
    parser.add_argument(
        "--workdir", type=Path, help="where synthetic roots and Parquet copies go (default: temp)"
    )
    parser.add_argument("--step", choices=("check", "convert", "crc", "build"), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.step:  # child mode: one measured step, JSON on the last line
        print(json.dumps(run_step(args.step, args.root, args.out)))
        return

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="admitdx-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    roots = (
        [("given", args.root)]
        if args.root
        else [(f"{n:,} patients", _synthetic_root(n, args.seed, workdir)) for n in args.patients]
    )
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machines vary)")
    print(
        f"\n{'root':<16} {'input MB':>9} {'step':<8} {'rows':>13} {'seconds':>8} {'rows/s':>12} "
        f"{'peak MB':>8}  (target peak < {PEAK_MEMORY_TARGET_MB} MB)"
    )
    overhead = []
    for label, root in roots:
        out = workdir / f"parquet-{root.name}"
        steps = {}
        for step in ("check", "convert", "crc", "build"):
            target = workdir / f"built-{root.name}" if step == "build" else out
            steps[step] = r = _in_child(step, root, target, workdir / "cache")
            rate = r["rows"] / r["seconds"] if r["seconds"] and r["rows"] else float("nan")
            print(
                f"{label:<16} {_du_mb(root):>9.1f} {step:<8} {int(r['rows']):>13,} {r['seconds']:>8.2f} "
                f"{rate:>12,.0f} {r['peak_mb']:>8.0f}",
                flush=True,
            )
        print(f"{'':<16} parquet copy: {_du_mb(out):.1f} MB", flush=True)
        overhead.append((label, steps))
    print(
        "\nintegrity overhead: gzip CRC-32 of every .csv.gz (Python zlib, up to 4 threads) added to every "
        "check;\nthe build gate (CRC + one scan of each table it reads) is paid by the first build of a "
        "file version"
    )
    print(
        f"{'root':<16} {'gzip MB':>8} {'CRC s':>7} {'check s':>8} {'CRC/check':>9} "
        f"{'gate 1st s':>10} {'gate next s':>11} {'build s':>8} {'gate/build':>10}"
    )
    for label, st in overhead:
        crc, check, build = st["crc"], st["check"], st["build"]
        print(
            f"{label:<16} {crc['gz_mb']:>8.1f} {crc['seconds']:>7.2f} {check['seconds']:>8.2f} "
            f"{crc['seconds'] / check['seconds']:>9.0%} {build['gate_cold']:>10.2f} "
            f"{build['gate_warm']:>11.2f} {build['seconds']:>8.2f} "
            f"{build['gate_cold'] / build['seconds']:>10.0%}",
            flush=True,
        )
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    if not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
