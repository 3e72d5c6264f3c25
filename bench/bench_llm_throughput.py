"""Throughput of the LLM client against a loopback server with a fixed 200 ms latency.

Target (issue 4): at concurrency 1, 8, 32 and 128 the client reaches at least 80 % of the ideal
rate, concurrency / latency. The server runs in its own process (``admitdx.llm.fault_server``) so
client and server do not share one interpreter; the cache is off so every request goes out.

    python bench/bench_llm_throughput.py [--latency 0.2] [--rounds 8]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from admitdx.llm import ChatRequest, LLMClient, LLMConfig

CONCURRENCY = (1, 8, 32, 128)
TARGET = 0.80


def measure(base_url: str, concurrency: int, n: int) -> float:
    """Requests per second for ``n`` distinct requests at ``concurrency`` in flight."""
    client = LLMClient(LLMConfig(base_url=base_url, cache_path=None, concurrency=concurrency, timeout_s=30))
    requests = [ChatRequest([{"role": "user", "content": f"request {i}"}]) for i in range(n)]
    started = time.perf_counter()
    done = sum(1 for _ in client.map(requests))
    elapsed = time.perf_counter() - started
    assert done == n and client.stats.retries == 0
    return n / elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.2, help="server latency in seconds")
    ap.add_argument("--rounds", type=int, default=8, help="requests per run = rounds x concurrency (min 20)")
    args = ap.parse_args()
    server = subprocess.Popen(
        [sys.executable, "-m", "admitdx.llm.fault_server", "--latency", str(args.latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().split()[1])
        base_url = f"http://127.0.0.1:{port}/v1"
        measure(base_url, 8, 16)  # warm-up: imports, first connections
        print(f"latency {args.latency * 1000:.0f} ms; target ≥ {TARGET:.0%} of concurrency / latency")
        print(f"{'concurrency':>11} {'requests':>8} {'req/s':>8} {'ideal':>8} {'of ideal':>8}")
        worst = 1.0
        for c in CONCURRENCY:
            n = max(20, args.rounds * c)
            rate = measure(base_url, c, n)
            ideal = c / args.latency
            worst = min(worst, rate / ideal)
            print(f"{c:>11} {n:>8} {rate:>8.1f} {ideal:>8.1f} {rate / ideal:>8.1%}")
        verdict = "PASS" if worst >= TARGET else "FAIL"
        print(f"{verdict}: lowest {worst:.1%} of ideal (target {TARGET:.0%})")
        return 0 if worst >= TARGET else 1
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    sys.exit(main())
