"""EarlyDx's benchmark set (§4.1): the audit marks the encounters with a supported or partial label,
systems learn from those encounters and labels by default, ``train_labels=all`` restores the rest."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import Reference, load_instances
from admitdx.errors import UsageError
from admitdx.systems.labels import benchmark_set, is_retained, label_key, training_view


def _invoke(*args: str) -> None:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def audited(synthetic_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("audited") / "ds"
    _invoke("audit", "--dataset", str(synthetic_dataset), "--system", "rules", "--out", str(out))
    return out


def test_the_audit_marks_each_encounter_retained_or_not(audited: Path) -> None:
    instances = load_instances(audited)
    for inst in instances:
        classes = {r.evidence_class for r in inst.references}
        assert inst.meta["retained"] == bool(classes & {"supported", "partial"}), inst.id
    unsupported_only = sum(not i.meta["retained"] for i in instances)
    assert 0 < unsupported_only < len(instances)
    outputs = json.loads((audited / "manifest.json").read_text())["outputs"]
    assert outputs["unsupported_only_instances"] == unsupported_only
    assert outputs["retained_instances"] == len(instances) - unsupported_only
    # the Parquet copy carries the mark too (datasets.load_dataset reads it)
    meta = pq.read_table(audited / "instances.parquet", columns=["meta"]).column("meta").to_pylist()
    assert [m["retained"] for m in meta] == [i.meta["retained"] for i in instances]


def test_training_view_keeps_retained_encounters_and_their_supported_and_partial_labels(
    audited: Path,
) -> None:
    train = [i for i in load_instances(audited) if i.split == "train"]
    view = training_view(train)
    assert [i.id for i in view] == [i.id for i in train if i.meta["retained"]]
    assert all(r.evidence_class in ("supported", "partial") for i in view for r in i.references)
    assert all(i.references for i in view)
    assert training_view(train, "all") == train
    assert benchmark_set(train) == [i for i in train if i.meta["retained"]]
    assert benchmark_set(train, keep_unsupported_only=True) == train
    with pytest.raises(UsageError, match="retained, all"):
        training_view(train, "supported")


def test_an_unaudited_or_older_audited_instance_is_judged_by_its_classes(audited: Path) -> None:
    inst = next(i for i in load_instances(audited) if i.meta["retained"])
    unaudited = inst.__class__(**{**vars(inst), "meta": {}, "references": [Reference(text="Sepsis")]})
    assert is_retained(unaudited) and training_view([unaudited]) == [unaudited]
    older = inst.__class__(
        **{**vars(inst), "meta": {}, "references": [Reference(text="Sepsis", evidence_class="unsupported")]}
    )
    assert not is_retained(older)


def test_the_frequency_prior_learns_the_retained_labels_unless_told_all(
    audited: Path, tmp_path: Path
) -> None:
    train = [i for i in load_instances(audited) if i.split == "train"]

    def top3(instances: list) -> list[str]:
        counts = Counter(key for i in instances for key in {label_key(r.text) for r in i.references})
        return [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]]

    expected = {"retained": top3(training_view(train)), "all": top3(train)}
    assert expected["retained"] != expected["all"]  # the synthetic audit moves the prior
    for option, keys in expected.items():
        out = tmp_path / option
        args = ["--set", "train_labels=all"] if option == "all" else []
        _invoke("predict", "--dataset", str(audited), "--system", "frequency", "--out", str(out), *args)
        first = json.loads((out / "predictions.jsonl").read_text().splitlines()[0])
        assert [label_key(item["text"]) for item in first["items"]] == keys, option


def test_predict_skips_encounters_outside_the_benchmark_set_unless_kept(
    audited: Path, tmp_path: Path
) -> None:
    """Issue 23: an encounter whose labels are all unsupported is never scored, so it is not
    predicted (no LLM call is spent on it); `--keep-unsupported-only` predicts it too, recorded."""
    test = [i for i in load_instances(audited) if i.split == "test"]
    retained = {i.id for i in test if i.meta["retained"]}
    assert 0 < len(retained) < len(test)  # the fixture really has both kinds
    _invoke("predict", "--dataset", str(audited), "--system", "frequency", "--out", str(tmp_path / "default"))
    predicted = [json.loads(x)["instance_id"] for x in (tmp_path / "default" / "predictions.jsonl").open()]
    assert set(predicted) == retained and len(predicted) == len(retained)
    assert (
        "keep_unsupported_only"
        not in json.loads((tmp_path / "default" / "manifest.json").read_text())["inputs"]
    )
    kept = tmp_path / "kept"
    _invoke(
        "predict",
        "--dataset",
        str(audited),
        "--system",
        "frequency",
        "--out",
        str(kept),
        "--keep-unsupported-only",
    )
    assert sum(1 for _ in (kept / "predictions.jsonl").open()) == len(test)
    assert json.loads((kept / "manifest.json").read_text())["inputs"]["keep_unsupported_only"] is True


def test_the_sft_export_says_which_set_it_holds(
    audited: Path, synthetic_dataset: Path, tmp_path: Path
) -> None:
    """Every encounter with a gold answer is exported; the manifest says whether that is the
    benchmark set, and counts the examples outside it per split."""
    train = [i for i in load_instances(audited) if i.split == "train"]
    outside = sum(not i.meta["retained"] for i in train)
    assert outside > 0

    def export(dataset: Path, out: str, *args: str) -> tuple[str, dict]:
        result = CliRunner().invoke(
            app,
            [
                "export",
                "sft",
                "--dataset",
                str(dataset),
                "--out",
                str(tmp_path / out),
                "--splits",
                "train",
                *args,
            ],
        )
        assert result.exit_code == 0, result.output
        return result.output, json.loads((tmp_path / out / "manifest.json").read_text())["outputs"]

    said, every = export(audited, "every")
    assert every["holds"] == "every encounter"
    assert every["counts"]["train"]["examples"] == len(train)
    assert every["counts"]["train"]["outside_benchmark_set"] == outside
    assert f"train: {len(train)} examples ({outside} outside the benchmark set)" in said
    assert "holds: every encounter" in said

    _, paper = export(audited, "paper", "--evidence", "supported,partial")  # the paper's training set
    assert paper["holds"] == "benchmark set" and "outside_benchmark_set" not in paper["counts"]["train"]
    assert paper["counts"]["train"]["examples"] == len(train) - outside

    _, unaudited = export(synthetic_dataset, "unaudited")
    assert unaudited["holds"] == "every encounter (not audited)"
