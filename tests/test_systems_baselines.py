"""Frequency prior and retrieval kNN: hand-computed expectations on hand-made instances."""

from __future__ import annotations

import json

import pytest

from admitdx.retrieval import Hit
from admitdx.systems import create
from systems_data import instance

TRAIN = [
    instance("t1", "train", "crushing chest pain radiating to jaw, ST elevation", ["NSTEMI", "Hypertension"]),
    instance(
        "t2", "train", "fever and productive cough, crackles at right base", ["Pneumonia", "Hypertension"]
    ),
    instance("t3", "train", "fall from standing, hip pain, shortened leg", ["Hip fracture", "Fall"]),
    instance("t4", "train", "dysuria and fever, flank pain", ["Urinary tract infection", "hypertension"]),
    instance("t5", "train", "fever, cough and hypoxia", ["Pneumonia", "Hypoxemia", "Pneumonia"]),
    instance("t6", "train", "found down, confused, glucose 32", ["Hypoglycemia"]),
]
TEST = [instance("x1", "test", "productive cough with fever", [])]


def test_frequency_prior_emits_the_true_top_k_with_encounter_shares() -> None:
    system = create("frequency")
    system.fit(TRAIN)
    (p,) = system.predict(TEST)
    # Hypertension: 3 encounters (case differences are one label, shown in the common spelling);
    # Pneumonia: 2 (t5 lists it twice: counted once); then 1-encounter labels alphabetically: Fall.
    expected = [("Hypertension", 3 / 6), ("Pneumonia", 2 / 6), ("Fall", 1 / 6)]
    assert [(i.text, i.score) for i in p.items] == expected


def test_frequency_prior_k_is_a_parameter() -> None:
    system = create("frequency", k=1)
    system.fit(TRAIN)
    assert [i.text for i in next(iter(system.predict(TEST))).items] == ["Hypertension"]


@pytest.mark.parametrize("kind", ["knn-bm25", "knn-dense"])
def test_knn_on_a_duplicated_training_instance_returns_its_labels(kind: str, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path))
    system = create(kind)
    system.fit(TRAIN)
    duplicates = [instance(f"d{i}", "test", t.text, []) for i, t in enumerate(TRAIN)]
    for train, p in zip(TRAIN, system.predict(duplicates), strict=True):
        assert [i.text for i in p.items] == list(dict.fromkeys(r.text for r in train.references))
        assert json.loads(p.raw)[0]["train_id"] == train.id


def test_majority_vote_ranks_by_votes_then_by_nearer_neighbour() -> None:
    system = create("knn-vote")
    system.fit(
        [
            instance("a", "train", "alpha", ["A", "B"]),
            instance("b", "train", "bravo", ["B", "C"]),
            instance("c", "train", "charlie", ["C"]),
            instance("d", "train", "delta", ["D"]),
            instance("e", "train", "echo", ["A"]),
        ]
    )
    hits = [Hit(0, 9.0), Hit(1, 8.0), Hit(2, 7.0), Hit(3, 6.0), Hit(4, 5.0)]
    items = system.vote(hits)
    # A, B, C have 2 votes each: A and B first appear in the nearest neighbour (A before B there),
    # C first in the second; D has one vote.
    assert [(i.text, i.score) for i in items] == [("A", 0.4), ("B", 0.4), ("C", 0.4), ("D", 0.2)]


def test_majority_vote_over_bm25_neighbours_keeps_at_most_max_labels() -> None:
    system = create("knn", neighbours=3, max_labels=2)
    system.fit(TRAIN)
    (p,) = system.predict(TEST)
    # BM25 neighbours of "productive cough with fever": t2 (3 shared terms), t5 (2), t4 (1).
    # Pneumonia (t2, t5) and Hypertension (t2, t4) have 2 votes; both first appear in t2, Pneumonia
    # first. Hypoxemia and the UTI (1 vote) fall beyond max_labels.
    assert [json.loads(p.raw)[i]["train_id"] for i in range(3)] == ["t2", "t5", "t4"]
    assert [(i.text, round(i.score, 3)) for i in p.items] == [("Pneumonia", 0.667), ("Hypertension", 0.667)]
