"""Time the matchers: first run, cached rerun, and the one-time ICD dictionary embedding.

Usage:
    python bench/bench_matching.py                       # 10k instances (exact), 2k (embedding)
    python bench/bench_matching.py --instances 10000 --embedding-instances 10000
    python bench/bench_matching.py --icd-full            # also embed the whole ICD-10 dictionary once

Instances are drawn (seed 0) from a pool of real ICD-10 titles and common spellings of them, about
5 predictions and 2 references each, and written with the contracts as a dataset + predictions
directory under --workdir. There is no target in the issue for matching itself; the figure that
matters downstream is the cached rerun, which scoring pays on every run (issue 6: 10k instances ×
5 systems scored with cached matches in under 10 s).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from admitdx.contracts import (
    INSTANCES_FILE,
    PREDICTIONS_FILE,
    Instance,
    Prediction,
    PredictionItem,
    Reference,
)
from admitdx.embeddings import Embedder
from admitdx.jsonl import write_jsonl
from admitdx.matching.embedding import EmbeddingMatcher
from admitdx.matching.exact import ExactMatcher
from admitdx.matching.icd import IcdMatcher
from admitdx.matching.icd_mapping import dictionary
from admitdx.matching.runner import run_matcher

SPELLINGS = ["{}", "{} (suspected)", "acute {}", "{}, unspecified"]


def write_dirs(root: Path, n: int, seed: int = 0) -> tuple[Path, Path]:
    rng = random.Random(seed)
    pool = [(code, title) for code, title, _ in dictionary(10, True, ("I", "J", "N", "K", "A"))][:400]
    instances, predictions = [], []
    for i in range(n):
        refs = rng.sample(pool, 2)
        preds = [rng.choice(SPELLINGS).format(t.lower()) for _, t in rng.sample(pool, 4) + refs[:1]]
        rng.shuffle(preds)
        instances.append(
            Instance(
                id=f"i{i}",
                subject_id=i,
                task="bench",
                split="test",
                sections={},
                text="",
                references=[Reference(text=t, code=c, code_system="ICD-10-CM") for c, t in refs],
            )
        )
        predictions.append(
            Prediction(instance_id=f"i{i}", system="bench", items=[PredictionItem(t) for t in preds])
        )
    dataset, pred = root / f"dataset{n}", root / f"pred{n}"
    write_jsonl(dataset / INSTANCES_FILE, (x.to_dict() for x in instances))
    write_jsonl(pred / PREDICTIONS_FILE, (x.to_dict() for x in predictions))
    return dataset, pred


def timed(label: str, fn) -> None:
    start = time.perf_counter()
    run = fn()
    seconds = time.perf_counter() - start
    n = len(run.matches)
    print(
        f"{label:<42} {n:>6} instances {seconds:8.2f} s  {n / seconds:9.0f}/s  "
        f"(computed {run.computed}, cached {run.cached})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--instances", type=int, default=10_000)
    parser.add_argument("--embedding-instances", type=int, default=2_000)
    parser.add_argument("--icd-full", action="store_true", help="embed every billable ICD-10 title once")
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    root = args.workdir or Path(tempfile.mkdtemp(prefix="bench_matching_"))
    embedder = Embedder(cache_dir=root / "cache", precision="float32")

    dataset, pred = write_dirs(root, args.instances)
    timed("exact, first run", lambda: run_matcher(ExactMatcher(), dataset, pred))
    timed("exact, cached rerun", lambda: run_matcher(ExactMatcher(), dataset, pred))
    timed(
        "icd (bm25, whole ICD-10), first run", lambda: run_matcher(IcdMatcher(search="bm25"), dataset, pred)
    )

    dataset, pred = write_dirs(root, args.embedding_instances)
    timed(
        "embedding, first run (model + cache fill)",
        lambda: run_matcher(EmbeddingMatcher(embedder=embedder), dataset, pred),
    )
    timed("embedding, cached rerun", lambda: run_matcher(EmbeddingMatcher(embedder=embedder), dataset, pred))
    if args.icd_full:
        titles = [t for _, t, _ in dictionary(10)]
        start = time.perf_counter()
        IcdMatcher(embedder=embedder).index(10).vectors()
        print(f"embedding all {len(titles)} billable ICD-10 titles once: {time.perf_counter() - start:.0f} s")
    print(f"work directory: {root}")


if __name__ == "__main__":
    main()
