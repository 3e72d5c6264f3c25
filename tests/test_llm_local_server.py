"""The embedded llama.cpp server fails loudly, early and by name (issue 12).

Real parts: the real llama.cpp server with the bundled SmolLM2-135M, killed in the middle of a real
``admitdx predict`` run started through the installed console script. The self-test's crash path is
exercised with a stand-in server process that answers ``/v1/models`` and then dies by SIGSEGV on
its first chat request, which is what llama.cpp did on AMX CPUs before the launcher's switch.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from admitdx.contracts import INSTANCES_FILE, PREDICTIONS_FILE, Instance, Reference
from admitdx.jsonl import write_jsonl
from admitdx.llm.local_server import LOG_NAME, LocalServer, LocalServerDied, default_gguf, llama_cpp_available

pytestmark = [
    pytest.mark.llm,
    pytest.mark.skipif(
        not llama_cpp_available(), reason="llama-cpp-python not installed (admitdx[local] extra)"
    ),
]

ADMITDX = Path(sys.executable).with_name("admitdx")
COMPLAINTS = [
    "chest pain, troponin 2.3 ng/mL (high), ST elevation in II, III, aVF",
    "cough and fever 39.1 C, right lower lobe consolidation on chest X-ray",
    "weakness, potassium 6.9 mEq/L, creatinine 4.2 mg/dL",
    "palpitations, atrial fibrillation with rapid ventricular response, rate 142",
    "headache, blood pressure 220/130, papilledema",
    "abdominal pain, lipase 1900 U/L, epigastric tenderness",
    "confusion, glucose 38 mg/dL, diaphoresis",
    "shortness of breath, BNP 2400 pg/mL, bilateral crackles",
    "fall, hip pain, shortened externally rotated right leg",
    "vomiting blood, hemoglobin 6.8 g/dL, melena",
    "fever, neck stiffness, photophobia, CSF white cells 2300",
    "syncope, heart rate 34, third-degree AV block on ECG",
]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("ds")
    train = [Instance("tr1", 1, "earlydx", "train", {"chief_complaint": "dyspnea"},
                      "Chief complaint: dyspnea. BNP 2400 pg/mL.", [Reference("Heart failure")])]  # fmt: skip
    test = [
        Instance(f"te{n:02d}", 10 + n, "earlydx", "test", {"chief_complaint": text},
                 f"Chief complaint: {text}.", [Reference("hidden")])
        for n, text in enumerate(COMPLAINTS)
    ]  # fmt: skip
    write_jsonl(directory / INSTANCES_FILE, (i.to_dict() for i in train + test))
    return directory


def _predict_command(dataset: Path, out: Path) -> list[str]:
    return [
        str(ADMITDX), "predict", "--dataset", str(dataset), "--system", "llm", "--out", str(out),
        "--set", "base_url=local", "--set", "max_tokens=60", "--set", "max_items=3",
        "--set", f"cache_path={out.parent / 'llm-cache.sqlite'}",  # a fresh cache: every call is real
    ]  # fmt: skip


def _env(tmp_path: Path) -> dict[str, str]:
    # wide lines, so that rich does not fold the log path in the error message
    return {**os.environ, "COLUMNS": "1000", "ADMITDX_CACHE_DIR": str(tmp_path / "cache")}


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def _server_pid(parent: int) -> int:
    """The llama.cpp server: the child of the ``admitdx`` process that runs the launcher."""
    children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
    for pid in children:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if b"admitdx.llm.llama_launcher" in cmdline:
            return int(pid)
    raise AssertionError(f"no llama.cpp server among the children {children} of {parent}")


def test_server_killed_mid_predict_is_named_by_its_signal_and_the_rerun_resumes(
    dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "pred"
    predictions = out / PREDICTIONS_FILE
    run = subprocess.Popen(
        _predict_command(dataset, out), env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 180
        while len(_lines(predictions)) < 2:  # two finished predictions, the rest still to come
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "no predictions within 180 s"
            time.sleep(0.05)
        os.kill(_server_pid(run.pid), signal.SIGKILL)
        kept_at_kill = _lines(predictions)
        _, err = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
    stderr = err.decode()
    assert run.returncode == 2, stderr
    log = out / LOG_NAME
    assert "was killed by signal SIGKILL (9)" in stderr and str(log) in stderr, stderr
    assert "kept failing" not in stderr  # the death is named, not blamed on the connection
    kept = _lines(predictions)
    assert kept[: len(kept_at_kill)] == kept_at_kill  # nothing finished was lost or rewritten
    done = [json.loads(line)["instance_id"] for line in kept]
    assert len(done) == len(set(done)) and 2 <= len(done) < len(COMPLAINTS)
    assert "admitdx launcher" in log.read_text()  # the server's own output went to the run's log

    rerun = subprocess.run(
        _predict_command(dataset, out), env=_env(tmp_path), capture_output=True, text=True, timeout=300
    )
    assert rerun.returncode == 0, rerun.stderr
    assert f"{len(COMPLAINTS) - len(done)} predicted now, {len(done)} earlier" in rerun.stderr
    final = [json.loads(line)["instance_id"] for line in _lines(predictions)]
    assert sorted(final) == [f"te{n:02d}" for n in range(len(COMPLAINTS))]
    assert log.read_text().count("admitdx starts:") == 2  # both servers appended to the same log


CRASHING_SERVER = textwrap.dedent(
    """
    import os, signal, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.end_headers(); self.wfile.write(b'{"data": []}')
        def do_POST(self):
            print("stand-in: first chat request, crashing", flush=True)
            os.kill(os.getpid(), signal.SIGSEGV)

    print("stand-in server listening", flush=True)
    HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
    """
)


class CrashingServer(LocalServer):
    """Runs :data:`CRASHING_SERVER` in place of llama.cpp."""

    script: Path | None = None

    def command(self) -> list[str]:
        assert self.script is not None
        return [sys.executable, str(self.script), str(self.port)]


def test_a_crash_in_the_self_test_names_the_signal_the_log_and_the_fix(tmp_path: Path) -> None:
    (tmp_path / "crash.py").write_text(CRASHING_SERVER)
    server = CrashingServer(log_path=tmp_path / "logs" / LOG_NAME)
    server.script = tmp_path / "crash.py"
    with pytest.raises(LocalServerDied) as caught:
        server.start()
    message = str(caught.value)
    assert "was killed by signal SIGSEGV (11) during its self-test completion" in message
    assert f"its log: {tmp_path / 'logs' / LOG_NAME}" in message
    assert "stand-in: first chat request, crashing" in message  # the tail of the log is shown
    assert "-DGGML_NATIVE=OFF" in (caught.value.hint or "")  # the fix: a portable build
    assert server.process is not None and server.process.returncode == -signal.SIGSEGV


def test_a_model_that_fails_to_load_is_named_with_its_exit_code_and_logged_to_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + bytes(range(256)) * 4)
    server = LocalServer(model_path=broken)
    with pytest.raises(LocalServerDied, match=r"exited with code 1 while loading the model") as caught:
        server.start()
    assert server.log_path is not None and server.log_path.parent == tmp_path / "cache" / "logs"
    assert str(server.log_path) in str(caught.value)
    assert "broken.gguf" in server.log_path.read_text()  # llama-cpp-python's own complaint is kept


def test_the_launcher_loads_the_model_without_the_extra_cpu_buffers(tmp_path: Path) -> None:
    """In a separate process (the switch patches llama-cpp-python for the whole process)."""
    script = textwrap.dedent(
        f"""
        import llama_cpp
        from admitdx.llm.llama_launcher import disable_extra_bufts
        assert llama_cpp.llama_cpp.llama_model_default_params().use_extra_bufts  # llama.cpp's default
        assert disable_extra_bufts()
        llm = llama_cpp.Llama({str(default_gguf())!r}, n_ctx=256, n_threads=1, verbose=True)
        print("use_extra_bufts", llm.model_params.use_extra_bufts)
        out = llm.create_completion("Chest pain, troponin high, ST elevation. The diagnosis is", max_tokens=4)
        print("completion_tokens", out["usage"]["completion_tokens"])
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "use_extra_bufts False" in done.stdout
    assert "completion_tokens 4" in done.stdout  # a multi-token prompt ran (it crashed on AMX before)
    loaded = [line for line in done.stderr.splitlines() if "model buffer size" in line]
    assert loaded and all("AMX" not in line and "REPACK" not in line for line in loaded), loaded
