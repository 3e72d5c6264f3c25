"""``admitdx export sft`` and the command-line verbs of the EarlyDx builder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import load_instances

runner = CliRunner()


@pytest.fixture(scope="module")
def cli_build(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "earlydx"
    result = runner.invoke(app, ["build", "earlydx", "--mimic", str(demo_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "172 cohort stays" in result.output and "admission 21%" in result.output
    return out


def test_export_sft_writes_chat_messages_per_split(cli_build: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["export", "sft", "--dataset", str(cli_build), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    instances = {i.id: i for i in load_instances(cli_build)}
    seen = 0
    for split in ("train", "test"):
        for line in (tmp_path / f"{split}.jsonl").read_text().splitlines():
            row = json.loads(line)
            inst = instances[row["id"]]
            assert inst.split == split
            assert [m["role"] for m in row["messages"]] == ["system", "user", "assistant"]
            assert row["messages"][1]["content"].startswith(inst.text)
            assert row["messages"][2]["content"].split("\n") == [r.text for r in inst.references]
            seen += 1
    assert seen == len(instances)


def test_datasets_library_loads_the_parquet_files(cli_build: Path, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    runner.invoke(
        app, ["export", "sft", "--dataset", str(cli_build), "--out", str(tmp_path), "--splits", "train"]
    )
    instances = datasets.load_dataset(
        "parquet",
        data_files={"instances": str(cli_build / "instances.parquet")},
        split="instances",
        cache_dir=str(tmp_path / "hf"),
    )
    expected = load_instances(cli_build)
    assert instances.num_rows == len(expected)
    first = instances[0]
    assert first["id"] == expected[0].id and first["text"] == expected[0].text
    assert first["references"][0]["text"] == expected[0].references[0].text
    assert set(first["sections"]) == set(expected[0].sections)
    sft = datasets.load_dataset(
        "parquet", data_files={"train": str(tmp_path / "train.parquet")}, split="train"
    )
    assert sft.num_rows == sum(1 for i in expected if i.split == "train")
    assert sft[0]["messages"][2]["role"] == "assistant"


def test_evidence_filter_needs_an_audited_dataset(cli_build: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["export", "sft", "--dataset", str(cli_build), "--out", str(tmp_path), "--evidence", "supported"]
    )
    assert result.exit_code != 0 and "no evidence classes" in str(result.exception or result.output)


def test_help_of_each_verb_ends_with_an_example() -> None:
    for verb in (["build", "earlydx"], ["export", "sft"]):
        out = runner.invoke(app, [*verb, "--help"], terminal_width=200).output
        assert "Example: admitdx " + " ".join(verb) in out


def test_keep_sections_gives_the_demo_cc_ablation(demo_dir: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "build",
            "earlydx",
            "--mimic",
            str(demo_dir),
            "--out",
            str(tmp_path),
            "--keep-sections",
            "demographics,chief_complaint",
        ],
    )
    assert result.exit_code == 0, result.output
    instances = load_instances(tmp_path)
    assert instances
    for inst in instances:
        present = {k for k, v in inst.sections.items() if v}
        assert "demographics" in present and present <= {"demographics", "chief_complaint"}
        assert inst.history is None


def test_rationales_go_before_the_diagnoses_and_unusable_ones_are_skipped(
    cli_build: Path, tmp_path: Path
) -> None:
    train = [i for i in load_instances(cli_build) if i.split == "train"]
    rationales = tmp_path / "rationales.jsonl"
    lines = [
        {
            "instance_id": train[0].id,
            "split": "train",
            "diagnoses": [],
            "reasoning": "CT shows a bleed.",
            "raw": "{}",
            "parse_error": None,
        },
        {
            "instance_id": train[1].id,
            "split": "train",
            "diagnoses": [],
            "reasoning": None,
            "raw": "oops",
            "parse_error": "not JSON",
        },
    ]
    rationales.write_text("".join(json.dumps(x) + "\n" for x in lines))
    result = runner.invoke(
        app,
        [
            "export",
            "sft",
            "--dataset",
            str(cli_build),
            "--out",
            str(tmp_path / "sft"),
            "--splits",
            "train",
            "--rationales",
            str(rationales),
        ],
    )
    assert result.exit_code == 0, result.output
    (row,) = [json.loads(x) for x in (tmp_path / "sft" / "train.jsonl").read_text().splitlines()]
    expected = "CT shows a bleed.\n\n" + "\n".join(r.text for r in train[0].references)
    assert row["id"] == train[0].id and row["messages"][2]["content"] == expected
    manifest = json.loads((tmp_path / "sft" / "manifest.json").read_text())
    assert manifest["outputs"]["counts"]["train"]["skipped_no_rationale"] == len(train) - 1
