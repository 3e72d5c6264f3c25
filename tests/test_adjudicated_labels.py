"""Second, blind labellings of an adjudicated pair file: read by id, and the majority label."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from admitdx.errors import InputError
from admitdx.matching.adjudicated import majority, read_pairs, read_second_labels

ROOT = Path(__file__).resolve().parents[1]
PAIRS = [
    ("heart attack", "Acute myocardial infarction", "same"),
    ("hyperkalemia", "Hypokalemia", "different"),
    ("CHF", "Congestive heart failure", "same"),
    ("UTI", "Pyelonephritis", "different"),
]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def pair_file(tmp_path: Path) -> Path:
    rows = [
        {"id": f"x-{i}", "prediction": p, "reference": r, "label": lab} for i, (p, r, lab) in enumerate(PAIRS)
    ]
    return _write(tmp_path / "pairs.jsonl", rows)


def test_second_labels_are_read_by_id_in_the_pairs_order(pair_file: Path, tmp_path: Path) -> None:
    pairs = read_pairs(pair_file)
    # written shuffled, with an extra id the measurement left out
    shuffled = [("x-3", "same"), ("x-0", "same"), ("x-9", "same"), ("x-2", "different"), ("x-1", "different")]
    second = _write(tmp_path / "b.jsonl", [{"id": i, "label": lab} for i, lab in shuffled])
    assert read_second_labels(second, pairs) == [True, False, False, True]
    assert majority([p.same for p in pairs], [True, False, False, True], [False, False, False, True]) == [
        True, False, False, True,
    ]  # fmt: skip
    with pytest.raises(ValueError, match="odd"):
        majority([True], [False])


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        ([{"id": "x-0", "label": "same"}], "3 pairs not labelled, the first 'x-1'"),
        ([{"id": "x-0", "label": "same"}, {"id": "x-0", "label": "different"}], "labelled twice"),
        ([{"id": "x-0", "label": "maybe"}], "label must be"),
    ],
)
def test_a_bad_second_labelling_names_what_is_wrong(
    pair_file: Path, tmp_path: Path, rows: list, said: str
) -> None:
    with pytest.raises(InputError, match=said):
        read_second_labels(_write(tmp_path / "b.jsonl", rows), read_pairs(pair_file))


def _labels(path: Path, labels: list[str]) -> Path:
    return _write(path, [{"id": f"x-{i}", "label": lab} for i, lab in enumerate(labels)])


def test_the_bench_scores_against_the_majority_and_unanimous_pairs(pair_file: Path, tmp_path: Path) -> None:
    # labeller b flips pair 1 (hyper/hypo) to same; c agrees with the writer everywhere but pair 2
    b = _labels(tmp_path / "b.jsonl", ["same", "same", "same", "different"])
    c = _labels(tmp_path / "c.jsonl", ["same", "different", "different", "different"])
    bench = [sys.executable, str(ROOT / "bench/bench_matcher_agreement.py"), str(pair_file)]
    run = {"capture_output": True, "text": True, "check": True, "cwd": tmp_path}
    out = subprocess.run([*bench, "--matchers", "exact", "--second-labels", str(b), str(c)], **run).stdout
    assert "majority label: 2 same of 4 (0 differ from the writer's); unanimous on 2" in out
    # exact matches only CHF (spelled out): one of the two majority-same pairs; of the unanimous pairs
    # (0 and 3) it matches none, so precision is 1.0 by convention there and recall 0
    assert out.strip().splitlines()[-1].split() == ["exact", "1.000", "0.500", "1.000", "0.000"]
    with pytest.raises(subprocess.CalledProcessError, match="exit status 2"):
        subprocess.run([*bench, "--second-labels", str(b)], **run)
