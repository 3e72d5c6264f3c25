"""Time ``admitdx score`` on 10k encounters × 5 systems with cached matches (target: under 2 s wall).

Usage:
    python bench/bench_scoring.py                       # 10,000 encounters, 5 systems, 1000 replicates
    python bench/bench_scoring.py --instances 2000 --systems 3 --bootstrap 200 --runs 1

Writes a synthetic audited dataset (ICD-10 labels with evidence classes, explicitness and patient
metadata; ~1.3 encounters per patient) and, per system, predictions and exact-match pairs, into a
temporary directory; generation is not timed. Then times ``--runs`` full scoring runs — loading,
every metric family, the patient bootstrap on the headline metrics, results.json /
per_instance.jsonl — and, separately, three phases of it alone (reading the dataset, predictions
and matches; drawing one bootstrap resample matrix; writing per_instance.jsonl), then ``admitdx
report``. Prints wall and CPU seconds per step (this process and the worker processes it waited
for, all threads): on a shared machine compare CPU seconds across machines, and read a wall time
next to the load average it was measured at. ``--jobs`` is the scoring run's worker count
(default: one per CPU; 1 scores in this process).

It ends with where the CPU time goes (issue 23: 3.1–3.5 s wall and 4.7–5.2 CPU-s on one 2-core
machine, 1.4–1.65 s on another of the same kind): the cores this process may use and the load;
each BLAS/OpenMP thread pool and its thread count (and the environment variables that set them);
the CPU of a fresh interpreter importing what ``admitdx score`` imports (process start-up, paid
once per run and by no worker, which are forked); the best run's CPU split into this process and
its workers, user and system time (system time is page faults and thread wake-ups); and one
bootstrap product (replicate weights × per-patient counts) with the BLAS threads as they are and
with one thread, whose difference is what spinning helper threads cost.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from admitdx.contracts import Instance, Match, Prediction, PredictionItem, Reference, load_instances
from admitdx.jsonl import read_jsonl, write_jsonl
from admitdx.metrics.bootstrap import resample_weights
from admitdx.report.html import write_report
from admitdx.scoring.inputs import load_system
from admitdx.scoring.run import ScoreParams, score_run

TARGET_S = 2.0
T = TypeVar("T")
CODES = [
    (f"{letter}{n:02d}{d}", f"condition {letter}{n:02d}{d}")
    for letter in "ACEIJKN"
    for n in range(30)
    for d in "019"
]
CODES += [("I214", "NSTEMI"), ("A419", "Sepsis"), ("I269", "Pulmonary embolism"), ("K922", "GI bleed")]
FREE_TEXT = ["Sepsis", "Chest pain", "Pneumonia", "Acute kidney injury", "NSTEMI", "Syncope", "Fall", "UTI"]


def make_instances(n: int, rng: random.Random) -> list[Instance]:
    out = []
    for i in range(n):
        refs = [
            Reference(
                text=t,
                code=c,
                code_system="ICD-10-CM",
                seq_num=k + 1,
                evidence_class=rng.choice(["supported", "partial", "unsupported"]),
                explicit=rng.random() < 0.43,
            )
            for k, (c, t) in enumerate(rng.sample(CODES, rng.randint(1, 4)))
        ]
        meta = {
            "age": rng.randint(18, 95),
            "sex": rng.choice("MF"),
            "race": rng.choice(["WHITE", "BLACK", "ASIAN"]),
            "insurance": rng.choice(["Medicare", "Medicaid", "Other"]),
            "language": "ENGLISH",
            "acuity": rng.randint(1, 5),
            "arrival_transport": rng.choice(["AMBULANCE", "WALK IN"]),
        }
        out.append(
            Instance(
                id=f"e{i}",
                subject_id=int(i / 1.3),
                task="earlydx",
                split="test",
                sections={"triage": "x", "labs": "x" if rng.random() < 0.16 else None},
                text="x",
                references=refs,
                meta=meta,
            )
        )
    return out


def write_system(root: Path, name: str, instances: list[Instance], rng: random.Random) -> Path:
    preds, matches = [], []
    for inst in instances:
        hits = [j for j in range(len(inst.references)) if rng.random() < 0.5]
        texts = [(inst.references[j].text, j) for j in hits]
        texts += [(rng.choice(FREE_TEXT), None) for _ in range(rng.randint(0, 4))]
        rng.shuffle(texts)
        items = [PredictionItem(text=t, status="suspected" if rng.random() < 0.1 else None) for t, _ in texts]
        preds.append(Prediction(instance_id=inst.id, system=name, items=items).to_dict())
        pairs = [(k, j) for k, (_, j) in enumerate(texts) if j is not None]
        matches.append(Match(instance_id=inst.id, system=name, matcher="exact", pairs=pairs).to_dict())
    write_jsonl(root / name / "predictions.jsonl", preds)
    write_jsonl(root / name / "matches" / "exact.jsonl", matches)
    return root / name


def timed(fn: Callable[..., T], *args: Any) -> tuple[T, float, float]:
    """(result, wall seconds, CPU seconds of this process and its workers), with the cyclic garbage collector
    paused as ``score_run`` pauses it (else a phase timed alone pays for collections that the
    run does not make)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), _cpu_seconds()
        result = fn(*args)
        return result, time.perf_counter() - wall, _cpu_seconds() - cpu
    finally:
        if was_enabled:
            gc.enable()


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its finished child processes (a run's scoring workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _cpu_parts() -> tuple[float, float, float, float]:
    """(user, system) CPU seconds of this process, then of its finished child processes."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime, own.ru_stime, children.ru_utime, children.ru_stime


def startup_cpu() -> float:
    """CPU seconds of a fresh interpreter that imports what ``admitdx score`` and ``report`` import."""
    before = _cpu_parts()
    code = "import admitdx.scoring.run, admitdx.report.html, admitdx.report.figures"
    subprocess.run([sys.executable, "-c", code], check=True)
    return sum(_cpu_parts()[2:]) - sum(before[2:])


def blas_product(n_patients: int, replicates: int) -> tuple[float, float, float, float]:
    """(wall, CPU) of one replicate-weights × per-patient-counts product as the scorer computes it,
    with the BLAS threads as they are, then with one thread (threadpoolctl)."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    weights = resample_weights(n_patients, replicates).astype(np.float64)
    counts = np.random.default_rng(0).integers(0, 4, size=(n_patients, 16)).astype(np.float64)
    _, wall, cpu = timed(np.matmul, weights, counts)
    with threadpool_limits(1):
        _, wall1, cpu1 = timed(np.matmul, weights, counts)
    return wall, cpu, wall1, cpu1


def cpu_breakdown(results: dict[str, Any], replicates: int, run_parts: tuple[float, ...]) -> list[str]:
    """The lines that say where a scoring run's CPU time goes on this machine."""
    from threadpoolctl import threadpool_info

    lines = [
        f"cores: {os.cpu_count()} ({len(os.sched_getaffinity(0))} usable by this process); "
        f"load average {os.getloadavg()[0]:.1f}"
    ]
    for pool in threadpool_info():
        layer = pool.get("threading_layer", "-")
        lines.append(
            f"thread pool: {pool['internal_api']} {pool.get('version') or ''} ({layer}), "
            f"{pool['num_threads']} threads — {Path(pool['filepath']).name}"
        )
    env = [f"{k}={os.environ[k]}" for k in THREAD_VARIABLES if k in os.environ]
    lines.append(f"thread variables: {' '.join(env) or 'none set (each library picks its own count)'}")
    lines.append(
        f"process start-up (interpreter + score/report imports, once per run): {startup_cpu():.2f} s CPU"
    )
    user, system, w_user, w_system = run_parts
    lines.append(
        f"best score run: this process {user:.2f} s user + {system:.2f} s system; "
        f"its workers {w_user:.2f} s user + {w_system:.2f} s system"
    )
    wall, cpu, wall1, cpu1 = blas_product(results["n_patients"], replicates)
    lines.append(
        f"one bootstrap product ({replicates} × {results['n_patients']} weights): {wall:.3f} s wall, "
        f"{cpu:.3f} s CPU with the BLAS threads as they are; {wall1:.3f} s wall, {cpu1:.3f} s CPU on one "
        "thread"
    )
    return lines


THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def read_inputs(dataset: Path, dirs: list[Path]) -> None:
    """What a scoring run reads before it scores: the dataset and each system's predictions and matches."""
    ids = {i.id for i in load_instances(dataset) if i.split == "test"}
    for d in dirs:
        load_system(d, "exact", ids)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=10_000)
    ap.add_argument("--systems", type=int, default=5)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3, help="timed scoring runs (the machine may be shared)")
    ap.add_argument("--jobs", type=int, default=None, help="scoring worker processes (default: one per CPU)")
    args = ap.parse_args()
    rng = random.Random(0)
    n = args.instances * args.systems
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        instances = make_instances(args.instances, rng)
        write_jsonl(root / "ds" / "instances.jsonl", (i.to_dict() for i in instances))
        dirs = [write_system(root, f"system{k}", instances, rng) for k in range(args.systems)]
        took = time.perf_counter() - t
        print(f"generated {args.instances} encounters × {args.systems} systems in {took:.1f} s (not timed)")
        # hand-made predictions have no predict manifest: scored as made outside admitdx
        params = ScoreParams(
            matcher="exact", n_bootstrap=args.bootstrap, jobs=args.jobs, allow_no_manifest=True
        )
        walls, parts = [], []
        for run in range(1, args.runs + 1):
            before = _cpu_parts()
            results, wall, cpu = timed(score_run, root / "ds", dirs, root / f"run{run}", params)
            walls.append(wall)
            parts.append(tuple(b - a for a, b in zip(before, _cpu_parts(), strict=True)))
            print(
                f"score run {run}: {wall:.2f} s wall, {cpu:.2f} s CPU for {n} scored encounters "
                f"({n / wall:,.0f}/s); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
            )
        _, read_wall, read_cpu = timed(read_inputs, root / "ds", dirs)
        _, draw_wall, draw_cpu = timed(resample_weights, results["n_patients"], args.bootstrap)
        per_instance = list(read_jsonl(root / "run1" / "per_instance.jsonl"))
        _, write_wall, write_cpu = timed(write_jsonl, root / "per_instance.jsonl", per_instance)
        _, report_wall, report_cpu = timed(write_report, root / "run1")
    verdict = "met" if min(walls) < TARGET_S else "NOT met"
    for phase, wall, cpu in (
        ("reading the dataset, predictions and matches", read_wall, read_cpu),
        ("one bootstrap resample matrix (a run draws one per track)", draw_wall, draw_cpu),
        (f"writing per_instance.jsonl ({len(per_instance):,} lines)", write_wall, write_cpu),
    ):
        print(f"  of which {phase} alone: {wall:.2f} s wall, {cpu:.2f} s CPU")
    print(
        f"best score run: {min(walls):.2f} s wall; {len(results['headline_metrics'])} headline metrics × "
        f"{args.bootstrap} patient-bootstrap replicates — target < {TARGET_S:.0f} s wall: {verdict}"
    )
    print(f"report: {report_wall:.2f} s wall, {report_cpu:.2f} s CPU")
    print("where the CPU time goes:")
    for line in cpu_breakdown(results, args.bootstrap, parts[walls.index(min(walls))]):
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
