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
        readable = [p for p in preds if p.parse_error is None and p.instance_id in test]
        assert scored["answers"]["valid_rate"] == pytest.approx(len(readable) / len(test))
        distinct = [len({it.code for it in p.items}) for p in readable]  # codes are 3-character already
        assert scored["answers"]["mean_distinct_codes"] == pytest.approx(sum(distinct) / len(distinct))
    # neighbours by text share the presenting problem: the vote finds the main diagnosis more often
    vote = by_name[names["knn-vote"]]["clinibench"]["main_diagnosis_accuracy"]
    assert vote > by_name[names["knn-random"]]["clinibench"]["main_diagnosis_accuracy"]
    _check_length_bins(results, test, runs)
    _check_intervals(results)
    figures = tmp_path / "figures"
    _invoke("report", str(out), "--figures", str(figures))
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Micro F1 by input length (figure 5)" in html
    for name in ("length_bins", "tertiles", "answers", "main"):
        assert f'id="fig-{name}"><svg' in html
        assert all((figures / f"{name}.{ext}").is_file() for ext in ("svg", "pdf", "png", "csv"))
    with (figures / "length_bins.csv").open(newline="") as f:
        drawn = list(csv.DictReader(f))
    first = results["systems"][0]
    assert [float(r["micro_f1"]) for r in drawn if r["system"] == first["name"]] == pytest.approx(
        [b["micro_f1"] for b in first["clinibench"]["length_bins"]]
    )
    with (figures / "answers.csv").open(newline="") as f:
        rates = {r["system"]: float(r["value"]) for r in csv.DictReader(f)}
    assert rates == {s["name"]: s["clinibench"]["answers"]["valid_rate"] for s in results["systems"]}
    table = (out / "table.md").read_text(encoding="utf-8")
    bins_block = table.split("## Micro F1 by input length")[1].split("\n## ")[0]
    assert bins_block.count(" [") == 3 * len(results["systems"])  # every bin cell has its interval
    assert "## Answers (appendix A.3)" in (out / "table.md").read_text(encoding="utf-8")
    assert "codes / answer" in html


def _check_intervals(results: dict) -> None:
    """Macro intervals BCa, the rest percentile; each says whether its replicates sit on one side;
    every length bin with a score has an interval."""
    assert results["intervals"]["macro"] == "bca" and results["intervals"]["length_bins"] == "percentile"
    for system in results["systems"]:
        for name in results["headline_metrics"]:
            metric = system["metrics"][name]
            assert metric["one_sided"] in (True, False) and metric["ci"][0] <= metric["ci"][1]
        for b in system["clinibench"]["length_bins"]:
            lo, hi = b["ci"]["micro_f1"]
            assert 0 <= lo <= hi <= 1


