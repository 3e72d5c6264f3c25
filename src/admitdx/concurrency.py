"""Whether task runs go side by side in threads of this process (a study's lanes), for the two
things that must not happen then: a fork, and ending OpenBLAS's helper threads; and how a forked pool
worker takes SIGTERM (:func:`default_sigterm`).

OpenBLAS's helper threads serve every thread of a process. Ending them (``blas_thread_shutdown_``,
which the scorer calls after each product, :func:`admitdx.metrics.bootstrap.replicate_values`, and
which OpenBLAS's own handler calls before every fork) while another thread has a product in flight
loses that product's work: its thread spins in ``exec_blas`` forever. Measured: a thread computing
products hangs within seconds of another thread resting the helper threads, or forking, in a loop
(``tests/test_concurrency.py``). CI hung so once, a study lane spinning in a bootstrap product.
So while a lane thread is alive (an error in the foreground lane leaves the others running),
scoring stays in its own process (no forked workers) and leaves OpenBLAS's helper threads alone;
the local model server is started without a real fork at all (:mod:`admitdx.llm.llama_launcher`).
"""

from __future__ import annotations

import signal
import threading

#: the name of each lane thread a study starts besides the foreground one (admitdx-lane-2, …)
LANE_THREAD_PREFIX = "admitdx-lane-"


def alone() -> bool:
    """True unless a study's lane threads are running in this process."""
    return not any(t.name.startswith(LANE_THREAD_PREFIX) for t in threading.enumerate())


def default_sigterm() -> None:
    """A forked pool worker's initializer: SIGTERM's default action, unblocked. A pool ends its
    workers with SIGTERM when it closes, and a forked worker inherits its parent's handler and
    signal mask: under a handler that does not exit (a Ray driver installs one; pytest's workers
    keep it from one test to the next), the worker outlives the SIGTERM, waiting on the pool's queue
    lock, while the parent joins it forever. CI hung so twice: once in scoring, once in the
    synthetic generator (``tests/test_concurrency.py`` reproduces it)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
