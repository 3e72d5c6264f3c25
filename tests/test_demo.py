"""`admitdx demo` end to end (without the local LLM, which tests/test_llm_local_e2e.py covers)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _demo(cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run in ``cwd`` with a relative --out, as `make demo` does."""
    cmd = [sys.executable, "-m", "admitdx.cli", "demo", "--out", "demo", "--patients", "150",
           "--test-fraction", "0.2", "--no-llm"]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=cwd)


def test_demo_writes_a_report_scoring_every_baseline_and_reruns_from_its_outputs(tmp_path: Path) -> None:
    first = _demo(tmp_path)
    assert first.returncode == 0, first.stderr
    results = json.loads((tmp_path / "demo" / "report" / "results.json").read_text())
    systems = [s["name"] for s in results["systems"]]
    assert systems == ["frequency", "knn-bm25", "extraction", "tfidf"]
    assert "evidence audit (rule-based)" in first.stderr and "skipping the local LLM" in first.stderr
    table = first.stderr[first.stderr.rindex("implicit R") :]  # the headline table printed at the end
    tfidf_row = next(line for line in table.splitlines() if line.strip().startswith("tfidf "))
    f1 = results["systems"][3]["metrics"][f"{results['primary_track']}.micro_f1"]["value"]
    assert f"{f1:.3f}" in tfidf_row  # the terminal table shows the scored value
    html = (tmp_path / "demo" / "report" / "report.html").read_text()
    assert "<svg" in html and "knn-bm25" in html
    predictions = (tmp_path / "demo" / "predictions" / "tfidf" / "predictions.jsonl").read_text()
    second = _demo(tmp_path)  # every stage resumes from its finished output
    assert second.returncode == 0, second.stderr
    assert (tmp_path / "demo" / "predictions" / "tfidf" / "predictions.jsonl").read_text() == predictions
    assert "fitted" not in second.stderr  # no system was fitted again
