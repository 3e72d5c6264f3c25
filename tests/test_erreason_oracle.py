"""ER-Reason metrics and baselines against values computed by hand, scored through `admitdx score`
on the registered ER-Reason specs: acuity (accuracy, confusion, under/over-triage and the
"Less Urgent" vs "Urgent" parse), one-liner ROUGE, final-diagnosis match levels; the baselines on
hand-made training sets; the one-liner reference extraction."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import Instance, Prediction, PredictionItem, Reference
from admitdx.errors import UsageError
from admitdx.jsonl import write_jsonl
from admitdx.systems import create
from admitdx.tasks.answers import read_category
from admitdx.tasks.erreason.levels import ACUITY_LEVELS
from admitdx.tasks.erreason.one_liner import first_sentence, reference_one_liner
from admitdx.tasks.registry import get_task
from predict_manifests import write_predict_manifest


def _score(
    tmp_path: Path, instances: list[Instance], predictions: list[Prediction], *extra: str
) -> dict[str, Any]:
    ds, run = tmp_path / "ds", tmp_path / "sys"
    write_jsonl(ds / "instances.jsonl", (i.to_dict() for i in instances))
    write_jsonl(run / "predictions.jsonl", (p.to_dict() for p in predictions))
    write_predict_manifest(run, instances)
    args = ["score", "--dataset", str(ds), "--predictions", str(run), "--out", str(tmp_path / "out")]
    result = CliRunner().invoke(app, [*args, "--n-bootstrap", "50", *extra])
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / "out" / "results.json").read_text())


def _inst(i: int, task: str, **kw: Any) -> Instance:
    return Instance(f"i{i}", 100 + i, task, kw.pop("split", "test"), {}, kw.pop("text", f"record {i}"),
                    kw.pop("references", []), **kw)  # fmt: skip


def test_less_urgent_is_never_read_as_urgent() -> None:
    assert "Urgent" in "Less Urgent"  # why the authors' substring parse gets it wrong
    assert read_category({"answer": "Less Urgent"}, ACUITY_LEVELS).answer == "Less Urgent"
    assert read_category({"answer": " less   urgent "}, ACUITY_LEVELS).answer == "Less Urgent"
    assert read_category({"answer": "Non-Urgent"}, ACUITY_LEVELS).answer == "Non-Urgent"
    wrapped = read_category({"answer": "Urgent (ESI 3)"}, ACUITY_LEVELS)
    assert wrapped.answer is None and wrapped.error


def test_acuity_accuracy_confusion_and_triage_rates(tmp_path: Path) -> None:
    task = "er-reason-acuity"
    gold = ["Urgent", "Emergent", "Less Urgent", "Immediate", "Less Urgent"]
    raw = ["Urgent", "Urgent", "Emergent", "Urgent (ESI 3)", "Less Urgent"]
    instances = [_inst(i, task, target=g) for i, g in enumerate(gold)]
    predictions = []
    for i, r in enumerate(raw):
        read = read_category({"answer": r}, ACUITY_LEVELS)
        predictions.append(Prediction(f"i{i}", "sys", [], answer=read.answer, parse_error=read.error))
    results = _score(tmp_path, instances, predictions)
    system = results["systems"][0]
    m = {k: v["value"] for k, v in system["metrics"].items()}
    # i0 right; i1 Emergent→Urgent under-triage; i2 Less Urgent→Emergent over-triage;
    # i3 unparseable (wrong, neither); i4 Less Urgent read exactly, right
    assert m["accuracy"] == pytest.approx(2 / 5)
    assert m["under_triage"] == pytest.approx(1 / 5)
    assert m["over_triage"] == pytest.approx(1 / 5)
    assert m["recall.Less Urgent"] == pytest.approx(1 / 2)
    assert m["predicted_share.Urgent"] == pytest.approx(2 / 5)
    assert m["recorded_share.Less Urgent"] == pytest.approx(2 / 5)
    confusion = system["confusion"]
    assert confusion["labels"] == list(ACUITY_LEVELS) and confusion["predicted_labels"][-1] is None
    assert confusion["confusion"] == [
        [0, 0, 0, 0, 0, 1],  # Immediate → unparseable
        [0, 0, 1, 0, 0, 0],  # Emergent → Urgent
        [0, 0, 1, 0, 0, 0],  # Urgent → Urgent
        [0, 1, 0, 1, 0, 0],  # Less Urgent → Emergent, Less Urgent
        [0, 0, 0, 0, 0, 0],
    ]
    assert system["counts"]["parse_errors"] == 1
    # the report draws the same matrix as a heatmap, and per-class recall as bars
    figures = tmp_path / "figures"
    result = CliRunner().invoke(app, ["report", str(tmp_path / "out"), "--figures", str(figures)])
    assert result.exit_code == 0, result.output
    with (figures / "confusion_0.csv").open() as f:
        cells = {(r["recorded"], r["predicted"]): int(r["n"]) for r in csv.DictReader(f)}
    assert cells[("Less Urgent", "Emergent")] == 1 and cells[("Immediate", "unreadable")] == 1
    assert sum(cells.values()) == 5
    assert (figures / "per_class_recall.svg").is_file()
    assert 'id="fig-confusion_0"' in (tmp_path / "out" / "report.html").read_text()
    # the authors' rule (acuity.py, disposition.py): the unreadable answer leaves the denominator
    excluded = _score(tmp_path / "exclude", instances, predictions, "--unparseable", "exclude")["systems"][0]
    m = {k: v["value"] for k, v in excluded["metrics"].items()}
    assert m["accuracy"] == pytest.approx(2 / 4) and m["under_triage"] == pytest.approx(1 / 4)
    assert m["recorded_share.Less Urgent"] == pytest.approx(2 / 4) and m.get("recall.Immediate") is None
    assert excluded["excluded_unparseable"] == 1 and excluded["counts"]["parse_errors"] == 1
    assert sum(map(sum, excluded["confusion"]["confusion"])) == 4


def test_one_liner_rouge(tmp_path: Path) -> None:
    instances = [_inst(0, "er-reason-one-liner", target="chest pain")]
    results = _score(tmp_path, instances, [Prediction("i0", "sys", [], answer="chest pain today")])
    m = {k: v["value"] for k, v in results["systems"][0]["metrics"].items()}
    # unigrams P 2/3 R 1 → F 0.8; bigrams P 1/2 R 1 → F 2/3; LCS 2 → as unigrams
    assert m["answer.rouge1_f1"] == pytest.approx(0.8)
    assert m["answer.rouge2_f1"] == pytest.approx(2 / 3)
    assert m["answer.rougeL_f1"] == pytest.approx(0.8)
    # the one-liner has no concept recall: asking for an extractor is refused, not silently ignored
    ds, run = tmp_path / "ds", tmp_path / "sys"
    args = ["score", "--dataset", str(ds), "--predictions", str(run), "--out", str(tmp_path / "again")]
    refused = CliRunner().invoke(app, [*args, "--concept-extractor", "llm_judge"])
    assert isinstance(refused.exception, UsageError) and "ROUGE only" in str(refused.exception)
    # an unreadable one-liner: 0 by default, left out of the mean with --unparseable exclude
    two = [*instances, _inst(1, "er-reason-one-liner", target="fever")]
    answers = [
        Prediction("i0", "sys", [], answer="chest pain today"),
        Prediction("i1", "sys", [], parse_error="x"),
    ]
    wrong = _score(tmp_path / "w", two, answers)["systems"][0]
    excluded = _score(tmp_path / "x", two, answers, "--unparseable", "exclude")["systems"][0]
    assert wrong["metrics"]["answer.rouge1_f1"]["value"] == pytest.approx(0.4)
    assert excluded["metrics"]["answer.rouge1_f1"]["value"] == pytest.approx(0.8)
    assert excluded["excluded_unparseable"] == 1


def test_unparseable_rule_is_refused_where_a_suite_has_none(tmp_path: Path) -> None:
    """--unparseable is the category and text suites' rule; the final-diagnosis suite refuses it."""
    inst = _inst(0, "er-reason-diagnosis", references=[Reference("Syncope", code="R55", seq_num=1)])
    ds, run = tmp_path / "ds", tmp_path / "sys"
    write_jsonl(ds / "instances.jsonl", [inst.to_dict()])
    write_jsonl(run / "predictions.jsonl", [Prediction("i0", "sys", [], parse_error="x").to_dict()])
    args = ["score", "--dataset", str(ds), "--predictions", str(run), "--out", str(tmp_path / "out")]
    refused = CliRunner().invoke(app, [*args, "--unparseable", "exclude"])
    assert isinstance(refused.exception, UsageError) and "not final_diagnosis" in str(refused.exception)


