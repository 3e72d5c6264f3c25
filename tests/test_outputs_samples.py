"""Sample logs: `admitdx predict` with the llm system writes samples.jsonl (the exact prompt
messages, raw output, parsed items, timing) beside predictions.jsonl, and `admitdx score
--log-samples` writes samples.jsonl with reference and prediction texts, matched pairs as text and
per-instance metrics."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

import scoring_data as sd
from admitdx.cli import app
from admitdx.contracts import INSTANCES_FILE, Instance, Reference
from admitdx.jsonl import read_jsonl, write_jsonl
from admitdx.llm.fault_server import FaultServer


def run_cli(*args: object) -> object:
    return CliRunner().invoke(app, [str(a) for a in args])


def test_predict_logs_each_request_and_answer(tmp_path: Path) -> None:
    from admitdx.systems.llm import LLMPredictor
    from admitdx.tasks.registry import get_task

    instances = [
        Instance(f"te{i}", 100 + i, "earlydx", "test", {"chief_complaint": f"complaint {i}"},
                 f"Chief complaint: complaint {i}", [Reference("Sepsis")])
        for i in range(6)
    ]  # fmt: skip
    instances.append(Instance("tr0", 1, "earlydx", "train", {}, "cough", [Reference("Pneumonia")]))
    (tmp_path / "ds").mkdir()
    write_jsonl(tmp_path / "ds" / INSTANCES_FILE, (i.to_dict() for i in instances))
    out = tmp_path / "pred"
    with FaultServer(latency_s=0.02) as server:
        config = tmp_path / "run.yaml"
        system = {"kind": "llm", "base_url": server.base_url, "cache_path": str(tmp_path / "cache.sqlite")}
        config.write_text(yaml.safe_dump({"systems": {"fake": system}}))
        result = run_cli(
            "predict", "--dataset", tmp_path / "ds", "--system", "fake", "--out", out, "--config", config
        )
        assert result.exit_code == 0, result.output
    samples = {s["instance_id"]: s for s in read_jsonl(out / "samples.jsonl")}
    predictions = {p["instance_id"]: p for p in read_jsonl(out / "predictions.jsonl")}
    assert set(samples) == set(predictions) == {f"te{i}" for i in range(6)}
    llm = LLMPredictor(task=get_task("earlydx"), base_url="http://127.0.0.1:9/v1", model="m")
    for inst in instances[:6]:
        s = samples[inst.id]
        assert s["messages"] == llm.request(inst).messages  # the exact messages sent
        assert s["prompt"]["name"] == "predict.v1" and len(s["prompt"]["sha256"]) == 64
        expected = "answer " + hashlib.sha256(inst.text.encode()).hexdigest()[:12]
        assert expected in s["raw"] and s["raw"] == predictions[inst.id]["raw"]
        assert [item["text"] for item in s["items"]] == [expected]
        assert s["parse_error"] is None and s["latency_s"] > 0 and s["cached"] is False


def test_score_log_samples_writes_texts_pairs_and_metrics(tmp_path: Path) -> None:
    insts = sd.instances()
    ds = sd.write_dataset(tmp_path / "ds", insts)
    noisy = sd.write_system(tmp_path, "noisy", insts, lambda i: [("Sepsis", None), *sd.oracle(None)(i)[:1]])
    result = run_cli(
        "score", "--dataset", ds, "--predictions", noisy, "--matcher", "exact", "--out", tmp_path / "run",
        "--n-bootstrap", "20", "--log-samples",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    samples = list(read_jsonl(tmp_path / "run" / "samples.jsonl"))
    test = [i for i in insts if i.split == "test"]
    assert [s["instance_id"] for s in samples] == [i.id for i in test]
    first = next(s for s in samples if s["instance_id"] == "e1")
    e1 = next(i for i in test if i.id == "e1")
    assert first["references"] == [r.text for r in e1.references] == ["NSTEMI", "Hypertension"]
    assert first["predictions"] == ["Sepsis", "NSTEMI"]
    assert first["matched"] == [["NSTEMI", "NSTEMI"]]  # exact matching pairs the shared text only
    assert first["metrics"]["all.tp"] == 1 and first["metrics"]["n_references"] == 2
    per_instance = [json.loads(x) for x in (tmp_path / "run" / "per_instance.jsonl").read_text().splitlines()]
    assert len(per_instance) == len(samples)
