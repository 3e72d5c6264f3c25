"""What verifying a converted copy's SHA-256 digests costs a warm ``build earlydx`` (issue 26).

Usage:
    python bench/bench_parquet_digests.py                          # 10k synthetic patients
    python bench/bench_parquet_digests.py --root DIR --rounds 5    # convert an existing root instead

Converts the root once (``data convert``) under ``--workdir``, then prints:

- ``hash``: a fresh SHA-256 of every converted table (what ``data check`` and the first read of a
  copy pay; MB/s);
- per round, a warm ``build earlydx`` from the copy (verdicts remembered and files in the page
  cache, as on every build after the first) and, inside it, the seconds of the digest check
  (:func:`admitdx.sources.conversion.verify_conversions`, timed by wrapping it): its share of the
  build is what verification adds (target ≤ 10 %).

Each run has its own ``$ADMITDX_CACHE_DIR`` under the workdir, so nothing is remembered from
another run of this script.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--patients", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--root", type=Path, help="convert this existing root instead of a synthetic one")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "admitdx-bench-digests")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    cache = args.workdir / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    os.environ["ADMITDX_CACHE_DIR"] = str(cache)

    from admitdx.sources import conversion, mimic
    from admitdx.sources.convert import convert_mimic
    from admitdx.sources.integrity import Verdicts, verify_sha256s
    from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx

    root = args.root or args.workdir / f"synthetic-{args.patients}-seed{args.seed}"
    if args.root is None and not (root / "hosp").is_dir():
        from admitdx.synthetic import generate_synthetic

        generate_synthetic(root, patients=args.patients, seed=args.seed)
    converted = args.workdir / "converted"
    convert_mimic(root, converted)
    tables = conversion.read_conversion(converted)["outputs"]["tables"]
    expected = {converted / e["file"]: e["sha256"] for e in tables.values()}
    mb = sum(p.stat().st_size for p in expected) / 2**20
    started = time.perf_counter()
    assert not verify_sha256s(expected, Verdicts(None), fresh=True)
    hashed = time.perf_counter() - started
    print(f"hash: {len(expected)} tables, {mb:.1f} MiB in {hashed:.3f} s ({mb / hashed:,.0f} MiB/s)")

    spent: list[float] = []
    real_verify = conversion.verify_conversions

    def timed_verify(*a, **kw):  # a pass-through wrapper that times the call
        t = time.perf_counter()
        try:
            return real_verify(*a, **kw)
        finally:
            spent.append(time.perf_counter() - t)

    mimic.verify_conversions = timed_verify  # the name MimicSource calls
    out = args.workdir / "dataset"
    build_earlydx(converted, out, EarlyDxParams(), force=True)  # warm-up: verdicts, page cache
    shares = []
    for k in range(1, args.rounds + 1):
        spent.clear()
        started = time.perf_counter()
        build_earlydx(converted, out, EarlyDxParams(), force=True)
        total = time.perf_counter() - started
        shares.append(sum(spent) / total)
        print(
            f"warm build {k}: {total:.2f} s, digest check {sum(spent) * 1000:.1f} ms "
            f"({100 * shares[-1]:.2f} % of the build); load average {os.getloadavg()[0]:.1f}"
        )
    print(f"median share: {100 * statistics.median(shares):.2f} % (target ≤ 10 %)")


if __name__ == "__main__":
    main()
