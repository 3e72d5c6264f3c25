"""The scoring stage's fast paths give the careful paths' bytes, numbers and errors: JSONL written by
orjson where that is byte-identical, files read in one pass with the careful reader behind it,
prediction and match lines checked without dataclasses, and the bootstrap's reorganised sums."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from admitdx.contracts import Match, Prediction, PredictionItem
from admitdx.errors import InputError
from admitdx.jsonl import dumps, read_jsonl, read_jsonl_numbered, write_jsonl
from admitdx.metrics import bootstrap
from admitdx.scoring.inputs import load_system, require_matches


def _careful_bytes(records: list[dict]) -> bytes:
    return "".join(dumps(r) + "\n" for r in records).encode("utf-8")


def test_written_lines_are_json_dumps_bytes_for_floats_of_every_magnitude(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    floats = [
        float(x) * 10.0 ** int(e) for x, e in zip(rng.random(3000), rng.integers(-9, 21, 3000), strict=True)
    ]
    floats += [1e-05, 9.9e-05, 1e-4, 1e16, 1.5e16, 1e22, 5e-324, -0.0, 2 / 3, 10.00001]
    records = [{"id": f"e{k}", "v": v, "pairs": [[k, 0]], "ok": k % 2 == 0} for k, v in enumerate(floats)]
    records += [{"text": 'U+2028 \u2028, control \x1f, quote ", é, 1e5 in a string', "none": None}]
    path = tmp_path / "x.jsonl"
    assert write_jsonl(path, iter(records)) == len(records)  # several chunks, one generator
    assert path.read_bytes() == _careful_bytes(records)
    assert list(read_jsonl(path)) == records


def test_records_orjson_would_write_but_json_refuses_are_still_refused(tmp_path: Path) -> None:
    @dataclass
    class Point:
        x: int

    with pytest.raises(ValueError, match="Out of range float"):
        write_jsonl(tmp_path / "nan.jsonl", [{"v": math.nan}])  # orjson would write null
    with pytest.raises(TypeError, match="not JSON serializable"):
        write_jsonl(tmp_path / "dc.jsonl", [{"v": Point(1)}])  # orjson would write {"x":1}
    odd = [{1: "int key"}, {"big": 2**70}, {"np": np.float64(0.5)}]  # orjson refuses, json writes
    write_jsonl(tmp_path / "odd.jsonl", odd)
    assert (
        tmp_path / "odd.jsonl"
    ).read_bytes() == b'{"1":"int key"}\n{"big":1180591620717411303424}\n{"np":0.5}\n'


def test_files_the_one_pass_reader_declines_are_read_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes('\ufeff{"a":1}\r\n\n  \n{"b":"\u2028"}\n{"c":'.encode())  # BOM, CRLF, blanks, cut tail
    assert list(read_jsonl_numbered(path)) == [(1, {"a": 1}), (4, {"b": "\u2028"})]
    path.write_bytes(b'{"a":1}\n[1]\n')
    with pytest.raises(InputError, match=r"not a JSON object.*row 2"):
        list(read_jsonl(path))
    path.write_bytes(b'{"a":1}\n{"a":1},{"b":2}\n{"c":3}\n')  # two values on one line
    with pytest.raises(InputError, match=r"not JSON.*row 2"):
        list(read_jsonl(path))
    path.write_bytes(b'{"a":"\xff"}\n')
    with pytest.raises(InputError, match=r"not UTF-8.*row 1"):
        list(read_jsonl(path))
    path.write_bytes(b"")
    assert list(read_jsonl(path)) == []


def _system(root: Path, predictions: list[dict], matches: list[dict]) -> Path:
    write_jsonl(root / "predictions.jsonl", predictions)
    write_jsonl(root / "matches" / "exact.jsonl", matches)
    return root


def _pred(i: str, *items: dict, **kw: object) -> dict:
    return {"instance_id": i, "system": "s", "items": list(items), **kw}


def test_prediction_lines_are_kept_as_read_and_become_the_same_dataclasses(tmp_path: Path) -> None:
    lines = [
        _pred("e1", {"text": "Sepsis", "status": "suspected", "extra": 1}, {"text": "AKI", "code": "N179"}),
        {"instance_id": "e2", "system": "s", "parse_error": "bad json", "raw": "{"},  # no items key
        _pred("e9", {"text": "outside the split"}),
    ]
    matches = [Match("e1", "s", "exact", [(1, 0)]).to_dict()]
    system = load_system(_system(tmp_path, lines, matches), "exact", {"e1", "e2", "e3"})
    assert system.name == "s" and system.outside_split == 1 and set(system.records) == {"e1", "e2"}
    assert system.records["e2"]["items"] == [] and system.pairs == {"e1": [[1, 0]]}
    assert system.predictions["e1"] == Prediction(
        "e1", "s", [PredictionItem("Sepsis", status="suspected"), PredictionItem("AKI", code="N179")]
    )
    assert system.predictions["e2"] == Prediction("e2", "s", [], raw="{", parse_error="bad json")
    require_matches(system, ["e1", "e2", "e3"])  # e2 has no items: nothing to match


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ({"system": "s", "items": []}, "no instance_id"),
        ({"instance_id": 3, "system": "s"}, "instance_id is not a string"),
        ({"instance_id": "e2", "items": []}, "no system"),
        ({"instance_id": "e2", "system": "s", "items": None}, "items are not a list"),
        (_pred("e2", {"text": "ok"}, {"label": "no text"}), "item 1 is not an object with a text"),
        (_pred("e1"), "instance e1 has two predictions"),
    ],
)
def test_a_damaged_prediction_line_is_named_by_file_and_line(tmp_path: Path, line: dict, says: str) -> None:
    directory = _system(tmp_path, [_pred("e1"), line], [])
    with pytest.raises(InputError, match=rf"{says}.*predictions\.jsonl, row 2"):
        load_system(directory, "exact", {"e1", "e2"})


@pytest.mark.parametrize(
    "line",
    [
        {"instance_id": "e1", "system": "s", "pairs": [[0, 0]]},  # no matcher
        {"instance_id": "e1", "system": "s", "matcher": "exact", "pairs": [[0, 0, 1]]},
        {"instance_id": "e1", "system": "s", "matcher": "exact", "pairs": [0, 0]},
    ],
)
def test_a_damaged_match_line_is_named_by_file_and_line(tmp_path: Path, line: dict) -> None:
    directory = _system(
        tmp_path, [_pred("e1", {"text": "x"})], [Match("e1", "s", "exact", []).to_dict(), line]
    )
    with pytest.raises(InputError, match=r"not a match.*exact\.jsonl, row 2"):
        load_system(directory, "exact", {"e1"})


def test_bootstrap_sums_are_bit_for_bit_those_of_the_earlier_formulas() -> None:
    rng = np.random.default_rng(3)
    subjects = rng.integers(0, 400, 1500)
    matrix = rng.random((1500, 7)) / 3  # fractions: the order of additions shows in the last bits
    for order in (np.unique(subjects), np.unique(subjects)[::-1], np.arange(-3, 405)):
        rows = {s: i for i, s in enumerate(order.tolist())}
        expected = np.zeros((len(order), 7))
        np.add.at(expected, [rows[s] for s in subjects.tolist()], matrix)
        assert np.array_equal(bootstrap.subject_sums(subjects.tolist(), matrix, order), expected)
    with pytest.raises(KeyError):
        bootstrap.subject_sums([1, 2, 5], np.ones((3, 1)), np.array([1, 2, 3]))

    draws = np.random.default_rng(11).integers(0, 300, size=(200, 300))
    flat = (draws + (np.arange(200) * 300)[:, None]).ravel()
    expected_weights = np.bincount(flat, minlength=200 * 300).reshape(200, 300).astype(np.float64)
    assert np.array_equal(bootstrap.resample_weights(300, 200, 11), expected_weights)
