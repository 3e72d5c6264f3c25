"""No system sees a test label: every built-in baseline, run through the runner, gives the same
predictions whatever the test references say, and never names a label only test encounters carry."""

from __future__ import annotations

from pathlib import Path

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