def _check_length_bins(results: dict, test: dict[str, Instance], runs: list[str]) -> None:
    """Figure 5's bins recomputed from the files: lengths in the table-1 tokens, tertile edges,
    micro F1 over the vocabulary of the evaluated notes' gold codes."""
    from admitdx.tasks.clinibench.stats import tokens

    lengths = {i: len(tokens(inst.text)) for i, inst in test.items()}
    ordered = sorted(lengths.values())
    n = len(ordered)
    edges = sorted({ordered[-(-n // 3) - 1], ordered[-(-2 * n // 3) - 1]})
    assert results["length_bins"]["edges"] == edges
    vocabulary = {r.code for inst in test.values() for r in inst.references}
    for run in runs:
        preds = {p.instance_id: [it.code for it in p.items][:20] for p in load_predictions(Path(run))}
        entry = next(s for s in results["systems"] if s["predictions_dir"].endswith(Path(run).name))
        bins = entry["clinibench"]["length_bins"]
        assert sum(b["n"] for b in bins) == len(test)
        for b, (lo, hi) in zip(bins, zip([-1, *edges], [*edges, 10**9], strict=True), strict=True):
            ids = [i for i, length in lengths.items() if lo < length <= hi]
            gold = [{r.code for r in test[i].references} for i in ids]
            pred = [set(preds.get(i, [])) & vocabulary for i in ids]
            tp = sum(len(g & p) for g, p in zip(gold, pred, strict=True))
            total = sum(len(g) + len(p) for g, p in zip(gold, pred, strict=True))
            assert b["n"] == len(ids) and b["micro_f1"] == pytest.approx(2 * tp / total)


def _bin_counts(dataset: Path, edges: tuple[int, int]) -> list[int]:
    """Test notes per length bin, counted here in the table-1 tokens."""
    from admitdx.tasks.clinibench.stats import tokens

    lengths = [len(tokens(inst.text)) for inst in load_instances(dataset, split="test")]
    lo, hi = edges
    return [sum(n <= lo for n in lengths), sum(lo < n <= hi for n in lengths), sum(n > hi for n in lengths)]


def test_icd9_and_icd10_runs_averaged_as_table_2(synthetic_root: Path, hosp10: Path, tmp_path: Path) -> None:
    hosp9 = tmp_path / "hosp-icd9"
    _invoke("build", "clinibench", "--mimic", str(synthetic_root), "--out", str(hosp9), "--module", "hosp",
            "--icd-version", "9")  # fmt: skip
    scored = {}
    for name, dataset, bins in (("icd9", hosp9, "100,120"), ("icd10", hosp10, "tertiles")):
        _invoke("predict", "--dataset", str(dataset), "--system", "knn-vote", "--out", str(tmp_path / name))
        _invoke("score", "--dataset", str(dataset), "--predictions", str(tmp_path / name), "--out",
                str(tmp_path / f"score-{name}"), "--n-bootstrap", "20", "--length-bins", bins)  # fmt: skip
        scored[name] = json.loads((tmp_path / f"score-{name}" / "results.json").read_text())
    # fixed token edges: ≤ 100, 101–120, > 120, every test note in exactly one bin
    assert scored["icd9"]["length_bins"]["edges"] == [100, 120]
    assert scored["icd9"]["length_bins"]["labels"] == ["≤ 100", "101–120", "> 120"]
    bins9 = scored["icd9"]["systems"][0]["clinibench"]["length_bins"]
    assert [b["n"] for b in bins9] == _bin_counts(hosp9, (100, 120))
    _invoke("score-mean", str(tmp_path / "score-icd10"), str(tmp_path / "score-icd9"))
    mean = json.loads((tmp_path / "score-icd10" / "results.json").read_text())["version_mean"]
    table = (tmp_path / "score-icd10" / "table.md").read_text(encoding="utf-8")
    assert "Unweighted mean over ICD-10 and ICD-9 (table 2)" in table
    (system,) = mean["systems"]
    nine, ten = (scored[v]["systems"][0]["clinibench"] for v in ("icd9", "icd10"))
    assert scored["icd9"]["icd_versions"] == [9] and scored["icd10"]["icd_versions"] == [10]
    assert mean["systems"][system]["macro_f1"] == pytest.approx((nine["macro_f1"] + ten["macro_f1"]) / 2)
    _invoke("report", str(tmp_path / "score-icd10"))
    html = (tmp_path / "score-icd10" / "report.html").read_text(encoding="utf-8")
    assert "Unweighted mean over ICD-10 and ICD-9 (table 2)" in html
    assert f"{(nine['map'] + ten['map']) / 2:.3f}" in html


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
        fit = json.loads((run / "manifest.json").read_text())["outputs"]["fit"]
        if system == "tfidf-threshold":  # thresholds tuned on the dataset's own val split (A.2)
            n_val = sum(1 for i in load_instances(hosp10) if i.split == "val")
            assert fit["validation_source"] == "the dataset's val split" and fit["validation"] == n_val
            assert fit["fitted_on"] == sum(1 for i in load_instances(hosp10) if i.split == "train")
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
