"""A reasoning model through the whole path: predict (vLLM dialect, thinking in ``reasoning_content``),
match, score, report. The thinking stays in ``samples.jsonl``; a budget spent thinking is counted as
truncated in the "What was scored" card; tokens and cost reach the manifest and the report."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from tests.dialect_servers import THINKING, DialectServer, model_answer
from typer.testing import CliRunner

import scoring_data as sd
from admitdx.cli import app
from admitdx.jsonl import read_jsonl


def _cli(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_reasoning_model_run_keeps_thinking_apart_counts_truncation_and_tokens(tmp_path: Path) -> None:
    ds = sd.write_dataset(tmp_path / "ds", sd.instances())
    with DialectServer("vllm", model="Qwen/Qwen3-8B", thinks=True) as srv:
        llm = {"kind": "llm", "base_url": srv.base_url, "model": "Qwen/Qwen3-8B", "server": "vllm"}
        llm["cache_path"] = str(tmp_path / "llm.sqlite")
        systems = {
            "qwen": {**llm, "price_per_million": {"prompt": 0.5, "completion": 2.0}},
            "qwen-short": {**llm, "max_tokens": 10},  # the budget runs out while thinking
        }
        config = tmp_path / "run.yaml"
        config.write_text(yaml.safe_dump({"systems": systems}))
        said = {
            name: " ".join(
                _cli(
                    "predict", "--dataset", ds, "--system", name, "--config", config, "--out", tmp_path / name
                ).split()
            )
            for name in systems
        }
    preds = list(read_jsonl(tmp_path / "qwen" / "predictions.jsonl"))
    samples = {s["instance_id"]: s for s in read_jsonl(tmp_path / "qwen" / "samples.jsonl")}
    for p in preds:
        prompt = samples[p["instance_id"]]["messages"]
        assert [i["text"] for i in p["items"]] == json.loads(model_answer({"messages": prompt}))["diagnoses"]
        assert "Consider influenza" not in p["raw"] and samples[p["instance_id"]]["reasoning"] == THINKING
    fit = json.loads((tmp_path / "qwen" / "manifest.json").read_text())["outputs"]["fit"]
    n = len(preds)
    assert fit["tokens"] == {
        "answers": n,
        "cached": 0,
        "without_usage": 0,
        "prompt_tokens": 100 * n,
        "completion_tokens": 70 * n,
        "reasoning_tokens": 0,  # vLLM reports none apart
        "price_per_million": {"prompt": 0.5, "completion": 2.0},
        "cost_usd": round((100 * 0.5 + 70 * 2.0) * n / 1e6, 6),
    }
    short = list(read_jsonl(tmp_path / "qwen-short" / "predictions.jsonl"))
    assert all(p["parse_error"].startswith("truncated in thinking") and not p["items"] for p in short)
    assert {s.get("truncated") for s in read_jsonl(tmp_path / "qwen-short" / "samples.jsonl")} == {"thinking"}
    # predict tells truncation apart from parse errors, in its last line and its manifest, as score does
    assert f"in all; 0 unparseable, {len(short)} truncated in thinking →" in said["qwen-short"]
    assert f"in all; 0 unparseable → {tmp_path / 'qwen'}" in said["qwen"]
    short_outputs = json.loads((tmp_path / "qwen-short" / "manifest.json").read_text())["outputs"]
    assert (short_outputs["parse_errors"], short_outputs["truncated_in_thinking"]) == (0, len(short))

    dirs = [tmp_path / "qwen", tmp_path / "qwen-short"]
    _cli("match", "--dataset", ds, "--predictions", *dirs, "--matcher", "exact")
    _cli("score", "--dataset", ds, "--predictions", *dirs, "--matcher", "exact", "--out", tmp_path / "s")
    results = {s["name"]: s for s in json.loads((tmp_path / "s" / "results.json").read_text())["systems"]}
    assert results["qwen-short"]["counts"]["truncated_in_thinking"] == len(short)
    assert results["qwen-short"]["counts"]["parse_errors"] == 0  # truncation is its own outcome
    assert "truncated_in_thinking" not in results["qwen"]["counts"]
    _cli("report", tmp_path / "s")
    html = " ".join((tmp_path / "s" / "report.html").read_text().split())
    assert "<th>truncated in thinking</th>" in html
    spent = f"qwen: {100 * n} prompt and {70 * n} completion tokens (0 of them reasoning) over {n} answers"
    assert spent in html and f"cost {fit['tokens']['cost_usd']:.4f} USD at 0.5 / 2.0 USD per million" in html
