"""No system sees a test label: every built-in baseline, run through the runner, gives the same
predictions whatever the test references say, and never names a label only test encounters carry."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from admitdx.contracts import Reference, load_predictions
from admitdx.systems.config import SystemChoice
from admitdx.systems.runner import run_predictions
from systems_data import instance, planted_encounters, write_dataset, write_tiny_bert

LEAK = "Leaked label"


def dataset(folder: Path, test_labels: list[str]) -> Path:
    train = planted_encounters(120, "train", seed=1)
    # Every test encounter writes the leak title in its text and (in one version) carries it: a
    # system that counted, indexed, trained on or read test labels would name it somewhere.
    test = [
        instance(f"x{i}", "test", f"{t.text} leaked label", [], subject_id=99_000 + i)
        for i, t in enumerate(planted_encounters(30, "test", seed=2))
    ]
    test = [t.__class__(**{**t.__dict__, "references": [Reference(x) for x in test_labels]}) for t in test]
    return write_dataset(folder, train + test)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("transformers")
    return write_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


CHOICES = [
    SystemChoice("frequency", "frequency"),
    SystemChoice("knn-bm25", "knn-bm25"),
    SystemChoice("knn-dense", "knn-dense"),
    SystemChoice("knn-vote", "knn-vote"),
    SystemChoice("knn-random", "knn-random"),
    SystemChoice("extraction", "extraction", {"sources": ["train", "synonyms"]}),
    SystemChoice("tfidf", "tfidf"),
    SystemChoice("tfidf-threshold", "tfidf-threshold"),
    SystemChoice("encoder", "encoder", {"epochs": 1, "max_length": 40, "device": "cpu"}),
]


@pytest.mark.parametrize("choice", CHOICES, ids=lambda c: c.name)
def test_predictions_do_not_depend_on_test_labels(
    choice: SystemChoice, tmp_path: Path, monkeypatch, request: pytest.FixtureRequest
) -> None:
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))
    if choice.kind == "encoder":
        choice = SystemChoice(
            choice.name,
            choice.kind,
            {**choice.options, "model_dir": str(request.getfixturevalue("tiny_bert"))},
        )
    outputs = []
    for version, labels in (("leaky", [LEAK] * 3), ("other", ["Something else"])):
        data = dataset(tmp_path / version, labels)
        run_predictions(data, choice, tmp_path / f"out-{version}", show_progress=False)
        outputs.append([(p.instance_id, p.items) for p in load_predictions(tmp_path / f"out-{version}")])
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) == 30
    assert not any(item.text == LEAK for _, items in outputs[0] for item in items)


# ---------------------------------------------------------------- leakage guard by declaration
class _Recorder:
    """A system that keeps every instance it is given (registered once for these tests)."""

    seen: ClassVar[list] = []

    def __init__(self) -> None:
        self.name = "recorder"

    def fit(self, train: list) -> None:
        type(self).seen.append(("fit", train))

    def predict(self, instances):  # type: ignore[no-untyped-def]
        from admitdx.contracts import Prediction

        todo = list(instances)
        type(self).seen.append(("predict", todo))
        for inst in todo:
            yield Prediction(inst.id, self.name, [])


def _recorded(dataset_dir: Path, out: Path) -> tuple[list, list]:
    from admitdx.systems import register, registered

    if "test-recorder" not in registered():
        register(
            "test-recorder", "records what a system is given", answers=("diagnoses", "category", "text")
        )(_Recorder)
    _Recorder.seen = []
    run_predictions(dataset_dir, SystemChoice("rec", "test-recorder"), out, show_progress=False)
    return dict(_Recorder.seen)["fit"], dict(_Recorder.seen)["predict"]


def test_earlydx_targets_never_reach_a_system(synthetic_dataset: Path, tmp_path: Path) -> None:
    """A real EarlyDx build: test references and the declared leaky meta are gone before predict."""
    import json

    train, test = _recorded(synthetic_dataset, tmp_path / "run")
    assert test and all(not i.references and i.target is None for i in test)
    assert all("ed_disposition" not in i.meta for i in test)
    assert any(i.references for i in train)  # training keeps its labels
    gold = {
        json.loads(line)["id"]: json.loads(line)["references"]
        for line in (synthetic_dataset / "instances.jsonl").read_text().splitlines()
    }
    # what the system received, serialised, carries no reference of its own instance beyond its text
    for inst in test:
        received = json.dumps(
            {k: v for k, v in inst.to_dict().items() if k not in ("text", "sections", "history")}
        )
        assert not any(r["text"] in received for r in gold[inst.id])


def test_a_category_target_and_its_leaky_meta_never_reach_a_system(tmp_path: Path) -> None:
    from dataclasses import dataclass

    from admitdx.contracts import Instance
    from admitdx.jsonl import write_jsonl
    from admitdx.tasks.dataset_writer import instance_schema
    from admitdx.tasks.registry import register
    from admitdx.tasks.spec import TaskSpec

    @dataclass(frozen=True)
    class NoParams:
        pass

    register(
        TaskSpec("test-disposition", "t", NoParams, lambda *a, **k: {}, "category", "category",
                 instance_schema((), (), target=True), categories=("ADMITTED", "HOME"),
                 leaky_meta=("ed_disposition", "acuity"))
    )  # fmt: skip
    rows = [
        Instance(f"{split}{i}", i + (0 if split == "train" else 50), "test-disposition", split, {},
                 f"record {i}", [], meta={"age": 50, "acuity": 2, "ed_disposition": "HOME"}, target="HOME")
        for split in ("train", "test") for i in range(3)
    ]  # fmt: skip
    write_jsonl(tmp_path / "ds" / "instances.jsonl", (r.to_dict() for r in rows))
    train, test = _recorded(tmp_path / "ds", tmp_path / "run")
    assert [i.target for i in train] == ["HOME"] * 3
    assert all(i.target is None and i.meta == {"age": 50} for i in test)
    assert "HOME" not in " ".join(str(i.to_dict()) for i in test)


class _OracleRecorder(_Recorder):
    """The recorder, declaring itself an oracle (as the gold few-shot retriever does)."""

    needs_test_targets = True


class _ClaimingRecorder(_Recorder):
    """A truthy value that is not ``True`` is not a declaration."""

    needs_test_targets = "yes"


def test_only_a_system_that_declares_itself_an_oracle_gets_the_test_targets(tmp_path: Path) -> None:
    import json

    from admitdx.contracts import Instance
    from admitdx.jsonl import write_jsonl
    from admitdx.systems import register, registered

    rows = [
        Instance(f"{split}{i}", i + (0 if split == "train" else 50), "clinibench", split, {}, f"note {i}",
                 [Reference(f"title {split}{i}", code=f"C{i}{split[0]}")],
                 meta={"icd_version": 10, "excluded_codes": "Z99"})
        for split in ("train", "test") for i in range(3)
    ]  # fmt: skip
    write_jsonl(tmp_path / "ds" / "instances.jsonl", (r.to_dict() for r in rows))
    kinds = {"test-oracle-recorder": _OracleRecorder, "test-claiming-recorder": _ClaimingRecorder}
    for name, cls in kinds.items():
        if name not in registered():
            register(name, "records what an oracle is given")(cls)
    received = {}
    for kind in ("test-oracle-recorder", "test-claiming-recorder"):
        _Recorder.seen = []
        run_predictions(tmp_path / "ds", SystemChoice(kind, kind), tmp_path / kind, show_progress=False)
        received[kind] = dict(_Recorder.seen)["predict"]
    gold = {r.id: r.references for r in rows if r.split == "test"}
    oracle = received["test-oracle-recorder"]
    assert {i.id: i.references for i in oracle} == gold
    assert all(i.meta == {"icd_version": 10} for i in oracle)  # the leaky meta still goes
    assert all(not i.references for i in received["test-claiming-recorder"])

    def manifest(kind: str) -> dict:
        return json.loads((tmp_path / kind / "manifest.json").read_text())["inputs"]

    assert manifest("test-oracle-recorder")["oracle"] is True
    assert "oracle" not in manifest("test-claiming-recorder")
