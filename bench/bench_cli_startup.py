"""The CPU seconds `admitdx --version` and `admitdx --help` take in a fresh interpreter (issue 23's
target: under 0.5 CPU-s each). A figure to read, not a test: it depends on the machine and its
load; `tests/test_cli_startup.py` checks what makes it small (which modules `--help` imports).

Usage:
    python bench/bench_cli_startup.py            # 5 runs of each, median and range
    python bench/bench_cli_startup.py --runs 10
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys

TARGET_CPU_S = 0.5


def cpu_seconds(*args: str) -> float:
    """User + system CPU seconds of one `admitdx ARGS` run through the console script's entry."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from admitdx.launcher import main; sys.argv[0] = 'admitdx'; main()",
            *args,
        ],
        capture_output=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs; target {TARGET_CPU_S} CPU-s")
    for args in (["--version"], ["--help"]):
        times = [cpu_seconds(*args) for _ in range(runs)]
        print(
            f"admitdx {' '.join(args)}: median {statistics.median(times):.2f} CPU-s "
            f"(min {min(times):.2f}, max {max(times):.2f}, {runs} runs)"
        )


if __name__ == "__main__":
    main()
