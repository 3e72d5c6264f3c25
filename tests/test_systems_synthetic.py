"""The baselines on the project's synthetic EarlyDx dataset: they run end to end through the
runner, and extraction behaves as extraction should — good on explicit labels, blind to implicit."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from admitdx.contracts import load_instances, load_predictions
from admitdx.systems import create
from admitdx.systems.config import SystemChoice
from admitdx.systems.labels import label_key
from admitdx.systems.runner import run_predictions


@pytest.mark.parametrize("kind", ["frequency", "knn-bm25", "knn-vote", "tfidf"])
def test_each_baseline_predicts_every_test_encounter(
    kind: str, synthetic_dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / kind
    summary = run_predictions(synthetic_dataset, SystemChoice(kind, kind), out, show_progress=False)
    test_ids = [i.id for i in load_instances(synthetic_dataset, split="test")]
    predictions = load_predictions(out)
    assert summary.total == len(test_ids) > 0
    assert sorted(p.instance_id for p in predictions) == sorted(test_ids)
    assert all(p.items for p in predictions)


def test_extraction_recovers_explicit_labels_and_almost_no_implicit_ones(synthetic_dataset: Path) -> None:
    instances = load_instances(synthetic_dataset)
    system = create("extraction")
    system.fit([i for i in instances if i.split == "train"])
    named = {
        p.instance_id: {label_key(item.text) for item in p.items}
        for p in system.predict([dataclasses.replace(i, references=[]) for i in instances])
    }
    found: dict[bool, list[bool]] = {True: [], False: []}
    for inst in instances:
        for ref in inst.references:
            if ref.explicit is not None:
                spellings = {label_key(t) for t in (ref.text, ref.dictionary_title) if t}
                found[ref.explicit].append(bool(spellings & named[inst.id]))
    assert len(found[True]) >= 20 and len(found[False]) >= 20
    explicit_recall = sum(found[True]) / len(found[True])
    implicit_recall = sum(found[False]) / len(found[False])
    assert explicit_recall > 0.5 > 0.1 > implicit_recall