def _ref(code: str, seq: int, system: str = "ICD-10-CM") -> Reference:
    return Reference(code, code=code, code_system=system, seq_num=seq, ed_title=code)


def test_final_diagnosis_levels(tmp_path: Path) -> None:
    task = "er-reason-diagnosis"
    instances = [
        _inst(0, task, references=[_ref("I214", 1), _ref("E119", 2)]),  # predicted I219: same 3-char/CCSR/HCC
        _inst(1, task, references=[_ref("J181", 1), _ref("J189", 2)]),  # predicted J189: any-exact only
        _inst(2, task, references=[_ref("4280", 1, "ICD-9-CM")]),  # predicted R079: nothing
    ]
    predictions = [
        Prediction("i0", "sys", [PredictionItem("I219 name", code="I219")]),  # a code the system assigned
        Prediction("i1", "sys", [PredictionItem("J18.9 Pneumonia, unspecified organism")]),  # "CODE NAME"
        Prediction(
            "i2", "sys", [PredictionItem("Chest pain"), PredictionItem("R07.9 Chest pain")]
        ),  # first coded
    ]
    m = {k: v["value"] for k, v in _score(tmp_path, instances, predictions)["systems"][0]["metrics"].items()}
    assert m["main.exact"] == 0.0
    assert m["main.category3"] == pytest.approx(2 / 3)
    assert m["main.ccsr"] == pytest.approx(2 / 3)  # I21.x share CIR009; J18.1 and J18.9 share RSP002
    assert m["main.hcc"] == pytest.approx(1 / 3)  # acute MI maps to an HCC, pneumonia J18.1/J18.9 to none
    assert m["any.exact"] == pytest.approx(1 / 3)


