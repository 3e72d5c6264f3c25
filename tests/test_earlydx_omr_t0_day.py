"""OMR values dated on the day of t0 (issue 29): OMR has day resolution, so such a value may have
been measured after t0. The paper's rule keeps it (§3.2 v, the default); the build counts them,
and ``omr_cutoff_day="drop"`` leaves them out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx
from earlydx_roots import base_tables, write_root
from test_earlydx_authors_text import _omr

COUNTS = ("omr_values_on_t0_day", "omr_encounters_on_t0_day", "omr_encounters_on_t0_day_t0_before_6am")


def _tables(t0: str = "2150-01-01 12:00:00") -> dict[str, list[dict[str, Any]]]:
    t = base_tables()
    t["hosp.admissions"][0]["admittime"] = t0
    t["hosp.omr"] = [
        _omr("2149-12-01", "Blood Pressure", "140/90"),
        _omr("2149-12-01", "Weight (Lbs)", "170"),
        _omr("2150-01-01", "Weight (Lbs)", "180"),  # t0's day: may follow t0
        _omr("2150-01-01", "BMI (kg/m2)", "27.1"),  # t0's day, the only BMI
        _omr("2150-01-02", "Blood Pressure", "150/95"),  # after t0's day: never shown
    ]
    return t


def _build(
    tmp_path: Path, tables: dict[str, list[dict[str, Any]]], **params: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    root = write_root(tmp_path / "mimic", tables)
    out = tmp_path / f"out-{len(list(tmp_path.iterdir()))}"
    outputs = build_earlydx(root, out, EarlyDxParams(**params))
    (line,) = (out / "instances.jsonl").read_text().splitlines()
    return json.loads(line), outputs["counts"]


@pytest.mark.parametrize("same_day", ["seq_num", "source", "pandas"])
def test_t0_day_values_are_kept_and_counted_by_default(tmp_path: Path, same_day: str) -> None:
    inst, counts = _build(tmp_path, _tables(), omr_same_day=same_day)
    assert inst["sections"]["omr"] == "BP 140/90, Wt 180 lb, BMI 27.1"
    assert [counts[k] for k in COUNTS] == [2, 1, 0]


def test_drop_leaves_the_t0_day_out(tmp_path: Path) -> None:
    inst, counts = _build(tmp_path, _tables(), omr_cutoff_day="drop")
    assert inst["sections"]["omr"] == "BP 140/90, Wt 170 lb"  # the earlier weight, no BMI
    assert [counts[k] for k in COUNTS] == [0, 0, 0]


def test_an_early_morning_t0_is_counted_apart(tmp_path: Path) -> None:
    tables = _tables(t0="2150-01-01 05:10:00")
    tables["hosp.admissions"][0]["edregtime"] = "2150-01-01 03:00:00"
    tables["ed.edstays"][0]["intime"] = "2150-01-01 03:00:00"
    _, counts = _build(tmp_path, tables)
    assert [counts[k] for k in COUNTS] == [2, 1, 1]


def test_a_dropped_omr_section_counts_nothing(tmp_path: Path) -> None:
    inst, counts = _build(tmp_path, _tables(), drop_sections=("omr",))
    assert inst["sections"]["omr"] is None
    assert [counts[k] for k in COUNTS] == [0, 0, 0]
