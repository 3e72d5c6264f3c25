"""Time the baseline systems: fitting on the training split and predicting the test split of
10,000 synthetic EarlyDx encounters.

Usage:
    python bench/bench_systems.py                          # 10k encounters, all baselines
    python bench/bench_systems.py --systems tfidf knn-dense
    python bench/bench_systems.py --dataset runs/earlydx   # an existing dataset instead

The encounters come from the project's own pipeline: a synthetic MIMIC-IV root (seed 7, generated
once under ``--workdir`` and shared with ``bench_build.py``) built into an EarlyDx dataset; the
first ``--encounters`` instances are kept with the builder's patient split. Each system is fitted
and then predicts in this process; the embedding cache starts empty, so dense kNN pays for
embedding every encounter once. Targets (issue 5): TF-IDF under 2 minutes and dense kNN under
5 minutes on 2 cores. Wall time depends on what else the machine runs, so the CPU seconds this
process used (all its threads; not TF-IDF's worker processes) and the 1-minute load average are
printed too: on 2 otherwise idle cores, a threaded system's wall time lies between CPU seconds / 2
(perfect parallelism) and CPU seconds (none).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import tempfile
import time
from pathlib import Path

TARGETS = {"tfidf": 120.0, "knn-dense": 300.0}
DEFAULT_SYSTEMS = ["frequency", "knn-bm25", "knn-vote", "extraction", "tfidf", "tfidf-threshold", "knn-dense"]


def synthetic_dataset(encounters: int, workdir: Path) -> Path:
    """An EarlyDx dataset with at least ``encounters`` instances (about 1.2 encounters a patient)."""
    from admitdx.synthetic import generate_synthetic
    from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx

    patients = encounters
    root, out = workdir / f"synthetic-{patients}", workdir / f"earlydx-{patients}"
    if not (root / "_truth" / "meta.json").exists():
        shutil.rmtree(root, ignore_errors=True)
        started = time.perf_counter()
        generate_synthetic(root, patients=patients, seed=7)
        print(f"generated {patients:,} patients in {time.perf_counter() - started:.0f} s", flush=True)
    if not (out / "instances.jsonl").exists():
        started = time.perf_counter()
        build_earlydx(root, out, EarlyDxParams())
        print(f"built EarlyDx in {time.perf_counter() - started:.0f} s → {out}", flush=True)
    return out


def bench(kind: str, train: list, test: list) -> tuple[float, float, float]:
    """(fit wall seconds, predict wall seconds, CPU seconds of both)."""
    from admitdx.systems import create

    system = create(kind)
    cpu, started = time.process_time(), time.perf_counter()
    system.fit(train)
    fitted = time.perf_counter()
    predictions = list(system.predict(test))
    assert len(predictions) == len(test)
    return fitted - started, time.perf_counter() - fitted, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--encounters", type=int, default=10_000)
    ap.add_argument("--systems", nargs="+", default=DEFAULT_SYSTEMS)
    ap.add_argument("--dataset", type=Path, help="benchmark this dataset directory instead")
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "admitdx-bench")
    args = ap.parse_args()
    from admitdx.contracts import load_instances

    args.workdir.mkdir(parents=True, exist_ok=True)
    dataset = args.dataset or synthetic_dataset(args.encounters, args.workdir)
    instances = load_instances(dataset)[: args.encounters]
    train = [i for i in instances if i.split == "train"]
    test = [dataclasses.replace(i, references=[]) for i in instances if i.split == "test"]
    os.environ["ADMITDX_CACHE_DIR"] = tempfile.mkdtemp(prefix="admitdx-bench-cache-")  # cold embeddings
    mean_chars = sum(len(i.text) for i in instances) / len(instances)
    print(
        f"{len(instances):,} encounters ({len(train):,} train, {len(test):,} test), "
        f"mean {mean_chars:,.0f} characters; {os.cpu_count()} CPUs"
    )
    print(f"{'system':<18}{'fit s':>8}{'predict s':>11}{'total s':>9}{'CPU s':>8}{'load':>6}  target (wall)")
    for kind in args.systems:
        fit_s, predict_s, cpu_s = bench(kind, train, test)
        total = fit_s + predict_s
        target = TARGETS.get(kind)
        verdict = "" if target is None else f"{'ok' if total < target else 'MISSED'} (<{target:.0f} s)"
        load = os.getloadavg()[0]
        print(
            f"{kind:<18}{fit_s:>8.1f}{predict_s:>11.1f}{total:>9.1f}{cpu_s:>8.1f}{load:>6.1f}  {verdict}",
            flush=True,
        )


if __name__ == "__main__":
    main()
