"""Throughput of the local and the Ray executor against 4 loopback servers (200 ms, 16 slots each).

Targets (issue 13): the Ray executor reaches ≥ 85 % of the ideal rate (total slots ÷ latency) at 4
workers, and its overhead over the local executor at 1 worker is ≤ 10 % (both against one endpoint
with 16 slots, so they have the same ideal). Each server is its own process
(``admitdx.llm.fault_server``); the cache is off, so every request goes out; a local Ray instance
is started once. The local executor calls one base URL, so it is measured against one endpoint
(16 slots) and, for reference, with all 64 slots on one server.

    python bench/bench_ray.py [--latency 0.2] [--slots 16] [--rounds 30] [--shard-size 8]

Smaller shards spread better over HTTP endpoints: at load ≈ 2, ``--shard-size 4`` measured 84 % of
ideal at 4 workers against 79 % for 8 (and 86 % for the local client with all 64 slots on one server).

``--memory N`` measures instead what the Ray driver holds while it maps N distinct requests of
``--prompt-kb`` KiB each (a stand-in for a 243k-label audit, whose every prompt carries the whole
record) against 4 servers without latency: the peak of Python allocations (tracemalloc) and the
growth of the driver's peak RSS, with the requests produced lazily as the auditor produces them.

    python bench/bench_ray.py --memory 20000 [--prompt-kb 8]
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator

import ray

from admitdx.executors import LocalExecutor, parse_endpoints
from admitdx.executors.base import Executor
from admitdx.executors.ray_executor import RayExecutor
from admitdx.llm import ChatRequest, LLMClient, LLMConfig

SERVERS = 4
TARGET_AT_4 = 0.85
MAX_OVERHEAD_AT_1 = 0.10


@contextlib.contextmanager
def servers(n: int, latency: float) -> Iterator[list[str]]:
    """``n`` fault servers, each in its own process; yields their base URLs."""
    cmd = [sys.executable, "-m", "admitdx.llm.fault_server", "--latency", str(latency)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(n)]
    try:
        ports = [int(p.stdout.readline().split()[1]) for p in procs if p.stdout is not None]
        yield [f"http://127.0.0.1:{port}/v1" for port in ports]
    finally:
        for p in procs:
            p.terminate()
            p.wait(10)


def measure(executor: Executor, urls: list[str], slots: int, n: int) -> float:
    """Requests per second for ``n`` distinct requests spread over ``urls`` at ``slots`` each."""
    config = LLMConfig(base_url=urls[0], cache_path=None, concurrency=slots, timeout_s=30)
    client = LLMClient(config)
    endpoints = parse_endpoints(urls, base_url=urls[0], concurrency=slots, allow_hosts=[], proxy=None)
    requests = [ChatRequest([{"role": "user", "content": f"request {i} {time.time_ns()}"}]) for i in range(n)]
    started = time.perf_counter()
    done = sum(1 for _ in executor.map(client, requests, endpoints))
    elapsed = time.perf_counter() - started
    assert done == n and client.stats.model_calls == n and client.stats.retries == 0
    return n / elapsed


def memory(executor: RayExecutor, urls: list[str], slots: int, n: int, prompt_kb: int) -> None:
    """Print the driver's peak memory while ``executor`` maps ``n`` lazily produced requests."""
    config = LLMConfig(base_url=urls[0], cache_path=None, concurrency=slots, timeout_s=30)
    client = LLMClient(config)
    endpoints = parse_endpoints(urls, base_url=urls[0], concurrency=slots, allow_hosts=[], proxy=None)
    filler = "x" * (prompt_kb * 1024)
    requests = (ChatRequest([{"role": "user", "content": f"request {i} {filler}"}]) for i in range(n))
    measure(executor, urls, slots, 4 * slots)  # warm-up: start the workers, open connections
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    started = time.perf_counter()
    done = sum(1 for _ in executor.map(client, requests, endpoints))
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    assert done == n == client.stats.model_calls
    held = getattr(executor, "peak_held", None)
    print(f"{n} requests of {prompt_kb} KiB ({n * prompt_kb / 1024:.0f} MiB of prompts) in {elapsed:.1f} s")
    print(f"driver: traced peak {peak / 2**20:.1f} MiB, peak RSS growth {rss_growth / 1024:.1f} MiB, "
          f"most requests held at once: {held if held is not None else 'all'}")  # fmt: skip


def row(label: str, rate: float, ideal: float) -> float:
    print(f"{label:<34} {rate:>8.1f} {ideal:>8.1f} {rate / ideal:>9.1%}")
    return rate / ideal


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.2, help="server latency in seconds")
    ap.add_argument("--slots", type=int, default=16, help="concurrency limit per endpoint")
    ap.add_argument(
        "--rounds",
        type=int,
        default=30,
        help="requests per run = rounds × total slots (30: the rounds where slots fill and drain weigh "
        "little; at load ≈ 2, Ray at 4 workers measured 65 %% of ideal over 6 rounds, 79 %% over 30)",
    )
    ap.add_argument("--shard-size", type=int, default=8, help="requests per shard on a Ray worker")
    ap.add_argument("--memory", type=int, default=0, help="measure the driver's memory over N requests")
    ap.add_argument("--prompt-kb", type=int, default=8, help="prompt size in KiB for --memory")
    args = ap.parse_args()
    if args.memory:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            with servers(SERVERS, 0.0) as urls:
                executor = RayExecutor(workers=2, shard_size=args.shard_size)
                try:
                    memory(executor, urls, args.slots, args.memory, args.prompt_kb)
                finally:
                    executor.close()
        finally:
            ray.shutdown()
        return 0
    one, four = args.slots / args.latency, SERVERS * args.slots / args.latency
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False)
    try:
        with servers(SERVERS, args.latency) as urls:
            local = LocalExecutor()
            measure(local, urls[:1], args.slots, 32)  # warm-up: imports, first connections
            shape = f"{args.slots} slots per endpoint, shard {args.shard_size}"
            print(f"latency {args.latency * 1000:.0f} ms, {shape}")
            print(f"{'run':<34} {'req/s':>8} {'ideal':>8} {'of ideal':>9}")
            n1, n4 = args.rounds * args.slots, args.rounds * SERVERS * args.slots
            local_1 = row("local, 1 endpoint", measure(local, urls[:1], args.slots, n1), one)
            row(
                f"local, 1 server × {SERVERS * args.slots} slots",
                measure(local, urls[:1], 4 * args.slots, n4),
                four,
            )
            fractions = {}
            for workers in (1, 2, 4):
                executor = RayExecutor(workers=workers, shard_size=args.shard_size)
                try:
                    measure(executor, urls, args.slots, 4 * args.slots)  # warm-up: start the workers
                    if workers == 1:
                        ray_1 = row(
                            "ray, 1 worker, 1 endpoint", measure(executor, urls[:1], args.slots, n1), one
                        )
                    rate = measure(executor, urls, args.slots, n4)
                    fractions[workers] = row(f"ray, {workers} worker(s), {SERVERS} endpoints", rate, four)
                finally:
                    executor.close()
    finally:
        ray.shutdown()
    overhead = 1 - ray_1 / local_1
    ok = fractions[4] >= TARGET_AT_4 and overhead <= MAX_OVERHEAD_AT_1
    print(
        f"{'PASS' if ok else 'FAIL'}: ray at 4 workers {fractions[4]:.1%} of ideal "
        f"(target ≥ {TARGET_AT_4:.0%}); "
        f"overhead over local at 1 worker {overhead:.1%} (target ≤ {MAX_OVERHEAD_AT_1:.0%})"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
