"""How long the ER-Reason release loader takes on a 4,000-encounter synthetic release (target:
under 10 s; the real release has 3,984), and one release task's build on it.

Run: .venv/bin/python bench/bench_erreason.py [encounters]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from admitdx.sources.erreason import load_release
from admitdx.synthetic.erreason import generate_release
from admitdx.tasks.erreason.release_build import ReleaseParams, build_release_task
from admitdx.tasks.erreason.release_tasks import PLANNING


def main(encounters: int = 4000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        root = generate_release(Path(tmp) / "release", encounters=encounters, seed=0)
        generated = time.perf_counter() - start
        size = sum(p.stat().st_size for p in root.glob("*.csv")) / 2**20
        times = []
        for _ in range(3):
            start = time.perf_counter()
            release = load_release(root)
            times.append(time.perf_counter() - start)
        start = time.perf_counter()
        outputs = build_release_task(PLANNING, root, Path(tmp) / "planning", ReleaseParams())
        built = time.perf_counter() - start
    print(f"synthetic release: {encounters} encounters, {size:.1f} MiB CSV, generated in {generated:.2f} s")
    print(f"load_release: {len(release.encounters)} encounters, best of 3 {min(times):.3f} s (target < 10 s)")
    print(f"build er-reason-release-planning: {outputs['counts']['instances']} instances in {built:.2f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)
