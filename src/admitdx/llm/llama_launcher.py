"""Run llama-cpp-python's OpenAI-compatible server with llama.cpp's extra CPU weight buffers off.

``python -m admitdx.llm.llama_launcher ARGS`` takes the arguments of ``python -m llama_cpp.server``
and serves the same FastAPI app; the one difference is that every model is loaded with
``llama_model_params.use_extra_bufts = False``.

Why: llama-cpp-python compiles llama.cpp with ``GGML_NATIVE``, which on a CPU with AMX
(Sapphire Rapids and later Xeons) builds in the AMX and "repack" *extra buffer types*: weights are
re-laid-out at load time for those kernels. On such a CPU the server answered ``/v1/models`` and
then died with SIGSEGV (a general protection fault in ``libggml-cpu.so``) on the first chat prompt
longer than one token. Loading with ``use_extra_bufts = False`` keeps the weights in their plain
layout and uses the ordinary AVX2/AVX-512 kernels, which are correct on every x86 CPU, and keeps
``GGML_NATIVE``'s fast vector paths. It also serves users who built llama-cpp-python themselves.

How: llama-cpp-python 0.3.x does not expose the field. ``Llama.__init__`` accepts unknown keyword
arguments and silently ignores them, so ``Llama(..., use_extra_bufts=False)`` would change nothing.
It builds its model parameters from ``llama_cpp.llama_cpp.llama_model_default_params()``, so this
module replaces that function, in this server process only, by one that returns the defaults with
the field cleared. A llama.cpp without the field (older than the extra buffer types' switch) is
served unchanged, and the first line of the log says which of the two happened.

It also asks Linux to end the server when the admitdx process that started it dies, even by SIGKILL
(:func:`die_with_parent`): ``atexit`` and context managers do not run then.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

EXTRA_BUFTS_FIELD = "use_extra_bufts"
#: the environment variable by which LocalServer tells the server its own process id
PARENT_PID_ENV = "ADMITDX_SERVER_PARENT_PID"
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with_parent() -> None:
    """Ask Linux to SIGTERM this process when the one named by ``PARENT_PID_ENV`` dies; if it has
    died already (before this line ran), exit now. No-op without the variable or without prctl.

    Done here, in the server, rather than between fork and exec (a ``preexec_fn``): a
    ``preexec_fn`` makes Python fork for real, which runs OpenBLAS's fork handler in the parent,
    and that ends OpenBLAS's helper threads under any product another study lane has in flight
    (:mod:`admitdx.concurrency`). Without one, Python starts the server by ``vfork``.
    """
    parent = os.environ.get(PARENT_PID_ENV)
    if parent is None or not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != int(parent):
        sys.exit(f"admitdx launcher: the process that started this server ({parent}) has ended")


def without_extra_bufts(default: Callable[[], Any]) -> Callable[[], Any]:
    """``default`` (a ``llama_model_default_params``), with the extra buffer types switched off."""

    def model_params() -> Any:
        params = default()
        setattr(params, EXTRA_BUFTS_FIELD, False)
        return params

    return model_params


def disable_extra_bufts() -> bool:
    """Make every model this process loads skip the extra buffer types; False if llama.cpp has none."""
    import llama_cpp.llama_cpp as low_level

    fields = {field[0] for field in low_level.llama_model_params._fields_}
    if EXTRA_BUFTS_FIELD not in fields:
        return False
    low_level.llama_model_default_params = without_extra_bufts(low_level.llama_model_default_params)
    return True


def main() -> None:
    die_with_parent()
    import llama_cpp
    from llama_cpp.server.__main__ import main as serve

    switched = disable_extra_bufts()
    state = "off" if switched else f"kept (this llama.cpp has no {EXTRA_BUFTS_FIELD} switch)"
    features = llama_cpp.llama_print_system_info().decode(errors="replace").strip()
    print(
        f"admitdx launcher: llama-cpp-python {llama_cpp.__version__}; extra CPU weight buffers "
        f"(AMX/repack) {state}\nllama.cpp built for: {features}",
        file=sys.stderr,
        flush=True,
    )
    serve()


if __name__ == "__main__":
    main()
