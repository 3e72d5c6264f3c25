"""TF-IDF classifier and the shared multi-label head: planted signals, rare titles, thresholds."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from admitdx.contracts import Reference
from admitdx.systems import create
from admitdx.systems.multilabel import Emission, LabelSpace, carve_validation, tune_threshold
from systems_data import instance, planted_encounters

TRAIN = planted_encounters(240, "train", seed=1)
HELD_OUT = planted_encounters(90, "test", seed=2)


def planted_recall(system) -> tuple[float, float]:
    preds = {p.instance_id: [i.text for i in p.items] for p in system.predict(HELD_OUT)}
    carriers = [i for i in HELD_OUT if any(r.text == "Planted disease" for r in i.references)]
    others = [i for i in HELD_OUT if i not in carriers]
    recall = np.mean(["Planted disease" in preds[i.id] for i in carriers])
    false_alarms = np.mean(["Planted disease" in preds[i.id] for i in others])
    return float(recall), float(false_alarms)


def test_top2_learns_a_planted_word_to_near_perfect_recall_on_held_out_encounters() -> None:
    system = create("tfidf")
    system.fit(TRAIN)
    recall, _ = planted_recall(system)
    assert recall >= 0.95
    p = next(iter(system.predict(HELD_OUT[:1])))
    assert len(p.items) == 2 and p.items[0].score >= p.items[1].score
    ranking = json.loads(p.raw)["ranking"]
    assert len(ranking) == 4 and [t for t, _ in ranking[:2]] == [i.text for i in p.items]


def test_threshold_mode_names_the_planted_title_only_where_its_word_is() -> None:
    system = create("tfidf-threshold")
    system.fit(TRAIN)
    recall, false_alarms = planted_recall(system)
    assert recall >= 0.95 and false_alarms <= 0.05
    assert system.fit_summary["validation"] > 0
    assert system.fit_summary["fitted_on"] + system.fit_summary["validation"] == len(TRAIN)


def test_rare_titles_are_set_aside_and_counted() -> None:
    train = [
        instance(f"r{i}", "train", "fever cough", ["Common"] + (["Rare"] if i < 2 else [])) for i in range(10)
    ]
    space = LabelSpace.from_instances(train, min_label_count=3)
    assert space.titles == ["Common"]
    # 12 label occurrences, the 2 of "Rare" set aside
    assert space.summary["rare_labels_set_aside"] == 1
    assert space.summary["share_of_label_occurrences_set_aside"] == pytest.approx(2 / 12, abs=1e-4)
    system = create("tfidf", min_df=1)
    system.fit(train)  # the one learnable title is in every encounter: a constant, probability 1
    (p,) = system.predict([instance("q", "test", "ankle", [])])
    assert [(i.text, i.score) for i in p.items] == [("Common", 1.0)]


def test_a_single_learnable_title_is_scored_by_its_own_model() -> None:
    train = [
        instance(f"s{i}", "train", "fever cough" if i < 6 else "ankle sprain", ["Flu"] if i < 6 else [])
        for i in range(12)
    ]
    system = create("tfidf", min_df=1)
    system.fit(train)
    flu, ankle = system.predict([instance("a", "test", "fever", []), instance("b", "test", "sprain", [])])
    assert flu.items[0].text == "Flu" and flu.items[0].score > 0.5 > ankle.items[0].score


def test_threshold_is_the_midpoint_below_the_best_f1_score() -> None:
    scores, truth = np.array([0.9, 0.8, 0.3, 0.2, 0.1]), np.array([1, 1, 0, 1, 0])
    # F1 at thresholds 0.1, 0.2, 0.3, 0.8, 0.9 = 6/8, 6/7, 4/6, 4/5, 2/4: best at 0.2, next lower 0.1
    assert tune_threshold(scores, truth, 1e-4) == pytest.approx(0.15)
    assert tune_threshold(scores, np.zeros(5, int), 1e-4) == pytest.approx(0.9001)  # never right
    assert tune_threshold(np.array([0.2, 0.2]), np.array([1, 1]), 1e-4) == pytest.approx(0.1999)  # always


def test_validation_carving_keeps_a_patient_on_one_side() -> None:
    train = [instance(f"e{i}", "train", "x", ["A"], subject_id=i // 3) for i in range(300)]
    fit, val = carve_validation(train, 0.1, seed=0)
    assert len(fit) + len(val) == 300 and 0 < len(val) < 60
    assert not {i.subject_id for i in fit} & {i.subject_id for i in val}


def test_a_coded_label_space_gives_each_title_its_most_frequent_training_code() -> None:
    def coded(iid: str, pairs: list[tuple[str, str]]):
        refs = [
            Reference(text=t, code=c, code_system="ICD-10-CM", seq_num=n + 1)
            for n, (t, c) in enumerate(pairs)
        ]
        return replace(instance(iid, "train", "x", []), references=refs)

    # "Hypertension" is I10 three times and I11 once; "Sepsis" is always A41
    train = [
        coded(f"c{i}", [("Hypertension", "I11" if i == 0 else "I10"), ("Sepsis", "A41")]) for i in range(4)
    ]
    space = LabelSpace.from_instances(train, min_label_count=3, with_codes=True)
    assert dict(zip(space.titles, space.codes, strict=True)) == {"Hypertension": "I10", "Sepsis": "A41"}
    assert space.summary["titles_with_several_codes"] == 1
    plain = LabelSpace.from_instances(train, min_label_count=3)
    assert plain.codes is None and "titles_with_several_codes" not in plain.summary
    emission = Emission([])
    emission.use(space)
    assert space.titles == ["Hypertension", "Sepsis"]  # equal counts: alphabetical
    items, _ = emission.items(np.array([0.2, 0.9]))
    assert [(i.text, i.code) for i in items] == [("Sepsis", "A41"), ("Hypertension", "I10")]
    emission.use(plain)
    assert all(i.code is None for i in emission.items(np.array([0.2, 0.9]))[0])
