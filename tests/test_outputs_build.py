"""`admitdx build` on the real MIMIC-IV demo: what it says about the split's size and the sections
that are always empty, and the built folder loading with Hugging Face `datasets` by its splits."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.tasks.build_notes import absent_sections_note, split_size_warning


def _build(demo_dir: Path, out: Path, *args: str) -> str:
    result = CliRunner().invoke(app, ["build", "earlydx", "--mimic", str(demo_dir), "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def _split_sizes(out: Path) -> dict[str, tuple[int, int]]:
    rows = [json.loads(line) for line in (out / "instances.jsonl").read_text(encoding="utf-8").splitlines()]
    encounters = Counter(r["split"] for r in rows)
    patients = {s: len({r["subject_id"] for r in rows if r["split"] == s}) for s in encounters}
    return {s: (encounters[s], patients[s]) for s in encounters}


@pytest.fixture(scope="module")
def small(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("build") / "earlydx"
    return out, _build(demo_dir, out)


def test_build_warns_about_a_small_test_split_and_names_empty_sections(small: tuple[Path, str]) -> None:
    out, output = small
    encounters, patients = _split_sizes(out)["test"]
    assert encounters < 100  # the default fraction on the 100-patient demo
    assert f"the test split has {encounters} encounters from {patients} patients, too few" in output
    absent = json.loads((out / "manifest.json").read_text())["outputs"]["sections_absent_source"]
    assert "ecg" in absent  # the open demo ships no ECG module
    assert f"source module is absent from this MIMIC root: {', '.join(absent)}" in output


def test_the_warning_needs_both_encounters_and_patients() -> None:
    """The open demo has too few patients for a split past the minimum, so the boundary is tested
    on the function itself: 100 encounters from 60 patients is the smallest quiet split."""
    assert split_size_warning(100, 60) is None and split_size_warning(5000, 900) is None
    assert "99 encounters from 60 patients" in (split_size_warning(99, 60) or "")
    assert "100 encounters from 59 patients" in (split_size_warning(100, 59) or "")
    assert absent_sections_note(()) is None


def test_built_dataset_loads_with_hugging_face_datasets_by_split(
    small: tuple[Path, str], tmp_path: Path
) -> None:
    datasets = pytest.importorskip("datasets")
    out, _ = small
    (out / "audit.jsonl").write_text('{"not": "an instance"}\n')  # a stage's file must not be read as data
    loaded = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    sizes = _split_sizes(out)
    assert isinstance(loaded, datasets.DatasetDict)
    assert {s: loaded[s].num_rows for s in loaded} == {s: n for s, (n, _) in sizes.items()}
    jsonl = [json.loads(line) for line in (out / "instances.jsonl").read_text(encoding="utf-8").splitlines()]
    assert loaded["test"]["id"] == [r["id"] for r in jsonl if r["split"] == "test"]
    assert loaded["test"].features["t0"].dtype.startswith("timestamp")
    first = next(r for r in jsonl if r["split"] == "train")
    assert loaded["train"][0]["t0"].isoformat(sep=" ") == first["t0"]
    card = (out / "README.md").read_text()
    assert "path: data/train.parquet" in card and "MIMIC-derived text" in card
