"""ER-Reason's MIMIC-IV-ED family on the real open demo (222 ED stays, 64 patients) and, for the
one-liner (which needs MIMIC-IV-Note), on the synthetic root: built through `admitdx build`, run
through the real runner, scored through `admitdx score`.

Counts on the demo, written down from ``ed/edstays``, ``ed/triage`` and ``ed/diagnosis``:
acuity — 222 stays, 15 without a triage acuity → 207 instances (18 Immediate, 97 Emergent,
90 Urgent, 2 Less Urgent, 0 Non-Urgent); disposition — all 222 (150 ADMITTED, 60 HOME,
5 TRANSFER, 2 LEFT WITHOUT BEING SEEN, 2 LEFT AGAINST MEDICAL ADVICE, 2 OTHER, 1 ELOPED);
final diagnosis — the 221 stays with an ED diagnosis, 545 coded rows (249 ICD-9, 296 ICD-10).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import Instance, Prediction, load_instances
from admitdx.systems.config import SystemChoice
from admitdx.systems.runner import run_predictions
from admitdx.tasks.erreason.levels import ACUITY_LEVELS, MIMIC_DISPOSITIONS

RUNNER = CliRunner()


def _build(task: str, root: Path, out: Path) -> Path:
    result = RUNNER.invoke(app, ["build", task, "--mimic", str(root), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def built(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("er-reason")
    return {t: _build(f"er-reason-{t}", demo_dir, base / t) for t in ("acuity", "disposition", "diagnosis")}


@pytest.fixture(scope="module")
def one_liner(synthetic_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build("er-reason-one-liner", synthetic_root, tmp_path_factory.mktemp("er-one-liner") / "ds")


class _Recorder:
    """A system that keeps what the runner hands it."""

    name = "er-recorder"
    seen: ClassVar[dict[str, list[Instance]]] = {}

    def fit(self, train: list[Instance]) -> None:
        type(self).seen["fit"] = list(train)

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        todo = list(instances)
        type(self).seen["predict"] = todo
        for inst in todo:
            yield Prediction(inst.id, self.name, [])


def _received(dataset: Path, out: Path) -> tuple[list[Instance], list[Instance]]:
    from admitdx.systems import register, registered

    if "er-recorder" not in registered():
        register("er-recorder", "records what a system is given", answers=("diagnoses", "category", "text"))(
            _Recorder
        )
    _Recorder.seen = {}
    run_predictions(dataset, SystemChoice("rec", "er-recorder"), out, show_progress=False)
    return _Recorder.seen["fit"], _Recorder.seen["predict"]


def test_demo_counts(built: dict[str, Path]) -> None:
    acuity = load_instances(built["acuity"])
    assert len(acuity) == 207
    assert Counter(i.target for i in acuity) == {
        "Immediate": 18,
        "Emergent": 97,
        "Urgent": 90,
        "Less Urgent": 2,
    }
    disposition = load_instances(built["disposition"])
    assert len(disposition) == 222
    assert Counter(i.target for i in disposition) == {
        "ADMITTED": 150,
        "HOME": 60,
        "TRANSFER": 5,
        "LEFT WITHOUT BEING SEEN": 2,
        "LEFT AGAINST MEDICAL ADVICE": 2,
        "OTHER": 2,
        "ELOPED": 1,
    }
    diagnosis = load_instances(built["diagnosis"])
    assert len(diagnosis) == 221
    refs = [r for i in diagnosis for r in i.references]
    assert len(refs) == 545
    assert Counter(r.code_system for r in refs) == {"ICD-9-CM": 249, "ICD-10-CM": 296}
    assert all(min(r.seq_num for r in i.references) == 1 for i in diagnosis)
    manifest = json.loads((built["acuity"] / "manifest.json").read_text())
    assert manifest["outputs"]["counts"]["excluded_no_target"] == 15
    # one patient split for the family: a subject is in the same split in every task
    splits = {i.subject_id: i.split for i in disposition}
    assert all(splits[i.subject_id] == i.split for i in acuity + diagnosis)


def test_acuity_never_reaches_the_acuity_system(built: dict[str, Path], tmp_path: Path) -> None:
    train, test = _received(built["acuity"], tmp_path / "run")
    assert len(test) == 117 and len(train) == 90
    assert all(i.target is None and "acuity" not in i.meta for i in test)
    for inst in test:
        assert "acuity" not in inst.text.lower() and not re.search(r"\bESI\b", inst.text, re.I)
        assert set(inst.sections) == {"demographics", "chief_complaint", "triage"}
    # the same stay in the disposition task does show its acuity (an input there)
    disposition = {i.stay_id: i for i in load_instances(built["disposition"])}
    shown = [i for i in test if "acuity" in (disposition[i.stay_id].sections["triage"] or "")]
    assert len(shown) == len(test)  # the acuity exists for every one of them; only this task hides it
    assert all(i.target in ("Immediate", "Emergent", "Urgent", "Less Urgent") for i in train)


def test_disposition_is_redacted(built: dict[str, Path], tmp_path: Path) -> None:
    _, test = _received(built["disposition"], tmp_path / "run")
    assert len(test) == 124
    for inst in test:
        assert inst.target is None and "disposition" not in inst.meta
        assert inst.hadm_id is None  # an admission id would say "admitted"
        # section values, not headers ("Home meds"), and not the arrival complaint ("Transfer" in)
        values = "\n".join(v for k, v in inst.sections.items() if v and k != "chief_complaint")
        named = [d for d in MIMIC_DISPOSITIONS if d != "OTHER" and re.search(rf"\b{d}\b", values, re.I)]
        assert not named, inst.text
        assert "From " not in inst.text  # no admission location, which exists only for admissions


def test_diagnosis_references_not_in_input(built: dict[str, Path], tmp_path: Path) -> None:
    gold = {i.id: i for i in load_instances(built["diagnosis"])}
    _, test = _received(built["diagnosis"], tmp_path / "run")
    assert len(test) == 123
    for inst in test:
        assert inst.references == [] and inst.target is None
        refs = gold[inst.id].references
        assert not any(r.code in inst.text for r in refs)
        # a title may be the chief complaint itself (a symptom-coded visit: "Weakness"), never elsewhere
        rest = "\n".join(v for k, v in inst.sections.items() if v and k != "chief_complaint").casefold()
        assert not any(r.ed_title and r.ed_title.casefold() in rest for r in refs)


def test_one_liner_reference_not_in_input(one_liner: Path, tmp_path: Path) -> None:
    everything = load_instances(one_liner)
    assert len(everything) == 93
    gold = {i.id: i.target for i in everything}
    _, test = _received(one_liner, tmp_path / "run")
    for inst in test:
        assert inst.target is None
        assert isinstance(gold[inst.id], str) and gold[inst.id] not in inst.text
        assert inst.sections["previous_discharge_summary"] and "who presents with" in gold[inst.id]


def _predict(dataset: Path, system: str, out: Path) -> Path:
    args = ["predict", "--dataset", str(dataset), "--system", system, "--out", str(out)]
    result = RUNNER.invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def _score(dataset: Path, runs: list[Path], out: Path) -> dict:
    args = ["score", "--dataset", str(dataset), "--predictions", *map(str, runs), "--out", str(out)]
    result = RUNNER.invoke(app, [*args, "--n-bootstrap", "50"])
    assert result.exit_code == 0, result.output
    return {s["name"]: s for s in json.loads((out / "results.json").read_text())["systems"]}


def test_category_baselines_end_to_end(built: dict[str, Path], tmp_path: Path) -> None:
    runs = [_predict(built["disposition"], s, tmp_path / s) for s in ("majority", "triage-classifier")]
    scores = _score(built["disposition"], runs, tmp_path / "score")
    test = load_instances(built["disposition"], "test")
    admitted = sum(i.target == "ADMITTED" for i in test) / len(test)
    majority = scores["majority"]["metrics"]
    assert majority["accuracy"]["value"] == pytest.approx(admitted)  # the training majority is ADMITTED
    assert majority["predicted_share.HOME"]["value"] == 0.0
    assert majority["recorded_share.HOME"]["value"] == pytest.approx(
        sum(i.target == "HOME" for i in test) / len(test)
    )
    classifier = scores["triage-classifier"]["metrics"]
    assert 0 < classifier["predicted_share.HOME"]["value"] < 1  # it does predict discharges


def test_final_diagnosis_baselines_end_to_end(built: dict[str, Path], tmp_path: Path) -> None:
    runs = [_predict(built["diagnosis"], s, tmp_path / s) for s in ("code-frequency", "code-tfidf")]
    scores = _score(built["diagnosis"], runs, tmp_path / "score")
    train = load_instances(built["diagnosis"], "train")
    test = load_instances(built["diagnosis"], "test")
    mains = Counter(next(r.code for r in i.references if r.seq_num == 1) for i in train)
    top = min(mains, key=lambda c: (-mains[c], c))
    any_hit = sum(any(r.code == top for r in i.references) for i in test) / len(test)
    freq = scores["code-frequency"]["metrics"]
    assert freq["any.exact"]["value"] == pytest.approx(any_hit)
    predictions = [json.loads(line) for line in (tmp_path / "code-tfidf" / "predictions.jsonl").open()]
    assert all(p["items"] and p["items"][0]["code"] for p in predictions)


def test_one_liner_knn_end_to_end(one_liner: Path, tmp_path: Path) -> None:
    run = _predict(one_liner, "knn-text", tmp_path / "knn")
    scores = _score(one_liner, [run], tmp_path / "score")
    metrics = scores["knn-text"]["metrics"]
    # synthetic one-liners share a template ("Mr./Ms. ___ is a N year old ... who presents with ..."),
    # so a copied neighbour overlaps strongly but not fully
    assert 0.4 < metrics["answer.rouge1_f1"]["value"] < 1.0


@pytest.mark.llm
def test_local_llm_answers_acuity_with_an_allowed_level(built: dict[str, Path], tmp_path: Path) -> None:
    """The real embedded llama.cpp server (SmolLM2-135M: the path, not clinical skill) on three test
    stays: guided decoding over the five level names, every answer read exactly and scored."""
    from admitdx.llm.local_server import llama_cpp_available

    if not llama_cpp_available():
        pytest.skip("llama-cpp-python not installed (admitdx[local] extra)")
    out = tmp_path / "llm"
    args = ["predict", "--dataset", str(built["acuity"]), "--system", "llm", "--set", "base_url=local"]
    result = RUNNER.invoke(app, [*args, "--limit", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    predictions = [json.loads(line) for line in (out / "predictions.jsonl").open()]
    assert len(predictions) == 3
    assert all(p["parse_error"] is None and p["answer"] in ACUITY_LEVELS for p in predictions)
    score = tmp_path / "score"
    args = ["score", "--dataset", str(built["acuity"]), "--predictions", str(out), "--out", str(score)]
    result = RUNNER.invoke(app, [*args, "--n-bootstrap", "20", "--allow-incomplete"])
    assert result.exit_code == 0, result.output
