"""The offline concept extractor: precision and recall on the phrase fixtures, and its start-up
time with and without its on-disk lexicon cache.

Usage:
    python bench/bench_concepts.py            # precision/recall, then 2 cold and 2 warm starts
    python bench/bench_concepts.py --quality  # precision/recall only

Precision and recall are micro over the concepts of ``tests/data/concept_phrases.tsv`` (116
emergency-medicine phrases; the term table was tuned on it) and of ``concept_phrases_heldout.tsv``
(44 phrases written afterwards and not tuned on), overall and per concept kind, with the phrases
the extractor got wrong. These figures are in the offline concept space (ICD-10-CM categories,
DrugBank ids, admitdx's terms) and are **not comparable with ER-Reason's table 4**, whose concepts
are UMLS CUIs found by cTAKES.

Each start runs in a fresh Python process with ``ADMITDX_CACHE_DIR`` set to a temporary folder:
a *cold* start finds it empty (the ICD-10-CM and drug tables are derived from their packages and
written there), a *warm* start finds the cached JSON. Each process then extracts the concepts of
one sentence, so the figure is what a scoring run pays before its first concept-recall score.
Wall time depends on the machine's load; user CPU time is the steadier figure.
"""

from __future__ import annotations

import argparse
import json
import os
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
    if "PYTHONPATH" in os.environ:  # a checkout's sources before the installed package
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    out = subprocess.run([sys.executable, "-c", PROBE], check=True, env=env, capture_output=True, text=True)
    return {"wall_s": round(time.perf_counter() - t0, 2), **json.loads(out.stdout.splitlines()[-1])}


FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "data"


def quality() -> None:
    """Precision and recall on each fixture, one JSON line per fixture and per kind."""
    from admitdx.metrics.concepts import get_extractor
    from admitdx.metrics.concepts_eval import read_phrases, score_phrases

    extractor = get_extractor("offline")
    for name in ("concept_phrases.tsv", "concept_phrases_heldout.tsv"):
        rows = read_phrases(FIXTURES / name)
        scores = score_phrases(extractor, rows)
        for kind in (None, *scores.kinds()):
            p, r = scores.precision(kind), scores.recall(kind)
            line = {"fixture": name, "phrases": len(rows), "kind": kind or "all"}
            print(json.dumps(line | {"precision": p and round(p, 3), "recall": r and round(r, 3)}))
        for phrase, missed, spurious in scores.misses:
            print(json.dumps({"fixture": name, "phrase": phrase, "missed": missed, "spurious": spurious}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--quality", action="store_true", help="precision and recall only")
    args = ap.parse_args()
    quality()
    if args.quality:
        return
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
