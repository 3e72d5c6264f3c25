"""The Ray executor on a real local Ray instance against loopback fault servers (several = several
endpoints): the same predictions and manifest as the local executor, exactly once; a worker killed
mid-shard (``ray.kill`` and kill -9) is retried; a failing endpoint is drained to another; a rerun
makes zero calls; the egress guard refuses a non-loopback endpoint before any request; an
unreachable cluster address and a missing Ray are usage errors (exit 2).

One Ray instance serves the module (starting one costs ~20 s on a loaded 2-core machine).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from tests.test_llm_egress_cli import run_cli

from admitdx.contracts import INSTANCES_FILE, PREDICTIONS_FILE, Instance, Reference
from admitdx.errors import UsageError
from admitdx.executors import LocalExecutor, parse_endpoints
from admitdx.jsonl import read_jsonl, write_jsonl
from admitdx.llm.client import ChatRequest, LLMCallError, LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.llm.fault_server import FaultServer
from admitdx.systems.config import SystemChoice
from admitdx.systems.runner import run_predictions

ray = pytest.importorskip("ray", reason="the Ray executor needs the ray extra: pip install 'admitdx[ray]'")

from admitdx.executors.ray_executor import RayExecutor  # noqa: E402  (needs ray)

N_TEST = 24


@pytest.fixture(scope="module", autouse=True)
def ray_instance() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _digest(text: str) -> str:
    return "answer " + hashlib.sha256(text.encode()).hexdigest()[:12]


def _dataset(directory: Path) -> Path:
    instances = [Instance("tr0", 0, "earlydx", "train", {}, "cough", [Reference("Pneumonia")])]
    instances += [
        Instance(f"te{i:02d}", 100 + i, "earlydx", "test", {}, f"Chief complaint: complaint {i}",
                 [Reference("Sepsis")])
        for i in range(N_TEST)
    ]  # fmt: skip
    directory.mkdir(parents=True, exist_ok=True)
    write_jsonl(directory / INSTANCES_FILE, (i.to_dict() for i in instances))
    return directory


def _requests(n: int) -> list[ChatRequest]:
    return [ChatRequest([{"role": "user", "content": f"question {i}"}]) for i in range(n)]


def _endpoints(servers: list[FaultServer], concurrency: int = 4) -> list:
    urls = [s.base_url for s in servers]
    return parse_endpoints(urls, base_url=urls[0], concurrency=concurrency, allow_hosts=[], proxy=None)


def _client(url: str, **options: object) -> LLMClient:
    return LLMClient(LLMConfig(base_url=url, cache_path=None, **options))  # type: ignore[arg-type]


def _predict(dataset: Path, out: Path, options: dict) -> dict:
    choice = SystemChoice("fake", "llm", options)
    run_predictions(dataset, choice, out, show_progress=False)
    return json.loads((out / "manifest.json").read_text())


def _items(out: Path) -> dict[str, list[str]]:
    rows = list(read_jsonl(out / PREDICTIONS_FILE))
    ids = [r["instance_id"] for r in rows]
    assert len(ids) == len(set(ids)) == N_TEST  # exactly once
    return {r["instance_id"]: [item["text"] for item in r["items"]] for r in rows}


def test_ray_predicts_what_local_predicts_with_the_same_manifest_and_a_rerun_makes_no_calls(
    tmp_path: Path,
) -> None:
    dataset = _dataset(tmp_path / "ds")
    with FaultServer(latency_s=0.02) as a, FaultServer(latency_s=0.02) as b:
        base = {"base_url": a.base_url, "concurrency": 4, "prompt_file": None}
        local = _predict(dataset, tmp_path / "local", {**base, "cache_path": str(tmp_path / "local.sqlite")})
        executor = RayExecutor(workers=2, shard_size=3)
        try:
            on_ray = {**base, "cache_path": str(tmp_path / "ray.sqlite"), "executor": executor}
            first = _predict(dataset, tmp_path / "ray", on_ray)
            calls = a.counts["requests"] + b.counts["requests"]
            assert calls == 2 * N_TEST  # the local run, then the Ray run (its own cache)
            rerun = _predict(dataset, tmp_path / "ray-again", on_ray)
            assert a.counts["requests"] + b.counts["requests"] == calls  # the rerun asked no server anything
            spread = _predict(dataset, tmp_path / "two", {**on_ray, "endpoints": [a.base_url, b.base_url]})
        finally:
            executor.close()
    expected = {f"te{i:02d}": [_digest(f"Chief complaint: complaint {i}")] for i in range(N_TEST)}
    # every instance got exactly its own answer, the same as the local executor's
    assert _items(tmp_path / "local") == _items(tmp_path / "ray") == _items(tmp_path / "two") == expected
    assert local["inputs"] == first["inputs"]  # same manifest: a local run resumes a Ray run and back
    assert first["outputs"]["fit"]["model_calls"] == N_TEST
    assert rerun["outputs"]["fit"]["model_calls"] == 0 and rerun["outputs"]["fit"]["cache_hits"] == N_TEST
    assert spread["outputs"]["fit"]["cache_hits"] == N_TEST  # the endpoint list is not in the cache key
    [counts] = first["outputs"]["fit"]["executor"]["endpoints"]
    assert counts == {"url": a.base_url, "concurrency": 4, "requests": N_TEST, "successes": N_TEST,
                      "failures": 0, "retries": 0, "failed_shards": 0, "drained": None}  # fmt: skip
    # cache_only reproduces the Ray run with the local executor
    cached = {**base, "cache_path": str(tmp_path / "ray.sqlite"), "cache_only": True}
    _predict(dataset, tmp_path / "replay", cached)
    assert _items(tmp_path / "replay") == expected


def test_workers_killed_mid_shard_are_replaced_and_their_shards_redone_exactly_once() -> None:
    requests = _requests(24)
    with FaultServer(latency_s=0.02) as fast, FaultServer(latency_s=1.5) as slow:
        executor = RayExecutor(workers=2, shard_size=4)
        client = _client(fast.base_url, concurrency=4)
        try:
            stream = executor.map(client, requests, _endpoints([fast, slow]))
            got = [next(stream)]  # a fast shard is back; the slow one is mid-request on the other worker
            ray.kill(executor.workers[0])
            os.kill(ray.get(executor.workers[1].pid.remote(), timeout=30), signal.SIGKILL)
            got += list(stream)
        finally:
            executor.close()
    indices = [i for i, _ in got]
    assert sorted(indices) == list(range(24))  # nothing lost, nothing twice
    for i, completion in got:
        assert completion.parsed == {"diagnoses": [_digest(f"question {i}")]}
    summary = executor.summary()["executor"]
    assert summary["worker_restarts"] >= 2
    assert sum(e["successes"] for e in summary["endpoints"]) == 24
    # the killed shards were sent twice: counted as failures on their endpoint, then as successes
    assert sum(e["failures"] for e in summary["endpoints"]) >= 2
    assert all(e["requests"] == e["successes"] + e["failures"] for e in summary["endpoints"])
    assert client.stats.model_calls == 24


def test_a_failing_endpoint_is_drained_and_its_requests_answered_elsewhere() -> None:
    requests = _requests(16)
    with FaultServer(fault_rate=1.0, faults=("500",)) as broken, FaultServer(latency_s=0.02) as good:
        executor = RayExecutor(workers=2, shard_size=4)
        client = _client(
            broken.base_url, concurrency=4, retries=1, backoff_initial_s=0.01, backoff_max_s=0.02
        )
        try:
            got = dict(executor.map(client, requests, _endpoints([broken, good])))
            summary = executor.summary()["executor"]["endpoints"]
            with pytest.raises(LLMCallError, match="every endpoint failed"):
                list(executor.map(client, requests, _endpoints([broken])))
        finally:
            executor.close()
    assert sorted(got) == list(range(16))
    assert all(got[i].parsed == {"diagnoses": [_digest(f"question {i}")]} for i in got)
    by_url = {e["url"]: e for e in summary}
    bad, ok = by_url[broken.base_url], by_url[good.base_url]
    assert bad["successes"] == 0 and bad["failures"] == bad["requests"] >= 1 and bad["failed_shards"] >= 1
    assert "HTTP 500" in bad["drained"] and bad["retries"] >= 1  # tried with its retry before draining
    assert ok["successes"] == ok["requests"] == 16 and ok["failures"] == 0 and ok["drained"] is None
    assert broken.counts["500"] >= 2


def test_a_non_loopback_endpoint_without_attestation_is_refused_before_any_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = _dataset(tmp_path / "ds")
    with FaultServer() as loopback:
        endpoints = [loopback.base_url, "http://10.20.30.40:8000/v1"]
        config = tmp_path / "run.yaml"
        config.write_text(yaml.safe_dump({"systems": {"fake": {"kind": "llm", "endpoints": endpoints}}}))
        args = ["predict", "--dataset", str(dataset), "--system", "fake", "--out", str(tmp_path / "out")]
        code, text = run_cli([*args, "--config", str(config), "--executor", "ray"], capsys, monkeypatch)
        assert sum(loopback.counts.values()) == 0
    assert code == 2
    assert "refusing to send patient data to 10.20.30.40" in text and "attestation" in text


def test_an_unreachable_cluster_address_is_exit_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = _dataset(tmp_path / "ds")
    args = ["predict", "--dataset", str(dataset), "--system", "llm", "--out", str(tmp_path / "out")]
    code, text = run_cli([*args, "--executor", "ray", "--ray-address", "127.0.0.1:1"], capsys, monkeypatch)
    assert code == 2 and "the Ray cluster at 127.0.0.1:1 is unreachable" in text


def test_without_ray_installed_the_error_says_how_to_install_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    dataset = _dataset(tmp_path / "ds")
    args = ["predict", "--dataset", str(dataset), "--system", "llm", "--out", str(tmp_path / "out")]
    code, text = run_cli([*args, "--executor", "ray"], capsys, monkeypatch)
    assert code == 2 and "pip install 'admitdx[ray]'" in text


def test_a_ray_run_stopped_early_resumes_with_only_the_rest(tmp_path: Path) -> None:
    """A trial of 10 then the full split: the second run predicts the other 14, each exactly once."""
    dataset = _dataset(tmp_path / "ds")
    out = tmp_path / "ray"
    with FaultServer(latency_s=0.02) as server:
        executor = RayExecutor(workers=2, shard_size=3)
        options = {
            "base_url": server.base_url,
            "cache_path": str(tmp_path / "c.sqlite"),
            "executor": executor,
        }
        try:
            stream = executor.map(_client(server.base_url), _requests(12), _endpoints([server]))
            next(stream)
            stream.close()  # what Ctrl-C does to the system's loop: shards in flight are cancelled
            run_predictions(dataset, SystemChoice("fake", "llm", options), out, limit=10, show_progress=False)
            manifest = _predict(dataset, out, options)
        finally:
            executor.close()
    assert len(_items(out)) == N_TEST
    assert manifest["outputs"]["fit"]["model_calls"] == N_TEST - 10


def _verdict(body: dict) -> str:
    """An auditor's answer that depends on the label, so a mixed-up answer would show."""
    last = body["messages"][-1]["content"]
    tag = hashlib.sha256(last.encode()).hexdigest()
    return json.dumps(
        {"evidence_class": "supported" if int(tag, 16) % 2 else "unsupported", "quote": tag[:8]}
    )


