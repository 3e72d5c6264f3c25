"""Systems on CliniBench: the code-aware majority vote, and predict → score end to end with the
clinibench suite (codes, no matcher)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import Instance, Reference, load_instances, load_predictions
from admitdx.retrieval import Hit
from admitdx.systems.knn import RetrievalKNN
from admitdx.tasks.registry import get_task


def _invoke(*args: str) -> None:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _inst(i: int, codes: list[str]) -> Instance:
    refs = [
        Reference(text=f"title {c}", code=c, code_system="ICD-10-CM", seq_num=n + 1)
        for n, c in enumerate(codes)
    ]
    return Instance(
        id=f"t{i}", subject_id=i, task="clinibench", split="train", sections={}, text=f"x{i}", references=refs
    )


def test_knn_vote_ranks_codes_by_votes_then_similarity() -> None:
    knn = RetrievalKNN(retriever="random", neighbours=5, max_labels=3, task=get_task("clinibench"))
    knn.fit(
        [
            _inst(0, ["I10", "E11"]),
            _inst(1, ["J18", "I10"]),
            _inst(2, ["N17", "E11"]),
            _inst(3, ["Z99"]),
            _inst(4, ["I10", "A41"]),
        ]
    )
    # neighbours in rank order: 1 (nearest), 2, 0, 4, 3
    hits = [Hit(1, 0.9), Hit(2, 0.8), Hit(0, 0.7), Hit(4, 0.6), Hit(3, 0.5)]
    items = knn.vote(hits)
    # I10: 3 votes; E11: 2 votes; then one vote each, nearest neighbour first: J18 (rank 0) before N17
    assert [it.code for it in items] == ["I10", "E11", "J18"]
    assert [it.text for it in items] == ["title I10", "title E11", "title J18"]
    assert [it.score for it in items] == [0.6, 0.4, 0.2]


def test_knn_votes_by_title_on_a_matched_task() -> None:
    knn = RetrievalKNN(retriever="random", neighbours=2, task=get_task("earlydx"))
    knn.fit([_inst(0, ["I10"]), _inst(1, ["I10"])])
    items = knn.vote([Hit(0, 1.0), Hit(1, 0.5)])
    assert [(it.text, it.code) for it in items] == [("title I10", None)]


@pytest.fixture(scope="module")
def hosp10(synthetic_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cb") / "hosp-icd10"
    _invoke("build", "clinibench", "--mimic", str(synthetic_root), "--out", str(out), "--module", "hosp",
            "--icd-version", "10")  # fmt: skip
    return out


def _average_precision(gold: list[str], ranking: list[str]) -> float:
    hits, total = 0, 0.0
    for k, code in enumerate(ranking, start=1):
        if code in gold:
            hits += 1
            total += hits / k
    return total / len(gold)


def test_predict_then_score_gives_the_clinibench_suite(hosp10: Path, tmp_path: Path) -> None:
    runs, names = [], {}
    for system in ("knn-vote", "knn-random"):
        run = tmp_path / system
        _invoke("predict", "--dataset", str(hosp10), "--system", system, "--out", str(run))
        runs.append(str(run))
    out = tmp_path / "scores"
    _invoke(
        "score", "--dataset", str(hosp10), "--predictions", *runs, "--out", str(out), "--n-bootstrap", "50"
    )
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["task"] == "clinibench" and results["suite"] == "clinibench"
    test = {i.id: i for i in load_instances(hosp10, "test")}
    by_name = {s["name"]: s for s in results["systems"]}
    for run in runs:
        preds = load_predictions(Path(run))
        assert preds and all(it.code for p in preds for it in p.items)
        assert all(len(p.items) <= 20 for p in preds)
        # MAP and main-diagnosis accuracy recomputed here from the files
        aps, hits = [], []
        for p in preds:
            gold = [r.code for r in sorted(test[p.instance_id].references, key=lambda r: r.seq_num)]
            if not gold:
                continue
            ranking = [it.code for it in p.items][:20]
            aps.append(_average_precision(gold, ranking))
            hits.append(gold[0] in ranking)
        names[Path(run).name] = preds[0].system
        scored = by_name[preds[0].system]["clinibench"]
        assert scored["map"] == pytest.approx(sum(aps) / len(aps))
        assert scored["main_diagnosis_accuracy"] == pytest.approx(sum(hits) / len(hits))
        assert 0 <= scored["macro_f1"] <= 1 and set(scored["tertiles"]) == {"head", "body", "tail"}
    # neighbours by text share the presenting problem: the vote finds the main diagnosis more often
    vote = by_name[names["knn-vote"]]["clinibench"]["main_diagnosis_accuracy"]
    assert vote > by_name[names["knn-random"]]["clinibench"]["main_diagnosis_accuracy"]


def test_tfidf_emits_ranked_codes(hosp10: Path, tmp_path: Path) -> None:
    with (hosp10 / "labels.csv").open(newline="") as f:
        title_of = {row["code"]: row["title"] for row in csv.DictReader(f)}
    for system in ("tfidf-top20", "tfidf-threshold"):
        run = tmp_path / system
        _invoke(
            "predict",
            "--dataset",
            str(hosp10),
            "--system",
            system,
            "--out",
            str(run),
            "--set",
            "min_label_count=2",
        )
        preds = load_predictions(run)
        assert preds
        for p in preds:
            assert all(it.code and title_of[it.code] == it.text for it in p.items)
            scores = [it.score for it in p.items]
            assert scores == sorted(scores, reverse=True)
            if system == "tfidf-top20":
                assert len(p.items) == 20
            else:
                assert len(p.items) <= 20
    # EarlyDx is judged on titles: the same classifier emits no codes there
    from admitdx.systems.tfidf import TfidfClassifier

    assert TfidfClassifier(task=get_task("earlydx")).with_codes is False
    assert TfidfClassifier(task=get_task("clinibench")).with_codes is True
