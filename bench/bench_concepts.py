"""Time the offline concept extractor's start-up, with and without its on-disk lexicon cache.

Usage:
    python bench/bench_concepts.py            # 2 cold and 2 warm starts

Each start runs in a fresh Python process with ``ADMITDX_CACHE_DIR`` set to a temporary folder:
a *cold* start finds it empty (the ICD-10-CM and drug tables are derived from their packages and
written there), a *warm* start finds the cached JSON. Each process then extracts the concepts of
one sentence, so the figure is what a scoring run pays before its first concept-recall score.
Wall time depends on the machine's load; user CPU time is the steadier figure.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROBE = """
from admitdx.metrics.concepts import get_extractor
import json, resource
assert get_extractor("offline").concepts("Pneumonia; give aspirin.") == {"ICD10:J18", "DRUG:DB00945"}
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"user_cpu_s": round(usage.ru_utime, 2), "peak_mb": round(usage.ru_maxrss / 1024)}))
"""


def _start(cache_dir: Path) -> dict[str, float]:
    t0 = time.perf_counter()
    env = {"ADMITDX_CACHE_DIR": str(cache_dir), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", PROBE], check=True, env=env, capture_output=True, text=True)
    return {"wall_s": round(time.perf_counter() - t0, 2), **json.loads(out.stdout.splitlines()[-1])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="admitdx-concepts-bench-"))
    try:
        for n in range(args.repeat):
            shutil.rmtree(cache / "concepts", ignore_errors=True)
            print(json.dumps({"start": "cold", "run": n + 1, **_start(cache)}))
        for n in range(args.repeat):
            print(json.dumps({"start": "warm", "run": n + 1, **_start(cache)}))
        sizes = [p.stat().st_size for p in (cache / "concepts").glob("lexicon-*.json")]
        print(json.dumps({"cache_file_mb": round(sum(sizes) / 2**20, 1)}))
    finally:
        shutil.rmtree(cache)


if __name__ == "__main__":
    main()
