"""ER-Reason planning answered by an LLM: by default in three calls, each part with the paper's
inputs (tables 11–13: the treatment plan alone sees the ED presentation), or with ``part_calls: one``
as one JSON object with the three parts (guided decoding over a schema with rule_out,
decision_factors, treatment_plan), read tolerantly; either way stored as
``Prediction.answer = {part: text}`` — the shape the text suite scores per part — or counted as
unparseable. The server test runs the real embedded llama.cpp server on one test encounter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import Instance, Prediction, load_instances
from admitdx.llm.client import Completion
from admitdx.synthetic.erreason import generate_release
from admitdx.systems.llm import LLMPredictor
from admitdx.tasks.answers import read_text, text_parts, text_schema
from admitdx.tasks.registry import get_task

RUNNER = CliRunner()
PARTS = ("rule_out", "decision_factors", "treatment_plan")
PLANNING = get_task("er-reason-release-planning")


def test_planning_schema_has_the_three_parts_in_the_papers_order() -> None:
    assert text_parts(PLANNING.schema) == PARTS
    assert text_parts(get_task("er-reason-release-one-liner").schema) == ()
    schema = text_schema(parts=PARTS, reasoning=True)
    assert list(schema["properties"]) == ["reasoning", *PARTS]  # reasoning is generated first
    assert schema["required"] == ["reasoning", *PARTS] and schema["additionalProperties"] is False
    assert text_schema() == {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("value", "answer", "error"),
    [
        (
            {"rule_out": " PE, ACS ", "decision_factors": "D-dimer", "treatment_plan": "admit"},
            {"rule_out": "PE, ACS", "decision_factors": "D-dimer", "treatment_plan": "admit"},
            None,
        ),
        (  # a server that ignored the schema: other spellings of the keys, a list for one part
            {"Rule_Out": "PE", "Decision Factors": ["D-dimer", " CTA "], "treatment-plan": "admit", "x": 1},
            {"rule_out": "PE", "decision_factors": "D-dimer; CTA", "treatment_plan": "admit"},
            None,
        ),
        (
            {"rule_out": "PE", "decision_factors": "", "treatment_plan": 3},
            None,
            "lacks decision_factors, treatment_plan",
        ),
        ({"answer": "PE; D-dimer; admit"}, None, "lacks rule_out, decision_factors, treatment_plan"),
        (["PE", "D-dimer", "admit"], None, "is not an object with rule_out"),
    ],
)
def test_parts_are_read_tolerantly_or_counted(value: object, answer: object, error: str | None) -> None:
    read = read_text(value, PARTS)
    assert read.answer == answer
    assert (read.error is None) if error is None else (error in (read.error or ""))


def _done(raw: str, parsed: object) -> Completion:
    return Completion(raw=raw, parsed=parsed, parse_error=None, usage=None, latency_s=None, cached=False)


def test_llm_system_asks_for_and_reads_the_parts() -> None:
    """The LLM system's schema and reading for planning, on completions as a server returns them
    (no server needed: the request is built and a completion read back)."""
    system = LLMPredictor(task=PLANNING, part_calls="one", base_url="http://127.0.0.1:9/v1", model="m")
    assert list(system.schema["properties"]) == list(PARTS)
    inst = Instance("p1", 1, PLANNING.name, "test", {}, "Chief complaint: chest pain", [])
    messages = system.request(inst).messages
    assert "DIFFERENTIAL QUESTION" in messages[0]["content"] and "treatment_plan" in messages[-1]["content"]
    raw = json.dumps({"rule_out": "ACS", "decision_factors": "troponin", "treatment_plan": "aspirin"})
    good = system.to_prediction(inst, _done(raw, json.loads(raw)))
    assert good.answer == {"rule_out": "ACS", "decision_factors": "troponin", "treatment_plan": "aspirin"}
    assert good.parse_error is None
    half = system.to_prediction(inst, _done("{}", {"rule_out": "ACS"}))
    assert half.answer is None and half.parse_error == "the answer lacks decision_factors, treatment_plan"


def test_few_shot_exemplar_shows_the_three_parts() -> None:
    """A planning exemplar is shown as the answer object the model must write (all three parts)."""
    system = LLMPredictor(
        task=PLANNING, prompt="few-shot", k=1, part_calls="one", base_url="http://127.0.0.1:9/v1", model="m"
    )
    target = {"rule_out": "ACS, PE", "decision_factors": "troponin, D-dimer", "treatment_plan": "aspirin"}
    system.fit(
        [Instance("t1", 2, PLANNING.name, "train", {}, "Chief complaint: chest pain", [], target=target)]
    )
    inst = Instance("p1", 1, PLANNING.name, "test", {}, "Chief complaint: chest pressure", [])
    messages = system.request(inst).messages
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert json.loads(messages[2]["content"]) == target


SECTIONS = {
    "demographics": "Age 70, Sex Male",
    "chief_complaint": "Syncope",
    "one_liner": "70 y.o. male with h/o hypertension presenting with syncope.",
    "previous_notes": "[Discharge Summary, 2020]\npneumonia",
    "ed_presentation": "HPI: passed out at church. Pulse 48.",
}


def test_each_part_is_asked_in_its_own_call_with_the_papers_inputs() -> None:
    """Tables 11–13: rule-out and decision factors see demographics, chief complaint, one-liner and
    past notes; the treatment plan also the ED presentation. Each call has its own question and a
    one-text schema; the three answers join into {part: text}, a bad one into a counted parse error."""
    from admitdx.systems.part_calls import _joined

    system = LLMPredictor(task=PLANNING, base_url="http://127.0.0.1:9/v1", model="m")
    assert system.part_calls == "per-part" and system.manifest_inputs()["part_calls"] == "per-part"
    inst = Instance("p1", 1, PLANNING.name, "test", SECTIONS, "", [])
    asked = {part: system.part_request(inst, part) for part in PARTS}
    for part, request in asked.items():
        user = request.messages[-1]["content"]
        assert ("Pulse 48" in user) == (part == "treatment_plan") and "presenting with syncope" in user
        assert request.schema["required"] == ["answer"]
    assert "DIFFERENTIAL DIAGNOSIS" in asked["rule_out"].messages[-1]["content"]
    assert "DECISION FACTORS" not in asked["rule_out"].messages[0]["content"]
    assert "MEDICAL DECISION FACTORS" in asked["decision_factors"].messages[-1]["content"]
    assert "TREATMENT PLAN" in asked["treatment_plan"].messages[0]["content"]
    done = {p: _done(json.dumps({"answer": p.upper()}), {"answer": p.upper()}) for p in PARTS}
    joined = _joined(inst, system.name, PARTS, done)
    assert joined.answer == {p: p.upper() for p in PARTS} and joined.parse_error is None
    done["decision_factors"] = _done("oops", {"answer": ""})
    bad = _joined(inst, system.name, PARTS, done)
    assert bad.answer is None and bad.parse_error == "decision_factors: the answer has no text"


@pytest.fixture(scope="module")
def planning(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("planning-llm")
    release = generate_release(base / "release", encounters=40, seed=2, rationale_share=0.5)
    out = base / "planning"
    args = ["build", "er-reason", "--task", "planning", "--erreason", str(release), "--out", str(out)]
    result = RUNNER.invoke(app, [*args, "--note-chars", "200"])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.llm
def test_local_llm_planning_answers_three_parts_or_is_counted(planning: Path, tmp_path: Path) -> None:
    """SmolLM2-135M (the path, not clinical skill) on one test encounter, three calls: it holds
    exactly the three parts as non-empty texts, or has no answer and a parse error; scoring reads
    the parts and counts the unparseable ones."""
    from admitdx.llm.local_server import llama_cpp_available

    if not llama_cpp_available():
        pytest.skip("llama-cpp-python not installed (admitdx[local] extra)")
    out = tmp_path / "llm"
    settings = ["base_url=local", "max_input_chars=800", "max_tokens=120", "local_n_ctx=2048"]
    args = ["predict", "--dataset", str(planning), "--system", "llm", "--limit", "1", "--out", str(out)]
    result = RUNNER.invoke(app, [*args, *(a for s in settings for a in ("--set", s))])
    assert result.exit_code == 0, result.output
    predictions = [Prediction.from_dict(json.loads(line)) for line in (out / "predictions.jsonl").open()]
    assert len(predictions) == 1
    samples = [json.loads(line) for line in (out / "samples.jsonl").open()]
    assert len(samples) == 3  # one logged request per part
    for p in predictions:
        if p.parse_error is None:
            assert isinstance(p.answer, dict) and tuple(p.answer) == PARTS
            assert all(isinstance(v, str) and v.strip() for v in p.answer.values())
        else:
            assert p.answer is None and p.raw is not None
    score = tmp_path / "score"
    args = ["score", "--dataset", str(planning), "--predictions", str(out), "--out", str(score)]
    result = RUNNER.invoke(app, [*args, "--n-bootstrap", "20", "--allow-incomplete"])
    assert result.exit_code == 0, result.output
    system = json.loads((score / "results.json").read_text())["systems"][0]
    assert system["counts"]["parse_errors"] == sum(p.parse_error is not None for p in predictions)
    assert all(f"{part}.rouge1_f1" in system["metrics"] for part in PARTS)
    tests = [i for i in load_instances(planning) if i.split == "test"]
    assert len(tests) >= 1
