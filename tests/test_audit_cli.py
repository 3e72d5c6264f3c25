"""`admitdx audit` / `rationale` / `serve-local` from the command line: help, a rules run, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from admitdx.cli.options import parse_key_values
from admitdx.contracts import INSTANCES_FILE, Instance, Reference
from admitdx.errors import UsageError
from admitdx.jsonl import write_jsonl


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from admitdx.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def _flat(text: str) -> str:
    """Rich wraps long lines at the terminal width; compare with whitespace collapsed."""
    return " ".join(text.split())


@pytest.fixture()
def dataset(tmp_path: Path) -> Path:
    refs = [Reference("Acute kidney failure, unspecified", code="N179")]
    rows = [
        Instance(
            "e1", 1, "earlydx", "train", {"labs": "Creatinine 3.1 mg/dL [0.5-1.2]*"}, "Creatinine 3.1", refs
        ),
        Instance("e2", 2, "earlydx", "train", {"labs": "Creatinine 0.9 mg/dL"}, "Creatinine 0.9", refs),
    ]
    write_jsonl(tmp_path / "ds" / INSTANCES_FILE, (r.to_dict() for r in rows))
    return tmp_path / "ds"


@pytest.mark.parametrize("verb", ["audit", "rationale", "serve-local"])
def test_help_ends_with_an_example(verb: str) -> None:
    result = _cli(verb, "--help")
    assert result.returncode == 0
    assert f"Example: admitdx {verb}" in " ".join(result.stdout.split())


def test_rules_audit_from_the_command_line(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "audited"
    result = _cli("audit", "--dataset", str(dataset), "--system", "rules", "--out", str(out))
    assert result.returncode == 0, result.stderr
    summary = _flat(result.stderr)  # a table: class, count, share (issue 23)
    assert "supported 1 50 % partial 0 0 % unsupported 1 50 % unparseable 0 0 %" in summary, summary
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["outputs"]["complete"] is True and manifest["inputs"]["auditor"]["auditor"] == "rules"


def test_errors_say_what_to_do(dataset: Path, tmp_path: Path) -> None:
    unknown = _cli("audit", "--dataset", str(dataset), "--system", "gpt-x", "--out", str(tmp_path / "o"))
    assert unknown.returncode == 2 and "no LLM system named 'gpt-x'" in _flat(unknown.stderr)
    assert "Traceback" not in unknown.stderr
    unaudited = _cli(
        "rationale", "--dataset", str(dataset), "--system", "local", "--out", str(tmp_path / "r")
    )
    assert unaudited.returncode == 2 and "is not audited" in _flat(unaudited.stderr)
    config = tmp_path / "run.yaml"
    config.write_text("systems:\n  remote: {kind: llm, base_url: 'https://api.example.org/v1', model: m}\n")
    refused = _cli("audit", "--dataset", str(dataset), "--system", "remote", "--config", str(config),
                   "--out", str(tmp_path / "o2"))  # fmt: skip
    assert refused.returncode == 2 and "refusing to send patient data to api.example.org" in _flat(
        refused.stderr
    )


def test_set_overrides_the_config_and_is_typed(dataset: Path, tmp_path: Path) -> None:
    assert parse_key_values(["temperature=0.2", "model=qwen", "seed=", "cache_only=true"]) == {
        "temperature": 0.2, "model": "qwen", "seed": None, "cache_only": True,
    }  # fmt: skip
    with pytest.raises(UsageError, match="KEY=VALUE"):
        parse_key_values(["temperature"])
    config = tmp_path / "run.yaml"
    config.write_text("systems:\n  mine: {kind: llm, base_url: 'http://127.0.0.1:9/v1', prompt: cot}\n")
    elsewhere = "base_url=https://elsewhere.example.org/v1"
    moved = _cli("audit", "--dataset", str(dataset), "--system", "mine", "--config", str(config),
                 "--set", elsewhere, "--out", str(tmp_path / "o"))  # fmt: skip
    assert moved.returncode == 2 and "refusing to send patient data to elsewhere.example.org" in _flat(
        moved.stderr
    )
