"""``admitdx demo``: the whole pipeline on synthetic data, with the embedded local model when present.

synthetic MIMIC-IV → EarlyDx build → rule-based audit (+ an LLM audit sample) → five systems →
embedding matching (+ LLM judge and its agreement) → scoring with bootstrap intervals → report.

Every step writes its usual directory under ``out`` and is resumable, so a rerun after Ctrl-C
picks up where it stopped and a finished demo reruns in seconds. The test split is kept small on
purpose (``test_fraction``): SmolLM2-135M answers one request at a time, about 1–3 s each on two
cores, and every system is scored on the same encounters.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from admitdx.auditing.dataset import audit_dataset
from admitdx.auditing.llm_auditor import LLMAuditor
from admitdx.auditing.rules import RuleAuditor
from admitdx.contracts import INSTANCES_FILE, load_instances
from admitdx.jsonl import write_jsonl
from admitdx.llm.client import LLMClient
from admitdx.llm.local_server import LocalServer, llama_cpp_available
from admitdx.matching import create_matcher
from admitdx.matching.agreement import write_agreement
from admitdx.matching.runner import run_matcher
from admitdx.report.console import print_headline
from admitdx.report.html import write_report
from admitdx.report.table import TABLE_FILE, write_table
from admitdx.scoring.run import ScoreParams, score_run
from admitdx.synthetic import generate_synthetic, read_truth_meta
from admitdx.systems.config import SystemChoice
from admitdx.systems.runner import run_predictions
from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx

BASELINES = ("frequency", "knn-bm25", "extraction", "tfidf")
LLM_SYSTEM = "smollm2-zeroshot"


@dataclass(frozen=True)
class DemoParams:
    """What the demo runs. Defaults finish in under five minutes on two cores."""

    out: Path = Path("admitdx-demo")
    patients: int = 800
    seed: int = 7
    test_fraction: float = 0.03  # ~25 test encounters at 800 patients
    use_llm: bool = True  # only if llama-cpp-python is installed (admitdx[local])
    llm_max_input_chars: int = 2500  # keeps SmolLM2's prompt within its 2048-token window
    llm_audit_instances: int = 8  # test encounters the LLM auditor checks against _truth


def run_demo(params: DemoParams, console: Console) -> Path:
    """Run every stage; return the path of report.html."""
    out = Path(params.out)
    llm = params.use_llm and llama_cpp_available()
    with _step(console, "synthetic MIMIC-IV"):
        mimic = _synthesize(out / "mimic", params)
    with _step(console, "EarlyDx build"):
        dataset = out / "earlydx"
        counts = build_earlydx(
            mimic, dataset, EarlyDxParams(test_fraction=params.test_fraction, seed=params.seed)
        )
        console.print(f"   {_counts_line(counts)}")
    with _step(console, "evidence audit (rule-based)"):
        audited = out / "earlydx-audited"
        outputs = audit_dataset(dataset, audited, RuleAuditor(), truth_root=mimic)
        console.print(f"   {_audit_line(outputs)}")
    choices = [SystemChoice(name, name) for name in BASELINES]
    if llm:
        # graded: each diagnosis marked confirmed or suspected, so the report's graded view has data
        choices.append(SystemChoice(LLM_SYSTEM, "llm", {
            "base_url": "local", "prompt": "zero-shot", "graded": True,
            "max_input_chars": params.llm_max_input_chars,
        }))  # fmt: skip
    else:
        why = (
            "--no-llm"
            if not params.use_llm
            else "llama-cpp-python is not installed: pip install 'admitdx\\[local]'"
        )
        console.print(f"[yellow]   skipping the local LLM steps ({why})[/]")
    prediction_dirs = []
    for choice in choices:
        with _step(console, f"predict: {choice.name}"):
            run = run_predictions(audited, choice, out / "predictions" / choice.name)
            prediction_dirs.append(run.out_dir)
            if run.parse_errors:
                console.print(f"   [yellow]{run.parse_errors} unparseable outputs kept and counted[/]")
    with _step(console, "match: embedding"):
        matcher = create_matcher("embedding")
        try:
            for d in prediction_dirs:
                run_matcher(matcher, audited, d)
        finally:
            matcher.close()
    if llm:
        llm_dir = out / "predictions" / LLM_SYSTEM
        with _step(console, "match: LLM judge on the LLM's predictions, and its agreement with embedding"):
            judge = create_matcher("llm_judge", local=True)
            try:
                run_matcher(judge, audited, llm_dir)
            finally:
                judge.close()
            result, _ = write_agreement(audited, llm_dir, "llm_judge", "embedding")
            console.print(f"   {_agreement_line(result.to_dict())}")
        with _step(console, f"evidence audit (LLM) of {params.llm_audit_instances} test encounters"):
            sample = _test_sample(dataset, out / "llm-audit-sample", params.llm_audit_instances)
            with LocalServer() as server:
                client = LLMClient(server.config())
                outputs = audit_dataset(sample, out / "llm-audit", LLMAuditor(client), truth_root=mimic)
            console.print(f"   {_audit_line(outputs)}")
    with _step(console, "score (patient-level bootstrap) and report"):
        run_dir = out / "report"
        results = score_run(audited, prediction_dirs, run_dir, ScoreParams(matcher="embedding"))
        write_table(results, run_dir / TABLE_FILE)
        report = write_report(run_dir)
    print_headline(console, results)
    console.print(f"\n[bold green]Report:[/] {report.resolve()}")
    console.print(f"Table:  {(run_dir / 'table.md').resolve()}")
    return report


def _synthesize(root: Path, params: DemoParams) -> Path:
    """Generate the root unless one with the same size and seed is already there."""
    if (root / "_truth").is_dir():
        meta = read_truth_meta(root)
        if meta.get("patients") == params.patients and meta.get("seed") == params.seed:
            return root
    generate_synthetic(root, patients=params.patients, seed=params.seed, overwrite=True)
    return root


def _test_sample(dataset: Path, out: Path, n: int) -> Path:
    """A dataset directory holding the first ``n`` test encounters (for the slow LLM audit)."""
    sample = load_instances(dataset, split="test")[:n]
    write_jsonl(out / INSTANCES_FILE, (i.to_dict() for i in sample))
    return out


@contextmanager
def _step(console: Console, title: str) -> Iterator[None]:
    started = time.perf_counter()
    console.print(f"[bold]▶ {title}[/]")
    yield
    console.print(f"   done in {time.perf_counter() - started:.1f} s")


def _counts_line(outputs: dict[str, Any]) -> str:
    c = outputs["counts"]
    return (
        f"{c['ed_stays']} ED stays, {c['cohort_stays']} admitted, {c['encounters_with_labels']} with labels "
        f"({c['labels_per_encounter']:.2f} per encounter, {c['explicit_fraction']:.0%} named in the input); "
        f"{c['train_encounters']} train / {c['test_encounters']} test encounters"
    )


def _audit_line(outputs: dict[str, Any]) -> str:
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
