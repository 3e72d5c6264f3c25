"""Kill `admitdx predict` with SIGKILL mid-run, rerun it with another concurrency, and check every
instance is predicted once; a rerun that would change the answers (temperature) is refused.

The run goes through the real command line and the generic runner (``admitdx.systems.runner``)
with an ``llm`` system pointed at a loopback fault server, so the kill lands while requests are in
flight, retries are pending and predictions are being appended.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from admitdx.contracts import INSTANCES_FILE, Instance, Reference
from admitdx.jsonl import read_jsonl, write_jsonl
from admitdx.llm.fault_server import FaultServer

N_TEST = 40


def _dataset(directory: Path) -> dict[str, str]:
    """A hand-made dataset; returns each test instance's expected fault-server answer."""
    instances = [
        Instance(f"tr{i}", i, "earlydx", "train", {"chief_complaint": t}, t, [Reference("Pneumonia")])
        for i, t in enumerate(["cough and fever", "chest pain", "syncope"])
    ]
    instances += [
        Instance(f"te{i:02d}", 100 + i, "earlydx", "test", {"chief_complaint": f"complaint {i}"},
                 f"Chief complaint: complaint {i}", [Reference("Sepsis")])
        for i in range(N_TEST)
    ]  # fmt: skip
    write_jsonl(directory / INSTANCES_FILE, (i.to_dict() for i in instances))
    return {
        i.id: "answer " + hashlib.sha256(i.text.encode()).hexdigest()[:12]
        for i in instances
        if i.split == "test"
    }


def _predict(dataset: Path, out: Path, config: Path) -> subprocess.Popen[bytes]:
    cli = [sys.executable, "-c", "from admitdx.cli import main; main()"]
    args = ["--dataset", str(dataset), "--system", "fake", "--out", str(out), "--config", str(config)]
    cmd = [*cli, "predict", *args]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_sigkill_mid_run_then_resume_predicts_each_instance_once(tmp_path: Path) -> None:
    dataset = tmp_path / "ds"
    dataset.mkdir()
    expected = _dataset(dataset)
    out = tmp_path / "pred"
    with FaultServer(
        latency_s=0.08, fault_rate=0.2, faults=("429", "500", "truncate", "malformed"), seed=5
    ) as server:
        system = {"kind": "llm", "base_url": server.base_url, "concurrency": 2, "timeout_s": 2.0,
                  "backoff_initial_s": 0.01, "backoff_max_s": 0.05,
                  "cache_path": str(tmp_path / "cache.sqlite")}  # fmt: skip
        config = tmp_path / "run.yaml"
        config.write_text(yaml.safe_dump({"systems": {"fake": system}}))

        first = _predict(dataset, out, config)
        predictions = out / "predictions.jsonl"
        deadline = time.monotonic() + 300  # a liveness wait, not a threshold: it ends at the 8th line
        while _lines(predictions) < 8 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
        assert first.returncode == -signal.SIGKILL
        killed_at = _lines(predictions)
        assert 8 <= killed_at < N_TEST, "the kill must land mid-run"

        # resume with another concurrency and timeout: execution settings, not answers, so allowed
        config.write_text(
            yaml.safe_dump({"systems": {"fake": {**system, "concurrency": 4, "timeout_s": 3.0}}})
        )
        second = _predict(dataset, out, config)
        log = second.communicate(timeout=120)[0].decode()
        assert second.returncode == 0, log

        # another temperature changes the answers: the finished run refuses to be appended to
        config.write_text(yaml.safe_dump({"systems": {"fake": {**system, "temperature": 0.7}}}))
        third = _predict(dataset, out, config)
        refusal = third.communicate(timeout=120)[0].decode()
        assert third.returncode == 2 and "changed: system_inputs" in refusal, refusal

    records = list(read_jsonl(predictions))
    ids = [r["instance_id"] for r in records]
    assert sorted(ids) == sorted(expected)  # all 40, none twice
    for r in records:
        assert r["parse_error"] is None
        assert [item["text"] for item in r["items"]] == [expected[r["instance_id"]]]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["outputs"]["complete"] is True
    assert manifest["outputs"]["predictions"] == N_TEST
    assert manifest["inputs"]["system_inputs"]["egress"] == {"host": "127.0.0.1", "loopback": True}
    assert f"{N_TEST - killed_at} predicted now, {killed_at} earlier" in " ".join(log.split()), log
