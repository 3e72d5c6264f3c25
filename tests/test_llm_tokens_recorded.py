"""The auditor's, the LLM judge's and the concept judge's records carry the tokens their answers took,
summed the way predict sums them (:mod:`admitdx.llm.usage`), with a cost line when priced.

A loopback server in vLLM's dialect (:mod:`tests.dialect_servers`) answers every request with the
documented ``usage`` object (100 prompt and 20 completion tokens), so each sum is a known multiple
of the number of requests; its answers do not fit these prompts, which does not matter here: an
unreadable answer still spent its tokens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.dialect_servers import DialectServer
from tests.matching_data import write_case_dirs
from tests.planning_data import write_planning_run

from admitdx.auditing.dataset import audit_dataset
from admitdx.auditing.llm_auditor import LLMAuditor
from admitdx.contracts import load_instances
from admitdx.llm.client import LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.matching.concept_judge import ConceptJudge, run_concept_judge
from admitdx.matching.llm_judge import LlmJudgeMatcher
from admitdx.matching.runner import run_matcher

PRICE = {"prompt": 0.5, "completion": 2.0}


def _tokens(requests: int, cached: int = 0) -> dict[str, Any]:
    return {
        "answers": requests,
        "cached": cached,
        "without_usage": 0,
        "prompt_tokens": 100 * requests,
        "completion_tokens": 20 * requests,
        "reasoning_tokens": 0,
        "price_per_million": PRICE,
        "cost_usd": round((100 * 0.5 + 20 * 2.0) * requests / 1e6, 6),
    }


def test_audit_and_judges_record_their_tokens(tmp_path: Path) -> None:
    dataset, pred = write_case_dirs(tmp_path)
    with DialectServer("vllm") as srv:
        llm = {"base_url": srv.base_url, "model": "test-model", "server": "vllm", "price_per_million": PRICE}
        llm["cache_path"] = str(tmp_path / "llm.sqlite")

        auditor = LLMAuditor(LLMClient(LLMConfig.from_options(llm)))
        calls = audit_dataset(dataset, tmp_path / "audited", auditor)["calls"]
        references = sum(len(i.references) for i in load_instances(dataset))
        assert calls["model_calls"] == references and calls["tokens"] == _tokens(references)

        judge = LlmJudgeMatcher(llm=llm)
        summary = run_matcher(judge, dataset, pred).summary
        assert summary["tokens"] == _tokens(summary["model_calls"])
        assert summary["model_calls"] == len(srv.seen) - references > 0

        ds, run = write_planning_run(
            tmp_path / "planning", [{"rule_out": "Sepsis"}], [{"rule_out": "Sepsis"}]
        )
        concepts = run_concept_judge(ConceptJudge(llm=llm), ds, run)
        assert concepts["tokens"] == _tokens(concepts["model_calls"]) and concepts["model_calls"] >= 1
        again = run_concept_judge(ConceptJudge(llm=llm), ds, run)  # every answer from the cache
        assert (again["model_calls"], again["tokens"]) == (0, _tokens(concepts["model_calls"], cached=1))
