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


def test_lines_format_writes_the_papers_direct_messages_per_split(cli_build: Path, tmp_path: Path) -> None:
    args = ["--answer-format", "lines", "--splits", "train,test", "--include-test"]
    result = runner.invoke(app, ["export", "sft", "--dataset", str(cli_build), "--out", str(tmp_path), *args])
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
            "--answer-format",
            "lines",
        ],
    )
    assert result.exit_code == 0, result.output
    (row,) = [json.loads(x) for x in (tmp_path / "sft" / "train.jsonl").read_text().splitlines()]
    expected = "CT shows a bleed.\n\n" + "\n".join(r.text for r in train[0].references)
    assert row["id"] == train[0].id and row["messages"][2]["content"] == expected
    manifest = json.loads((tmp_path / "sft" / "manifest.json").read_text())
    assert manifest["outputs"]["counts"]["train"]["skipped_no_rationale"] == len(train) - 1


def test_json_format_is_the_prompt_and_answer_predict_evaluates(cli_build: Path, tmp_path: Path) -> None:
    """The exported system and user turns equal the llm system's request for the same encounter,
    and the assistant turn is the JSON that system's answer reader accepts, giving back the labels."""
    from admitdx.systems.llm import LLMPredictor
    from admitdx.tasks.answers import read_diagnoses
    from admitdx.tasks.earlydx.export import MAX_ITEMS
    from admitdx.tasks.registry import get_task

    result = runner.invoke(app, ["export", "sft", "--dataset", str(cli_build), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "test.jsonl").exists()  # train (and val) only by default
    llm = LLMPredictor(task=get_task("earlydx"), base_url="http://127.0.0.1:9/v1", model="m")
    assert llm.shape.max_items == MAX_ITEMS
    train = {i.id: i for i in load_instances(cli_build) if i.split == "train"}
    rows = [json.loads(line) for line in (tmp_path / "train.jsonl").read_text().splitlines()]
    assert len(rows) == len(train)
    for row in rows[:25]:
        inst = train[row["id"]]
        assert row["messages"][:-1] == llm.request(inst).messages
        answer = row["messages"][-1]
        assert answer["role"] == "assistant"
        read = read_diagnoses(json.loads(answer["content"]), MAX_ITEMS)
        assert read.error is None and [it.text for it in read.items] == [r.text for r in inst.references]


def test_test_split_needs_an_explicit_flag_and_warns(cli_build: Path, tmp_path: Path) -> None:
    base = ["export", "sft", "--dataset", str(cli_build), "--out", str(tmp_path)]
    refused = runner.invoke(app, [*base, "--splits", "train,test"])
    assert refused.exit_code != 0 and "--include-test" in str(refused.exception)
    allowed = runner.invoke(app, [*base, "--include-test"])
    assert allowed.exit_code == 0, allowed.output
    assert "warning" in allowed.output and "test split" in allowed.output
    n_test = sum(1 for i in load_instances(cli_build) if i.split == "test")
    assert len((tmp_path / "test.jsonl").read_text().splitlines()) == n_test


def test_llama_factory_dataset_info_names_each_split_file(cli_build: Path, tmp_path: Path) -> None:
    assert (
        runner.invoke(app, ["export", "sft", "--dataset", str(cli_build), "--out", str(tmp_path)]).exit_code
        == 0
    )
    info = json.loads((tmp_path / "dataset_info.json").read_text())
    assert info == {
        "admitdx_earlydx_train": {
            "file_name": "train.jsonl",
            "formatting": "sharegpt",
            "columns": {"messages": "messages"},
            "tags": {
                "role_tag": "role",
                "content_tag": "content",
                "user_tag": "user",
                "assistant_tag": "assistant",
                "system_tag": "system",
            },
        }
    }
    roles = {
        m["role"]
        for line in (tmp_path / "train.jsonl").read_text().splitlines()
        for m in json.loads(line)["messages"]
    }
    assert roles == {"system", "user", "assistant"}  # every role has its tag


def test_trl_reads_the_export_as_conversational_data(cli_build: Path, tmp_path: Path) -> None:
    """TRL's own conversational checks and chat-template rendering (what SFTTrainer does to a
    `messages` dataset before tokenizing), with a tokenizer built here: no model is downloaded."""
    datasets = pytest.importorskip("datasets")
    trl_data = pytest.importorskip("trl.data_utils")
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    assert (
        runner.invoke(app, ["export", "sft", "--dataset", str(cli_build), "--out", str(tmp_path)]).exit_code
        == 0
    )
    ds = datasets.load_dataset(
        "json", data_files=str(tmp_path / "train.jsonl"), split="train", cache_dir=str(tmp_path / "hf")
    )
    assert trl_data.is_conversational(ds[0])
    core = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]")
    tokenizer.chat_template = (
        "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}"
    )
    text = trl_data.apply_chat_template(ds[0], tokenizer)["text"]
    messages = ds[0]["messages"]
    assert text.startswith("<|system|>" + messages[0]["content"])
    assert f"<|assistant|>{messages[2]['content']}<|end|>" in text and '{"diagnoses": [' in text
