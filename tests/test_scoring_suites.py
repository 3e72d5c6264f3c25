"""Each metric suite end to end through `admitdx score`, on hand-built datasets of tasks registered
here, against values computed by hand; and the task-blind parts of scoring (matcher refusal)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import Instance, Prediction, PredictionItem, Reference
from admitdx.jsonl import write_jsonl
from admitdx.tasks.dataset_writer import instance_schema
from admitdx.tasks.registry import register
from admitdx.tasks.spec import TaskSpec
from predict_manifests import write_predict_manifest


@dataclass(frozen=True)
class NoParams:
    pass


def _never_built(*args: Any, **kwargs: Any) -> dict[str, Any]:
    raise AssertionError("these datasets are written by hand")


def _spec(name: str, answer: str, suite: str, **kw: Any) -> TaskSpec:
    return register(
        TaskSpec(name, f"test task {name}", NoParams, _never_built, answer, suite,
                 instance_schema((), (), target=answer != "diagnoses"), **kw)  # type: ignore[arg-type]
    )  # fmt: skip


ACUITY = _spec("test-acuity", "category", "category", categories=("1", "2", "3"), ordinal=True)
PLAN = _spec("test-plan", "text", "text")
FINAL = _spec("test-final", "diagnoses", "final_diagnosis")
CODES = _spec("test-codes", "diagnoses", "clinibench")


def _score(tmp_path: Path, task: TaskSpec, instances: list[Instance], predictions: list[Prediction]) -> dict:
    ds, run = tmp_path / "ds", tmp_path / "sys"
    write_jsonl(ds / "instances.jsonl", (i.to_dict() for i in instances))
    write_jsonl(run / "predictions.jsonl", (p.to_dict() for p in predictions))
    write_predict_manifest(run, instances)
    args = ["score", "--dataset", str(ds), "--predictions", str(run), "--out", str(tmp_path / "out")]
    result = CliRunner().invoke(app, [*args, "--n-bootstrap", "50"])
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["task"] == task.name and results["suite"] == task.suite
    # headline and counts rows (CliniBench: and appendix A.3's answers and figure 5's length bins;
    # final diagnosis: and the CCSR/HCC rates where both codes have a category)
    assert (tmp_path / "out" / "table.md").read_text().count("| sys |") == (
        {"clinibench": 4, "final_diagnosis": 3}.get(task.suite, 2)
    )
    return results


def _inst(i: int, task: TaskSpec, subject: int, **kw: Any) -> Instance:
    return Instance(f"i{i}", subject, task.name, "test", {}, f"record {i}", kw.pop("references", []), **kw)


def _m(results: dict, name: str) -> float | None:
    return results["systems"][0]["metrics"][name]["value"]


def test_category_suite_accuracy_confusion_and_triage_rates(tmp_path: Path) -> None:
    gold, answers = ["1", "2", "3", "2"], ["1", "3", "2", None]
    instances = [
        _inst(i, ACUITY, subject, target=g)
        for i, (g, subject) in enumerate(zip(gold, [1, 1, 2, 3], strict=True))
    ]
    predictions = [
        Prediction(f"i{i}", "sys", [], answer=a, parse_error=None if a else "not one of 1, 2, 3")
        for i, a in enumerate(answers)
    ]
    r = _score(tmp_path, ACUITY, instances, predictions)
    assert _m(r, "accuracy") == 0.25
    assert _m(r, "under_triage") == 0.25  # recorded 2, predicted 3: less urgent
    assert _m(r, "over_triage") == 0.25  # recorded 3, predicted 2
    assert (_m(r, "predicted_share.2"), _m(r, "recorded_share.2"), _m(r, "recall.2")) == (0.25, 0.5, 0.0)
    confusion = r["systems"][0]["confusion"]
    assert confusion["predicted_labels"] == ["1", "2", "3", None]
    assert confusion["confusion"] == [[1, 0, 0, 0], [0, 0, 1, 1], [0, 1, 0, 0]]
    assert r["systems"][0]["counts"]["parse_errors"] == 1
    assert r["headline_metrics"][:3] == ["accuracy", "under_triage", "over_triage"]


def test_text_suite_rouge_per_part(tmp_path: Path) -> None:
    target = {"rule_out": "chest pain in a man", "plan": "aspirin now"}
    instances = [_inst(0, PLAN, 1, target=target), _inst(1, PLAN, 2, target=target)]
    answer = {"rule_out": "chest pain in a woman", "plan": "aspirin now"}
    r = _score(tmp_path, PLAN, instances, [Prediction("i0", "sys", [], answer=answer)])  # i1 missing
    # i0: 4 of 5 unigrams (P = R = F = 0.8), 3 of 4 bigrams, LCS 4; i1 has no answer and scores 0
    assert _m(r, "rule_out.rouge1_f1") == pytest.approx(0.8 / 2)
    assert _m(r, "rule_out.rouge2_f1") == pytest.approx(0.75 / 2)
    assert _m(r, "rule_out.rougeL_f1") == pytest.approx(0.8 / 2)
    assert _m(r, "plan.rouge1_f1") == pytest.approx(1.0 / 2)
    assert r["systems"][0]["counts"]["missing"] == 1


def _refs(*codes: str) -> list[Reference]:
    return [Reference(c, code=c, code_system="ICD-10-CM", seq_num=k) for k, c in enumerate(codes, start=1)]


def test_final_diagnosis_suite_first_coded_answer_against_main_and_any(tmp_path: Path) -> None:
    instances = [
        _inst(0, FINAL, 1, references=_refs("I214", "I10")),
        _inst(1, FINAL, 2, references=_refs("J189")),
        _inst(2, FINAL, 3, references=_refs("N390", "I10")),
    ]
    first = [PredictionItem("uncoded text"), PredictionItem("NSTEMI", code="I219")]
    predictions = [
        Prediction("i0", "sys", first),  # the first *coded* item counts
        Prediction("i1", "sys", [PredictionItem("hypertension", code="I10")]),
        Prediction("i2", "sys", [PredictionItem("hypertension", code="I10")]),
    ]
    r = _score(tmp_path, FINAL, instances, predictions)
    assert _m(r, "main.exact") == 0.0
    assert _m(r, "main.category3") == pytest.approx(1 / 3)  # I21 = I21
    assert _m(r, "any.exact") == pytest.approx(1 / 3)  # I10 is among i2's codes
    assert _m(r, "any.category3") == pytest.approx(2 / 3)


def test_clinibench_suite_ranks_the_systems_own_codes(tmp_path: Path) -> None:
    instances = [
        _inst(0, CODES, 1, references=_refs("I214", "I10", "E119")),
        _inst(1, CODES, 2, references=_refs("J189")),
    ]
    items = [
        PredictionItem("mi", code="I21.9"),
        PredictionItem("dm", code="E1165"),
        PredictionItem("pna", code="J189"),
    ]
    r = _score(tmp_path, CODES, instances, [Prediction("i0", "sys", items)])  # i1 missing
    # i0: gold {I21, I10, E11}, ranking I21 (hit), E11 (hit), J18: AP = (1/1 + 2/2) / 3; i1: AP 0
    assert _m(r, "clinibench.map") == pytest.approx((2 / 3) / 2)
    assert _m(r, "clinibench.main_diagnosis_accuracy") == 0.5
    # per label over {E11, I10, I21, J18}: F1 = 1, 0, 1, 0 (J18 predicted for i0, gold only in i1)
    assert _m(r, "clinibench.macro_f1") == 0.5
    assert r["systems"][0]["clinibench"]["n_labels"] == 4


def test_a_category_task_refuses_a_matcher(tmp_path: Path) -> None:
    ds, run = tmp_path / "ds", tmp_path / "sys"
    write_jsonl(ds / "instances.jsonl", [_inst(0, ACUITY, 1, target="1").to_dict()])
    write_jsonl(run / "predictions.jsonl", [Prediction("i0", "sys", [], answer="1").to_dict()])
    args = ["score", "--dataset", ds, "--predictions", run, "--out", tmp_path / "o", "--matcher", "exact"]
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code != 0 and "without a matcher" in str(result.exception)


def test_a_subset_dataset_says_so_in_results_table_and_report(tmp_path: Path) -> None:
    """The demo scores its LLM on a documented subset; the numbers must say they describe one."""
    from admitdx.runs import write_manifest

    ds, run = tmp_path / "ds", tmp_path / "sys"
    write_jsonl(ds / "instances.jsonl", [_inst(0, ACUITY, 1, target="1").to_dict()])
    cut = {"subset": "the first 1 test encounters of X", "trial": {"n": 1, "of": 4}}
    write_manifest(ds, stage="subset", inputs={}, outputs=cut)
    write_jsonl(run / "predictions.jsonl", [Prediction("i0", "sys", [], answer="1").to_dict()])
    write_predict_manifest(run, [_inst(0, ACUITY, 1, target="1")])
    out = tmp_path / "out"
    scored = CliRunner().invoke(
        app, ["score", "--dataset", str(ds), "--predictions", str(run), "--out", str(out)]
    )
    assert scored.exit_code == 0, scored.output
    assert json.loads((out / "results.json").read_text())["subset"] == "the first 1 test encounters of X"
    words = (
        "the first 1 test encounters of X: 1 scored of 4 in the benchmark set, not on the whole benchmark set"
    )
    assert f"> A subset: scored on {words}." in (out / "table.md").read_text()
    assert CliRunner().invoke(app, ["report", str(out)]).exit_code == 0
    page = (out / "report.html").read_text()
    assert f"These numbers are scored on {words}.</div>" in page and 'id="counts-legend"' in page
    assert CliRunner().invoke(app, ["report", str(out)]).exit_code == 0
    assert 'id="subset-note"' in (out / "report.html").read_text()
