"""Encoder classifier: the fine-tuning and prediction path on CPU with a tiny randomly initialised
BERT written to a temporary directory (no download)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from admitdx.errors import UsageError
from admitdx.systems import create
from systems_data import planted_encounters, write_tiny_bert

pytest.importorskip("transformers")

TINY = {"epochs": 8, "batch_size": 16, "learning_rate": 5e-3, "warmup_ratio": 0.0, "device": "cpu"}


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def planted_separation(system, held_out) -> float:
    """Mean score of "Planted disease" on encounters that carry it minus on those that do not."""
    rankings = {p.instance_id: dict(json.loads(p.raw)["ranking"]) for p in system.predict(held_out)}
    scores = {iid: ranking["Planted disease"] for iid, ranking in rankings.items()}
    carrying = [any(r.text == "Planted disease" for r in i.references) for i in held_out]
    return float(
        np.mean([scores[i.id] for i, c in zip(held_out, carrying, strict=True) if c])
        - np.mean([scores[i.id] for i, c in zip(held_out, carrying, strict=True) if not c])
    )


def recall_of_planted(system, held_out) -> float:
    preds = {p.instance_id: [i.text for i in p.items] for p in system.predict(held_out)}
    carriers = [i for i in held_out if any(r.text == "Planted disease" for r in i.references)]
    return float(np.mean(["Planted disease" in preds[i.id] for i in carriers]))


def test_fine_tuning_learns_a_planted_word_and_predicts_ranked_titles(tiny_bert: Path) -> None:
    system = create("encoder", model_dir=str(tiny_bert), max_length=40, **TINY)
    system.fit(planted_encounters(240, "train", seed=1))
    # Mean BCE over 4 titles: ~0.67 untrained; 0.477 once the planted title is learnt, because the
    # three noise titles (each p = 1/3, entropy 0.636) cannot be: (3 × 0.636 + 0) / 4.
    losses = system.fit_summary["epoch_losses"]
    assert losses[0] > 0.6 and losses[-1] < 0.52
    held_out = planted_encounters(60, "test", seed=2)
    assert recall_of_planted(system, held_out) >= 0.95
    p = next(iter(system.predict(held_out[:1])))
    assert len(p.items) == 2 and p.items[0].score >= p.items[1].score
    assert len(json.loads(p.raw)["ranking"]) == 4


def test_windows_read_past_the_truncation_point(tiny_bert: Path) -> None:
    train = planted_encounters(240, "train", 1, at_end=True)
    held_out = planted_encounters(60, "test", 2, at_end=True)
    truncating = create("encoder", model_dir=str(tiny_bert), max_length=16, **TINY)
    truncating.fit(train)
    windowed = create("encoder", model_dir=str(tiny_bert), max_length=16, max_chunks=4, stride=4, **TINY)
    windowed.fit(train)
    # the word is the 31st: truncation to 14 words never sees it; 4 windows of 14 with overlap 4 do
    assert planted_separation(windowed, held_out) > 0.5
    assert abs(planted_separation(truncating, held_out)) < 0.1


def test_model_dir_is_required_and_must_exist(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="needs model_dir"):
        create("encoder")
    with pytest.raises(UsageError, match="needs model_dir"):
        create("encoder", model_dir=str(tmp_path / "missing"))
