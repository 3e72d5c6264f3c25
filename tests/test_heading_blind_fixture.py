"""Issue 29's blind heading fixture, planted into notes: no leak, no false cut.

``tests/data/blind/headings/headings_blind.jsonl`` was written by a helper who had not read the
cutters (its README). Every row is planted by ``bench/bench_heading_fixture.py`` into every host
note at every place its role allows; the held-out file is measured there only, never tested here.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
FIXTURE = ROOT / "tests" / "data" / "blind" / "headings" / "headings_blind.jsonl"
_spec = importlib.util.spec_from_file_location(
    "bench_heading_fixture", ROOT / "bench" / "bench_heading_fixture.py"
)
assert _spec and _spec.loader
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)
ROWS = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("task", ["clinibench", "erreason"])
def test_no_blind_row_leaks_or_is_cut(task: str) -> None:
    result = bench.measure(ROWS, task)
    assert result["rows"] >= 100 and result["plantings"] > result["rows"]
    assert result["leaking_rows"] == [] and result["leaked_plantings"] == 0
    assert result["cut_rows"] == [] and result["false_cut_plantings"] == 0
    assert result["inputs_with_gold"] == 0
    lost, total = (int(x) for x in str(result["admission_chars_lost"]).split()[0].split("/"))
    assert total > 0 and lost <= 0.05 * total


def test_a_leaking_reader_is_caught_by_the_measure(monkeypatch: pytest.MonkeyPatch) -> None:
    """The measure itself can fail: a reader that shows the whole note leaks every withhold row."""
    monkeypatch.setattr(bench, "presentation", lambda note: note)
    result = bench.measure(ROWS, "erreason")
    assert result["leaked_plantings"] > 0 and result["inputs_with_gold"] > 0
