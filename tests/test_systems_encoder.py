"""Encoder classifier: the fine-tuning and prediction path on CPU with a tiny randomly initialised
BERT written to a temporary directory (no download)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from admitdx.contracts import Instance, Reference
from admitdx.errors import UsageError
from admitdx.metrics.clinibench import clinibench_scores
from admitdx.systems import create
from admitdx.systems.multilabel import carve_validation, macro_auroc
from admitdx.tasks.registry import get_task
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


CODE_OF = {"Planted disease": "A41", "Noise A": "I10", "Noise B": "J18", "Noise C": "N17"}


def clinibench_shaped(n: int, split: str, seed: int) -> list[Instance]:
    """Planted encounters as CliniBench sees them: category titles with their 3-character codes."""
    return [
        replace(
            i,
            task="clinibench",
            references=[
                Reference(text=r.text, code=CODE_OF[r.text], code_system="ICD-10-CM", seq_num=n + 1)
                for n, r in enumerate(i.references)
            ],
        )
        for i in planted_encounters(n, split, seed)
    ]


def test_on_clinibench_the_encoder_emits_codes_and_keeps_the_best_validation_epoch(tiny_bert: Path) -> None:
    train, held_out = clinibench_shaped(240, "train", 1), clinibench_shaped(60, "test", 2)
    gold = [[r.code for r in i.references] for i in held_out]
    options = {**TINY, "epochs": 4, "model_dir": str(tiny_bert), "max_length": 40}
    f1 = {}
    for task in ("clinibench", "earlydx"):
        system = create("encoder-threshold", task=get_task(task), **options)
        system.fit(train)
        preds = list(system.predict(held_out))
        codes = [[it.code for it in p.items] for p in preds]
        if task == "clinibench":  # each title's code is the one its training references give it
            assert all(it.code == CODE_OF[it.text] for p in preds for it in p.items)
        else:  # judged on titles through a matcher: no code, as TF-IDF
            assert all(c is None for row in codes for c in row)
        f1[task] = clinibench_scores(gold, codes)["macro_f1"]
        summary = system.fit_summary
        aurocs = summary["validation_auroc"]
        assert len(aurocs) == 4 and all(0.0 <= a <= 1.0 for a in aurocs)
        assert summary["chosen_epoch"] == int(np.argmax(aurocs)) + 1
        assert summary["fitted_on"] + summary["validation"] == len(train) and summary["validation"] > 0
    # the planted title's code is learnt (F1 near 1); three noise codes at 1/3 each pull the mean down
    assert f1["clinibench"] > 0.4
    assert f1["earlydx"] == 0.0  # without codes a code-scored task gives nothing


def test_the_chosen_epochs_weights_are_restored(tiny_bert: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Scripted validation AUROCs (best at epoch 2 of 4): the fitted model scores the validation
    texts exactly as it did after epoch 2, not as after the last epoch."""
    import admitdx.systems.encoder_model as encoder_model

    script, seen = iter([0.6, 0.9, 0.7, 0.8]), []

    def scripted(scores: np.ndarray, truth: np.ndarray) -> float:
        seen.append(scores.copy())
        return next(script)

    monkeypatch.setattr(encoder_model, "macro_auroc", scripted)
    train = planted_encounters(120, "train", seed=1)
    system = create("encoder", model_dir=str(tiny_bert), max_length=40, **{**TINY, "epochs": 4})
    system.fit(train)
    assert system.fit_summary["validation_auroc"] == [0.6, 0.9, 0.7, 0.8]
    assert system.fit_summary["chosen_epoch"] == 2
    _, validation = carve_validation(train, 0.1, seed=0)
    restored = system.head.scores([i.text for i in validation], 16)
    np.testing.assert_allclose(restored, seen[1], atol=1e-6)
    assert np.abs(restored - seen[3]).max() > 1e-3


def test_macro_auroc_averages_the_labels_that_have_both_classes() -> None:
    scores = np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.5], [0.7, 0.3, 0.5]])
    truth = np.array([[1, 0, 1], [0, 1, 1], [0, 0, 1]])
    # label 0: positive 0.9 above both negatives (1.0); label 1: 0.8 above both (1.0); label 2 all positive
    assert macro_auroc(scores, truth) == pytest.approx(1.0)
    assert macro_auroc(1 - scores, truth) == pytest.approx(0.0)
    assert macro_auroc(scores[:, 2:], truth[:, 2:]) is None