def test_audit_on_ray_over_two_endpoints_writes_what_the_local_audit_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = _dataset(tmp_path / "ds")
    with FaultServer(answer=_verdict) as a, FaultServer(answer=_verdict) as b:
        systems = {
            "one": {"kind": "llm", "base_url": a.base_url},
            "two": {"kind": "llm", "base_url": a.base_url, "endpoints": [a.base_url, b.base_url]},
        }
        config = tmp_path / "run.yaml"
        config.write_text(yaml.safe_dump({"systems": systems}))

        def audit(system: str, out: str, cache: str, *executor: str) -> int:
            args = ["audit", "--dataset", str(dataset), "--system", system, "--out", str(tmp_path / out)]
            args += ["--config", str(config), "--set", f"cache_path={tmp_path / cache}", *executor]
            return run_cli(args, capsys, monkeypatch)[0]

        assert audit("one", "local", "local.sqlite") == 0
        local_calls = a.counts["requests"]
        on_ray = ("--executor", "ray", "--ray-shard-size", "2")
        assert audit("two", "ray", "ray.sqlite", *on_ray) == 0
        calls = (a.counts["requests"] - local_calls, b.counts["requests"])
        assert audit("two", "ray-again", "ray.sqlite", *on_ray) == 0
        assert (a.counts["requests"] - local_calls, b.counts["requests"]) == calls  # the rerun asked nobody
    assert local_calls == N_TEST + 1
    assert calls[0] > 0 and calls[1] > 0 and sum(calls) == N_TEST + 1  # spread, each label once

    def verdicts(out: str) -> dict:
        rows = list(read_jsonl(tmp_path / out / "audit.jsonl"))
        assert len(rows) == N_TEST + 1
        return {(r["instance_id"], r["ref_index"]): (r["evidence_class"], r["quote"]) for r in rows}

    assert verdicts("local") == verdicts("ray") == verdicts("ray-again")
    assert {v for v, _ in verdicts("ray").values()} == {"supported", "unsupported"}
    manifest = json.loads((tmp_path / "ray" / "manifest.json").read_text())
    assert [e["host"] for e in manifest["inputs"]["auditor"]["endpoints_egress"]] == ["127.0.0.1"] * 2
    endpoints = manifest["outputs"]["calls"]["executor"]["endpoints"]
    assert [(e["requests"], e["successes"], e["failures"]) for e in endpoints] == [(c, c, 0) for c in calls]
    assert manifest["outputs"]["calls"]["model_calls"] == N_TEST + 1
    again = json.loads((tmp_path / "ray-again" / "manifest.json").read_text())["outputs"]["calls"]
    assert again["cache_hits"] == N_TEST + 1 and {e["requests"] for e in again["executor"]["endpoints"]} == {
        0
    }