def test_majority_and_classifier_on_hand_data() -> None:
    task = get_task("er-reason-disposition")
    train = [
        _inst(i, task.name, split="train", target=t, meta={"triage_heartrate": hr, "age": 50, "sex": "F"})
        for i, (t, hr) in enumerate([("ADMITTED", 130), ("ADMITTED", 125), ("ADMITTED", 120), ("HOME", 70),
                                     ("HOME", 75)])
    ]  # fmt: skip
    majority = create("majority", task=task)
    majority.fit(train)
    assert {p.answer for p in majority.predict(train)} == {"ADMITTED"}
    classifier = create("triage-classifier", task=task)
    classifier.fit(train)
    test = [
        _inst(10, task.name, meta={"triage_heartrate": 128}),
        _inst(11, task.name, meta={"triage_heartrate": 68}),
    ]
    assert [p.answer for p in classifier.predict(test)] == ["ADMITTED", "HOME"]
    with pytest.raises(
        UsageError, match="kind majority answers category; task er-reason-one-liner asks for text"
    ):
        create("majority", task=get_task("er-reason-one-liner"))  # no text from a class prior


def test_knn_and_code_baselines_on_hand_data() -> None:
    text_task = get_task("er-reason-one-liner")
    train = [
        _inst(0, text_task.name, split="train", text="copd exacerbation wheeze", target="COPD one-liner"),
        _inst(1, text_task.name, split="train", text="ankle sprain twisted", target="ankle one-liner"),
    ]
    knn = create("knn-text", task=text_task)
    knn.fit(train)
    assert next(knn.predict([_inst(5, text_task.name, text="wheeze again")])).answer == "COPD one-liner"
    dx = get_task("er-reason-diagnosis")
    train = [
        _inst(0, dx.name, split="train", text="chest pain diaphoresis", references=[_ref("I214", 1)]),
        _inst(1, dx.name, split="train", text="chest pain radiating", references=[_ref("I214", 1)]),
        _inst(2, dx.name, split="train", text="cough fever", references=[_ref("J189", 1), _ref("I214", 2)]),
    ]
    freq = create("code-frequency", task=dx)
    freq.fit(train)
    item = next(freq.predict([_inst(9, dx.name)])).items[0]
    assert (item.code, item.score) == ("I214", pytest.approx(2 / 3))  # main codes only: J189 is main once
    tfidf = create("code-tfidf", task=dx, k=1)
    tfidf.fit(train)
    assert next(tfidf.predict([_inst(9, dx.name, text="fever and cough")])).items[0].code == "J189"


def test_one_liner_reference_extraction() -> None:
    note = (
        "Chief Complaint:\nSOB\n \nHistory of Present Illness:\n___ is a 67 y.o. M with CHF, HTN who "
        "presents "
        "with dyspnea. He was well until ___.\n \nPast Medical History:\n- CHF\n"
    )
    assert reference_one_liner(note) == "___ is a 67 y.o. M with CHF, HTN who presents with dyspnea."
    assert first_sentence("Dr. ___ saw her. Then left.") == "Dr. ___ saw her."
    assert reference_one_liner("History of Present Illness:\n___.\n \n") is None  # a stub, not a one-liner
    assert reference_one_liner("no hpi here") is None


@pytest.mark.parametrize(
    "name",
    [
        "er-reason-acuity",
        "er-reason-disposition",
        "er-reason-diagnosis",
        "er-reason-one-liner",
        "er-reason-release-acuity",
        "er-reason-release-one-liner",
        "er-reason-release-planning",
        "er-reason-release-diagnosis",
        "er-reason-release-disposition",
    ],
)
def test_each_task_prompt_renders_with_its_answer_set(name: str) -> None:
    from admitdx.llm.prompts import load_prompt

    task = get_task(name)
    template = load_prompt(task.prompt, task.prompt_dir)
    exemplar = {"record": "EXEMPLAR", "answer": '{"answer": "x"}'}
    messages = template.render(
        record="THE RECORD", max_items=1, reasoning=True, graded=False, exemplars=[exemplar],
        categories=task.categories,
    )  # fmt: skip
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert "THE RECORD" in messages[-1]["content"] and "reason" in messages[0]["content"].lower()
    assert all(f"'{c}'" in messages[-1]["content"] for c in task.categories)  # every allowed answer listed
