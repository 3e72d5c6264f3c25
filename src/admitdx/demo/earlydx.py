"""The demo's EarlyDx stages: build → rule-based audit (+ an LLM audit sample, run alongside) →
four baselines and the local model on its subset → embedding matching (+ LLM judge and its
agreement) → scoring with bootstrap intervals → report.

The test split is large enough that bootstrap intervals mean something (``test_fraction``: at
least 100 test encounters from 60 or more patients at the default 800 patients). SmolLM2-135M
answers one request at a time, so it predicts a documented subset only: the first ``llm_subset``
test encounters. Every system is scored on that same subset in a second run
(``report-llm-subset/``, titled as a subset), and the main report (``report/``) scores the
baselines on the whole test split.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from admitdx.auditing.dataset import audit_dataset
from admitdx.auditing.llm_auditor import LLMAuditor
from admitdx.auditing.rules import RuleAuditor
from admitdx.contracts import INSTANCES_FILE, load_instances
from admitdx.demo.params import DemoParams
from admitdx.demo.steps import Steps, llm_subset, predict_all, score_and_report
from admitdx.jsonl import write_jsonl
from admitdx.llm.client import LLMClient
from admitdx.llm.local_server import LOG_NAME, LocalServer
from admitdx.matching import create_matcher
from admitdx.matching.agreement import write_agreement
from admitdx.matching.runner import run_matcher
from admitdx.scoring.run import ScoreParams
from admitdx.systems.config import SystemChoice
from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx

BASELINES = ("frequency", "knn-bm25", "extraction", "tfidf")
LLM_SYSTEM = "smollm2-zeroshot"


@dataclass(frozen=True)
class EarlyDxOutcome:
    report: Path
    results: dict[str, Any]
    subset_report: Path | None
    subset_results: dict[str, Any] | None


def build_and_audit(mimic: Path, out: Path, params: DemoParams, steps: Steps) -> tuple[Path, Path]:
    """(the EarlyDx dataset, the same audited by the rule-based auditor)."""
    with steps.step("EarlyDx build"):
        dataset = out / "earlydx"
        counts = build_earlydx(
            mimic, dataset, EarlyDxParams(test_fraction=params.test_fraction, seed=params.seed)
        )
        steps.say(f"   {_counts_line(counts)}")
    with steps.step("evidence audit (rule-based)"):
        audited = out / "earlydx-audited"
        outputs = audit_dataset(dataset, audited, RuleAuditor(), truth_root=mimic)
        steps.say(f"   {audit_line(outputs)}")
    return dataset, audited


def run_systems(audited: Path, out: Path, params: DemoParams, steps: Steps, *, llm: bool) -> EarlyDxOutcome:
    """Predict, match, score and report; with ``llm`` also the local model on its subset and the judge."""
    choices = [SystemChoice(name, name) for name in BASELINES]
    # graded: each diagnosis marked confirmed or suspected, so the report's graded view has data
    llm_choice = SystemChoice(LLM_SYSTEM, "llm", {
        "base_url": "local", "prompt": "zero-shot", "graded": True,
        "max_input_chars": params.llm_max_input_chars, "max_tokens": params.llm_max_tokens,
    })  # fmt: skip
    prediction_dirs = predict_all(steps, audited, choices, out / "predictions")
    subset_dirs: list[Path] = []
    if llm:
        subset = llm_subset(audited, out / "earlydx-llm-subset", params.llm_subset)
        steps.say(f"[bold]▶ the local LLM's subset: the first {params.llm_subset} test encounters[/]")
        subset_dirs = predict_all(steps, subset, [*choices, llm_choice], out / "predictions-llm-subset")
    with steps.step("match: embedding"):
        matcher = create_matcher("embedding")  # loaded once for every prediction directory
        try:
            for d in prediction_dirs:
                run_matcher(matcher, audited, d)
            for d in subset_dirs:
                run_matcher(matcher, subset, d)
        finally:
            matcher.close()
    if llm:
        llm_dir = out / "predictions-llm-subset" / LLM_SYSTEM
        with steps.step("match: LLM judge on the LLM's predictions, and its agreement with embedding"):
            judge = create_matcher("llm_judge", local=True, llm={"max_tokens": params.llm_max_tokens})
            try:
                run_matcher(judge, subset, llm_dir)
            finally:
                judge.close()
            result, _ = write_agreement(subset, llm_dir, "llm_judge", "embedding")
            steps.say(f"   {_agreement_line(result.to_dict())}")
    score_params = ScoreParams(matcher="embedding", seed=params.seed)  # --seed seeds the bootstrap too
    with steps.step("EarlyDx: score (patient-level bootstrap) and report"):
        results, report = score_and_report(audited, prediction_dirs, out / "report", score_params)
    if not subset_dirs:
        return EarlyDxOutcome(report, results, None, None)
    with steps.step(f"EarlyDx: score and report on the LLM's subset ({params.llm_subset} test encounters)"):
        subset_results, subset_report = score_and_report(
            subset, subset_dirs, out / "report-llm-subset", score_params
        )
    return EarlyDxOutcome(report, results, subset_report, subset_results)


def llm_audit(dataset: Path, out: Path, mimic: Path, params: DemoParams) -> dict[str, Any]:
    """The LLM auditor on the first test encounters, with its own server (log in its directory)."""
    sample = _test_sample(dataset, out / "llm-audit-sample", params.llm_audit_instances)
    audit_dir = out / "llm-audit"
    with LocalServer(log_path=audit_dir / LOG_NAME) as server:
        client = LLMClient(server.config(max_tokens=params.llm_max_tokens), liveness=server.check_alive)
        return audit_dataset(sample, audit_dir, LLMAuditor(client), truth_root=mimic)


def _test_sample(dataset: Path, out: Path, n: int) -> Path:
    """A dataset directory holding the first ``n`` test encounters (for the slow LLM audit)."""
    sample = load_instances(dataset, split="test")[:n]
    write_jsonl(out / INSTANCES_FILE, (i.to_dict() for i in sample))
    return out


def _counts_line(outputs: dict[str, Any]) -> str:
    c = outputs["counts"]
    return (
        f"{c['ed_stays']} ED stays, {c['cohort_stays']} admitted, {c['encounters_with_labels']} with labels "
        f"({c['labels_per_encounter']:.2f} per encounter, {c['explicit_fraction']:.0%} named in the input); "
        f"{c['train_encounters']} train / {c['test_encounters']} test encounters"
    )


def audit_line(outputs: dict[str, Any]) -> str:
    line = (
        f"{outputs['references']} labels: {outputs['evidence_class']}, {outputs['unparseable']} unparseable"
    )
    if "agreement" in outputs:
        a = outputs["agreement"]
        line += f"; agreement with _truth {a['accuracy']:.2f} (kappa {_num(a['cohen_kappa'])})"
    return line


def _agreement_line(result: dict[str, Any]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {_num(v)}" for k, v in result.items() if k not in ("a", "b"))


def _num(value: Any) -> str:
    return "n/a" if value is None else f"{value:.2f}" if isinstance(value, float) else str(value)
