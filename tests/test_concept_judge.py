"""LLM-judged concept recall: validation of the judge's two answers, scoring from hand-written
judgements (hand-computed recall, refusal of judgements made on other texts), and the real path
through the local llama.cpp server and `admitdx judge-concepts` → `admitdx score`.

The server test checks the path (prompts → schema-constrained JSON → validated lists → file →
score → cache) and counts unreadable answers; SmolLM2-135M's clinical judgements are not asserted.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest
from tests.planning_data import score, write_answers, write_planning_run
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.errors import UsageError
from admitdx.jsonl import read_jsonl, write_jsonl
from admitdx.llm.local_server import LocalServer
from admitdx.matching.concept_judge import cover_schema, read_concepts, read_covered
from admitdx.matching.concept_judgements import judgements_path
from admitdx.runs import sha256_text

JUDGED = ("--concept-extractor", "llm_judge")
TARGETS = [
    {
        "rule_out": "Pulmonary embolism, pneumonia, acute coronary syndrome.",
        "decision_factors": "Tachycardia and hypoxia after a long flight.",
        "treatment_plan": "CT angiography of the chest, start heparin, admit to telemetry.",
    },
    {
        "rule_out": "Appendicitis, ovarian torsion.",
        "decision_factors": "Right lower quadrant pain with fever.",
        "treatment_plan": "CT abdomen, IV fluids, surgical consult.",
    },
]
ANSWERS = [
    {
        "rule_out": "PE versus pneumonia",
        "decision_factors": "Hypoxic and tachycardic",
        "treatment_plan": "CTA chest and heparin",
    },
    {
        "rule_out": "Appendicitis",
        "decision_factors": "RLQ pain",
        "treatment_plan": "CT abdomen, IV fluids, surgical consult.",
    },
]


def test_listing_and_covering_answers_are_validated() -> None:
    concepts, dropped = read_concepts(
        {"concepts": ["Pulmonary embolism", " pneumonia ", "PULMONARY EMBOLISM", "", "...", 3]}
    )
    assert concepts == ["Pulmonary embolism", "pneumonia"] and dropped == ["PULMONARY EMBOLISM", "", "...", 3]
    covered, dropped = read_covered({"covered": [2, 2, 4, 0, True, "1", 1]}, 3)
    assert covered == [0, 1] and dropped == [2, 4, 0, True, "1"]
    for bad in ({"pairs": []}, ["a"], {"covered": "1, 2"}):
        with pytest.raises(ValueError):
            read_covered(bad, 3)
    assert cover_schema(3)["properties"]["covered"]["items"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 3,
    }


def test_score_reads_judgements_and_refuses_stale_ones(tmp_path: Path) -> None:
    ds, run = write_planning_run(tmp_path, TARGETS, ANSWERS)
    # hand-written judgements: rule_out 2/3 and 1/2; decision_factors 2/3 and a listing that failed
    # (unscored); treatment_plan 2/3 and 3/3
    judged = {
        ("i0", "rule_out"): (["pulmonary embolism", "pneumonia", "acute coronary syndrome"], [0, 1]),
        ("i0", "decision_factors"): (["tachycardia", "hypoxia", "long flight"], [0, 1]),
        ("i0", "treatment_plan"): (["CT angiography", "heparin", "telemetry"], [0, 1]),
        ("i1", "rule_out"): (["appendicitis", "ovarian torsion"], [0]),
        ("i1", "decision_factors"): (None, []),
        ("i1", "treatment_plan"): (["CT abdomen", "IV fluids", "surgical consult"], [0, 1, 2]),
    }
    records = [
        {"instance_id": i, "system": "sys", "part": part, "concepts": concepts, "covered": covered,
         "reference_sha256": sha256_text(TARGETS[int(i[1])][part]),
         "answer_sha256": sha256_text(ANSWERS[int(i[1])][part]), "dropped": [],
         "list_error": None if concepts else "no JSON found", "cover_error": None, "list_raw": "",
         "cover_raw": ""}
        for (i, part), (concepts, covered) in judged.items()
    ]  # fmt: skip
    path = judgements_path(run)
    write_jsonl(path, records)
    summary = {"params": {"model": "hand"}, "parts": 6, "listing_failures": 1, "cover_failures": 0}
    path.with_suffix(".summary.json").write_text(json.dumps({**summary, "dropped_entries": 0}))
    results = score(ds, run, tmp_path / "out", *JUDGED)
    assert results["concept_extractor"] == "llm_judge"
    system = results["systems"][0]
    metrics = system["metrics"]
    assert metrics["rule_out.concept_recall"]["value"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert metrics["decision_factors.concept_recall"]["value"] == pytest.approx(2 / 3)
    assert metrics["treatment_plan.concept_recall"]["value"] == pytest.approx((2 / 3 + 1) / 2)
    assert (
        system["concept_judge"]["listing_failures"] == 1
        and system["concept_judge"]["params"]["model"] == "hand"
    )
    # a re-prediction changes an answer: its old judgement is refused, not scored
    changed = [ANSWERS[0], {**ANSWERS[1], "rule_out": "Ovarian torsion"}]
    write_answers(run, changed)
    with pytest.raises(UsageError, match=r"i1 \(rule_out\) was made on other texts") as e:
        score(ds, run, tmp_path / "out2", *JUDGED)
    assert "judge-concepts" in (e.value.hint or "")
    path.unlink()
    with pytest.raises(UsageError, match="no LLM concept judgements"):
        score(ds, run, tmp_path / "out3", *JUDGED)


@pytest.mark.llm
@pytest.mark.slow
def test_judge_concepts_through_the_local_server_then_score(local_llm: LocalServer, tmp_path: Path) -> None:
    ds, run = write_planning_run(tmp_path, TARGETS, ANSWERS)
    config = tmp_path / "judge.json"  # JSON is YAML: the --config file a user would write
    llm = asdict(local_llm.config(cache_path=tmp_path / "llm.sqlite", max_tokens=200))
    config.write_text(json.dumps({"llm": llm}, default=str))
    judge = ["judge-concepts", "--dataset", str(ds), "--predictions", str(run), "--config", str(config)]
    result = CliRunner().invoke(app, judge)
    assert result.exit_code == 0, result.output
    records = list(read_jsonl(judgements_path(run)))
    summary = json.loads(judgements_path(run).with_suffix(".summary.json").read_text())
    assert len(records) == summary["parts"] == 6
    listed = [r for r in records if r["concepts"]]
    for r in records:
        assert (r["concepts"] is None) == (r["list_error"] is not None)
        assert all(0 <= c < len(r["concepts"] or []) for c in r["covered"])
    # a listing call per rationale, a covering call per part with concepts (no answer part is empty)
    assert summary["model_calls"] == len(records) + len(listed)
    assert summary["listing_failures"] == sum(r["list_error"] is not None for r in records)
    assert summary["cover_failures"] == sum(r["cover_error"] is not None for r in records)
    print(f"SmolLM2 concept judge: {summary['listing_failures']} unreadable listings, "
          f"{summary['cover_failures']} unreadable judgements of {len(records)} parts")  # fmt: skip

    results = score(ds, run, tmp_path / "out", *JUDGED)
    metrics = results["systems"][0]["metrics"]
    for part in TARGETS[0]:
        recalls = [len(r["covered"]) / len(r["concepts"]) for r in listed if r["part"] == part]
        expected = sum(recalls) / len(recalls) if recalls else None
        assert metrics[f"{part}.concept_recall"]["value"] == (pytest.approx(expected) if recalls else None)
    assert results["systems"][0]["concept_judge"]["cover_failures"] == summary["cover_failures"]

    # a rerun asks the model nothing: every answer comes from the LLM cache, the file is the same
    before = judgements_path(run).read_text()
    result = CliRunner().invoke(app, judge)
    assert result.exit_code == 0, result.output
    again = json.loads(judgements_path(run).with_suffix(".summary.json").read_text())
    assert (again["model_calls"], again["llm_cache_hits"]) == (0, summary["model_calls"])
    assert judgements_path(run).read_text() == before
