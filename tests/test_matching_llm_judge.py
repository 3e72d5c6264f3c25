"""LLM judge: validation of the judge's pairs, and the real path through the local llama.cpp server.

The server test checks only that the path works (prompt → schema-constrained JSON → validated
pairs → cache); SmolLM2-135M's matching decisions are not clinically meaningful and are not asserted.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest
from tests.matching_data import write_case_dirs

from admitdx.errors import UsageError
from admitdx.llm.client import Completion
from admitdx.llm.local_server import LocalServer
from admitdx.matching.base import MatchTask, check_one_to_one
from admitdx.matching.llm_judge import DEFAULT_PROMPT, LlmJudgeMatcher, pairs_schema, validate_pairs
from admitdx.matching.runner import load_matches, matches_path, run_matcher


def test_validation_drops_out_of_range_and_reused_pairs() -> None:
    answer = {"pairs": [
        {"prediction": 1, "reference": 2},
        {"prediction": 3, "reference": 1},   # prediction 3 does not exist
        {"prediction": 1, "reference": 1},   # prediction 1 already paired
        {"prediction": 2, "reference": 2},   # reference 2 already paired
        {"prediction": 2, "reference": 1},
        {"prediction": True, "reference": 1},  # a boolean is not a number here
        "2-1",
    ]}  # fmt: skip
    kept, dropped = validate_pairs(answer, 2, 2)
    assert kept == [(0, 1), (1, 0)]
    assert len(dropped) == 5


def test_an_answer_without_pairs_is_a_parse_failure_kept_raw() -> None:
    with pytest.raises(ValueError):
        validate_pairs(["1-2"], 2, 2)
    bad = Completion(raw="I think 1 matches 2", parsed=None, parse_error="no JSON found", usage=None,
                     latency_s=0.1, cached=False)  # fmt: skip
    outcome = LlmJudgeMatcher._outcome(bad, 2, 2)
    assert outcome.pairs == [] and outcome.details["judge_errors"] == 1
    assert outcome.details["raw"] == "I think 1 matches 2" and "no JSON" in outcome.details["parse_error"]


def test_schema_bounds_numbers_to_the_lists() -> None:
    item = pairs_schema(3, 2)["properties"]["pairs"]["items"]["properties"]
    assert item["prediction"] == {"type": "integer", "minimum": 1, "maximum": 3}
    assert item["reference"]["maximum"] == 2
    assert pairs_schema(3, 2)["properties"]["pairs"]["maxItems"] == 2


def judge(server: LocalServer, cache: Path) -> LlmJudgeMatcher:
    config = server.config(cache_path=cache, max_tokens=80)
    return LlmJudgeMatcher(llm=asdict(config))


def test_prompt_renders_numbered_lists_and_hashes_the_template() -> None:
    m = LlmJudgeMatcher(llm={"cache_path": None})
    req = m.request(MatchTask("i", "s", ["CHF", "pneumonia"], ["Congestive heart failure"]))
    assert "1. Congestive heart failure" in req.messages[1]["content"]
    assert "2. pneumonia" in req.messages[1]["content"]
    assert req.key_extra["prompt"]["template"] == DEFAULT_PROMPT.name
    assert m.params()["sampling"]["temperature"] == 0.0


@pytest.mark.llm
@pytest.mark.slow
def test_judge_through_the_local_server_parses_validates_and_caches(
    local_llm: LocalServer, tmp_path: Path
) -> None:
    cases = {
        "t1": ([("Congestive heart failure", "I509")], ["CHF", "pneumonia"]),
        "t2": ([("Hip fracture", "S72001A")], ["hip fracture"]),
        "t3": ([("Sepsis", "A419")], []),  # nothing predicted: not sent to the model
    }
    dataset, pred = write_case_dirs(tmp_path, cases)
    cache = tmp_path / "llm.sqlite"
    first = judge(local_llm, cache)
    run = run_matcher(first, dataset, pred)
    assert run.summary["model_calls"] == 2 and run.summary["judged"] == 2
    by_id = {m.instance_id: m for m in run.matches}
    for iid, (refs, preds) in cases.items():
        m = by_id[iid]
        assert check_one_to_one(m.pairs, len(preds), len(refs)) == m.pairs
        if preds:
            assert m.details["judged"] is True and m.details["raw"]
            assert m.details["judge_errors"] == len(m.details.get("dropped", [])) + (
                "parse_error" in m.details
            )
    assert by_id["t3"].details["judged"] is False and by_id["t3"].pairs == []
    assert run.summary["judge_errors"] == sum(m.details["judge_errors"] for m in run.matches)

    # Rerun with the match file: nothing is recomputed, no model call.
    again = judge(local_llm, cache)
    rerun = run_matcher(again, dataset, pred)
    assert (rerun.computed, again.client.stats.model_calls) == (0, 0)

    # Rerun without the match file: every judgement comes from the LLM cache, still no model call.
    matches_path(pred, "llm_judge").unlink()
    cold = judge(local_llm, cache)
    replay = run_matcher(cold, dataset, pred)
    assert cold.client.stats.model_calls == 0 and cold.client.stats.cache_hits == 2
    assert [m.pairs for m in load_matches(pred, "llm_judge")] == [m.pairs for m in run.matches]
    assert replay.computed == 3


def test_judge_refuses_a_non_loopback_endpoint_without_an_allow_list() -> None:
    with pytest.raises(UsageError, match=r"api\.example\.org"):
        LlmJudgeMatcher(llm={"base_url": "https://api.example.org/v1", "cache_path": None})


@pytest.mark.llm
@pytest.mark.slow
def test_judge_agreement_with_the_guarded_matcher_in_earlydx_two_forms(
    local_llm: LocalServer, tmp_path: Path
) -> None:
    """`admitdx match --matcher llm_judge` prints its agreement with the guarded matcher: matched-pair
    count equal, within one pair (EarlyDx §3.5). SmolLM2-135M is far too small to judge well: this
    checks the path and the arithmetic, not the judge."""
    from rich.console import Console

    from admitdx.cli.matching import _judge_agreement
    from admitdx.matching.guarded import GuardedMatcher

    cases = {
        "t1": ([("Congestive heart failure", "I509")], ["CHF", "pneumonia"]),
        "t2": ([("Hypokalemia", "E876")], ["hyperkalemia"]),
    }
    dataset, pred = write_case_dirs(tmp_path, cases)
    console = Console(record=True, width=300)
    _judge_agreement(console, dataset, pred, "llm_judge")  # no guarded matches yet: says so
    assert "no guarded matches here" in console.export_text()
    guarded = {m.instance_id: len(m.pairs) for m in run_matcher(GuardedMatcher(), dataset, pred).matches}
    judged = {
        m.instance_id: len(m.pairs)
        for m in run_matcher(judge(local_llm, tmp_path / "c"), dataset, pred).matches
    }
    _judge_agreement(console, dataset, pred, "llm_judge")
    equal = sum(guarded[i] == judged[i] for i in cases) / len(cases)
    within = sum(abs(guarded[i] - judged[i]) <= 1 for i in cases) / len(cases)
    assert (
        f"matched-pair count equal on {equal:.1%}, within one pair on {within:.1%}" in console.export_text()
    )
    assert guarded == {"t1": 1, "t2": 0}
