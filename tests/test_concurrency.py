"""A study's lanes run in threads of one process: nothing may end OpenBLAS's helper threads (the
scorer's resting of them, or a fork) under another lane's product (admitdx.concurrency); and a
forked pool's workers end on the pool's SIGTERM whatever handler their parent holds.

Real parts: numpy's OpenBLAS, the study's run_in_lanes, the scorer's bootstrap products, a real
SIGKILL. Each hang-prone run is its own process with a timeout, so a hang fails the test instead
of the suite.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from rich.console import Console

from admitdx.concurrency import alone
from admitdx.llm.llama_launcher import PARENT_PID_ENV
from admitdx.scoring import parallel
from admitdx.study.lanes import run_in_lanes
from admitdx.study.steps import Steps

LANES_SCRIPT = """
import numpy as np
from rich.console import Console
from admitdx.metrics import bootstrap
from admitdx.study.lanes import run_in_lanes
from admitdx.study.steps import Steps

a, b = np.random.default_rng(0).random((400, 3000)), np.random.default_rng(1).random((3000, 12))
weights = bootstrap.resample_weights(3000, 400, 1)

def matching(steps):  # a lane with products in flight, as the embedding matchers make them
    for _ in range(300):
        a @ b
    return "matched"

def scoring(steps):  # the other lane scoring: a bootstrap product, then the threads rest
    for _ in range(300):
        bootstrap.replicate_values([], [], b, weights)
    return "scored"

print(run_in_lanes([("match", matching), ("score", scoring)], 2, Steps(Console(stderr=True))))
"""


def test_a_lane_scoring_beside_a_lane_with_products_in_flight_does_not_hang_it() -> None:
    """Before the fix, the scorer ended OpenBLAS's helper threads after every product whatever else
    ran, and the matching lane spun in ``exec_blas`` forever within its first 300 products."""
    done = subprocess.run([sys.executable, "-c", LANES_SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['matched', 'scored']"


def test_while_lanes_run_the_scorer_neither_forks_nor_rests_the_blas_threads() -> None:
    seen: dict[str, object] = {}
    release = threading.Event()

    def first(steps: Steps) -> str:
        release.wait(60)
        return "first"

    def second(steps: Steps) -> str:
        seen["alone"], seen["workers"] = alone(), parallel.worker_count(None, 4)
        release.set()
        return "second"

    assert alone() and parallel.worker_count(4, 4) == 4
    out = run_in_lanes([("a", first), ("b", second)], 2, Steps(Console(stderr=True)))
    assert out == ["first", "second"] and seen == {"alone": False, "workers": 1}
    assert alone() and parallel.worker_count(4, 4) == 4  # the lanes ended: forking is back


CHILD = (
    "from admitdx.llm.llama_launcher import die_with_parent\n"
    "import time; die_with_parent(); print('ready', flush=True); time.sleep(300)\n"
)


def _ended(pid: int) -> bool:
    """Gone, or a zombie waiting for init to reap it."""
    try:
        return "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True


def test_the_server_process_ends_when_its_parent_is_killed() -> None:
    """The launcher asks Linux to end the server with the admitdx process that started it (it used to
    be asked between fork and exec, which forced a real fork)."""
    parent_script = (
        "import os, subprocess, sys, time\n"
        f"child = subprocess.Popen([sys.executable, '-c', {CHILD!r}], "
        f"env={{**os.environ, {PARENT_PID_ENV!r}: str(os.getpid())}})\n"
        "print(child.pid, flush=True); time.sleep(300)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", parent_script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert parent.stdout.readline().strip() == "ready"  # the child has asked, and is waiting
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        for _ in range(600):  # at most a minute: the signal comes at once
            if _ended(child):
                break
            time.sleep(0.1)
        assert _ended(child), "the server outlived the process that started it"
    finally:
        if parent.poll() is None:
            parent.kill()


def test_a_server_whose_parent_is_already_gone_exits_at_once() -> None:
    env = {**os.environ, PARENT_PID_ENV: "1"}  # not this test's process: "the parent has ended"
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "has ended" in done.stderr and "ready" not in done.stdout


# a SIGTERM handler that does not exit, as a Ray driver leaves in a pytest worker; before the workers
# took the default action this hung in Pool.join (CI, test_synthetic_determinism)
POOL_SCRIPT = """
import signal, sys, tempfile
from pathlib import Path
from admitdx.synthetic import generate
signal.signal(signal.SIGTERM, lambda *_: None)
with tempfile.TemporaryDirectory() as d:
    generate.generate_synthetic(Path(d) / "two", patients=generate.CHUNK_SIZE + 30, seed=5, workers=2)
print("generated")
"""


def test_a_pool_ends_its_workers_under_a_parent_sigterm_handler_that_does_not_exit() -> None:
    done = subprocess.run([sys.executable, "-c", POOL_SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "generated"