def _pairs(body: dict) -> str:
    return json.dumps({"pairs": [{"prediction": 1, "reference": 1}]})


def test_llm_judge_on_ray_over_two_endpoints_matches_what_the_local_judge_matches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset, predictions = _dataset(tmp_path / "ds"), tmp_path / "pred"
    with FaultServer() as model, FaultServer(answer=_pairs) as a, FaultServer(answer=_pairs) as b:
        _predict(dataset, predictions, {"base_url": model.base_url, "cache_path": None})

        def judge(name: str, *more: str, **params: object) -> int:
            config = tmp_path / f"{name}.yaml"
            llm = {"base_url": a.base_url, "cache_path": str(tmp_path / f"{name}.sqlite")}
            config.write_text(yaml.safe_dump({"llm": llm, **params}))
            args = ["match", "--dataset", str(dataset), "--predictions", str(predictions)]
            args += ["--matcher", "llm_judge", "--config", str(config), "--name", name, *more]
            return run_cli(args, capsys, monkeypatch)[0]

        assert judge("local") == 0
        on_ray = ("--executor", "ray", "--ray-shard-size", "2")
        assert judge("ray", *on_ray, endpoints=[a.base_url, b.base_url]) == 0
        assert a.counts["requests"] > N_TEST and b.counts["requests"] > 0  # both endpoints judged
        assert a.counts["requests"] + b.counts["requests"] == 2 * N_TEST
        code, text = run_cli(["match", "--dataset", str(dataset), "--predictions", str(predictions),
                              "--matcher", "exact", "--executor", "ray"], capsys, monkeypatch)  # fmt: skip
    assert code == 2 and "leave out --executor" in text

    def pairs(name: str) -> dict:
        rows = list(read_jsonl(predictions / "matches" / f"{name}.jsonl"))
        assert len(rows) == N_TEST
        return {r["instance_id"]: r["pairs"] for r in rows}

    assert pairs("local") == pairs("ray")
    assert set(map(str, pairs("ray").values())) == {"[[0, 0]]"}  # the judge's 1-based pair, 0-based
    summary = json.loads((predictions / "matches" / "ray.summary.json").read_text())
    by_url = {e["url"]: e["successes"] for e in summary["executor"]["endpoints"]}
    assert by_url == {a.base_url: a.counts["requests"] - N_TEST, b.base_url: b.counts["requests"]}


