"""How long the ER-Reason release loader takes on a 4,000-encounter synthetic release (target:
under 10 s; the real release has 3,984), and one release task's build on it.

The synthetic notes are short (a few hundred characters); real discharge summaries run to several
thousand. The second measurement pads every previous note ``PAD`` times (about 6,000 characters
for a discharge summary) to read a file of the real release's order of size.

Run: .venv/bin/python bench/bench_erreason.py [encounters]
"""

from __future__ import annotations

import csv
import sys
import tempfile
import time
from pathlib import Path

from admitdx.sources.erreason import ENCOUNTERS_FILE, PREVIOUS_NOTE_TYPES, load_release
from admitdx.synthetic.erreason import generate_release
from admitdx.tasks.erreason.release_build import ReleaseParams, build_release_task
from admitdx.tasks.erreason.release_tasks import PLANNING

PAD = 30


def _pad(root: Path) -> None:
    path = root / ENCOUNTERS_FILE
    csv.field_size_limit(1 << 30)
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames or [], list(reader)
    for row in rows:
        for kind in PREVIOUS_NOTE_TYPES:
            if row[f"{kind}_Text"]:
                row[f"{kind}_Text"] = "\n".join([row[f"{kind}_Text"]] * PAD)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def _best_load(root: Path) -> tuple[int, float]:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        release = load_release(root)
        times.append(time.perf_counter() - start)
    return len(release.encounters), min(times)


def main(encounters: int = 4000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        root = generate_release(Path(tmp) / "release", encounters=encounters, seed=0)
        generated = time.perf_counter() - start
        size = sum(p.stat().st_size for p in root.glob("*.csv")) / 2**20
        n, loaded = _best_load(root)
        start = time.perf_counter()
        outputs = build_release_task(PLANNING, root, Path(tmp) / "planning", ReleaseParams())
        built = time.perf_counter() - start
        _pad(root)
        padded_size = sum(p.stat().st_size for p in root.glob("*.csv")) / 2**20
        _, padded = _best_load(root)
    print(f"synthetic release: {encounters} encounters, {size:.1f} MiB CSV, generated in {generated:.2f} s")
    print(f"load_release: {n} encounters, best of 3 {loaded:.3f} s (target < 10 s)")
    print(f"build er-reason-release-planning: {outputs['counts']['instances']} instances in {built:.2f} s")
    print(f"load_release, previous notes x{PAD}: {padded_size:.0f} MiB CSV, best of 3 {padded:.3f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)