def test_a_driver_killed_mid_run_resumes_on_the_cluster_it_joined(tmp_path: Path) -> None:
    """`predict --executor ray --ray-address HOST:PORT` joins this module's Ray instance as a second
    driver; kill -9 of that driver mid-run, then the same command finishes each instance exactly once."""
    dataset, out = _dataset(tmp_path / "ds"), tmp_path / "out"
    address = ray.get_runtime_context().gcs_address
    with FaultServer(latency_s=0.3) as server:
        system = {
            "kind": "llm",
            "base_url": server.base_url,
            "concurrency": 2,
            "cache_path": str(tmp_path / "c"),
        }
        config = tmp_path / "run.yaml"
        config.write_text(yaml.safe_dump({"systems": {"fake": system}}))
        cli = predict_command(dataset, "fake", out, config, "--executor", "ray", "--ray-address", address)
        cli += ["--ray-workers", "1", "--ray-shard-size", "2"]
        driver = subprocess.Popen(cli, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while _lines(out / PREDICTIONS_FILE) < 4 and driver.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        driver.kill()
        driver.wait(30)
        kept = _lines(out / PREDICTIONS_FILE)
        rerun = subprocess.run(cli, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert 4 <= kept < N_TEST  # killed mid-run, with finished predictions on disk
    assert _items(out) == {f"te{i:02d}": [_digest(f"Chief complaint: complaint {i}")] for i in range(N_TEST)}
    fit = json.loads((out / "manifest.json").read_text())["outputs"]["fit"]
    assert fit["model_calls"] + fit["cache_hits"] == N_TEST - kept  # the rerun asked only for the rest


def predict_command(dataset: Path, system: str, out: Path, config: Path, *more: str) -> list[str]:
    """``admitdx predict`` as a command line for a separate process (a driver a test can kill)."""
    cli = [sys.executable, "-c", "from admitdx.cli import main; main()", "predict", "--dataset", str(dataset)]
    return [*cli, "--system", system, "--out", str(out), "--config", str(config), *more]


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_the_driver_holds_a_bounded_window_of_requests_and_answers_each_once() -> None:
    """Requests are pulled from a generator only while fewer than the window (2 × all slots + shard)
    are unanswered: a 243k-label audit holds a few hundred prompts, not all of them."""
    pulled = 0

    def produce(n: int) -> Iterator[ChatRequest]:
        nonlocal pulled
        for request in _requests(n):
            pulled += 1
            yield request

    with FaultServer() as a, FaultServer() as b:
        executor = RayExecutor(workers=2, shard_size=2)
        try:
            ahead, got = 0, []
            for i, completion in executor.map(_client(a.base_url), produce(200), _endpoints([a, b])):
                got.append((i, completion.parsed))
                ahead = max(ahead, pulled - len(got))
        finally:
            executor.close()
    window = 2 * (4 + 4) + 2
    assert sorted(i for i, _ in got) == list(range(200)) and len(got) == 200
    assert all(parsed == {"diagnoses": [_digest(f"question {i}")]} for i, parsed in got)
    assert ahead <= window and executor.peak_held == window  # filled to the window, never past it
    assert a.counts["requests"] + b.counts["requests"] == 200


def test_the_local_executor_refuses_endpoints_it_would_not_call() -> None:
    with FaultServer() as a, FaultServer() as b:
        client = _client(a.base_url)
        for listed in ([b], [a, b]):
            with pytest.raises(UsageError, match="the local executor calls only base_url"):
                list(LocalExecutor().map(client, _requests(2), _endpoints(listed)))
        assert [i for i, _ in LocalExecutor().map(client, _requests(2), _endpoints([a]))] in ([0, 1], [1, 0])
        assert a.counts["requests"] == 2 and b.counts["requests"] == 0
