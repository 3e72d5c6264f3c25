"""``admitdx demo``: the whole pipeline on synthetic data, with the embedded local model when present.

synthetic MIMIC-IV → EarlyDx build → rule-based audit (+ an LLM audit sample) → five systems →
embedding matching (+ LLM judge and its agreement) → scoring with bootstrap intervals → report.

Every step writes its usual directory under ``out`` and is resumable, so a rerun after Ctrl-C
picks up where it stopped and a finished demo reruns in seconds. The test split is large enough
that bootstrap intervals mean something (``test_fraction``: at least 100 test encounters from
60 or more patients at the default 800 patients). SmolLM2-135M answers one request at a time, so
it predicts a documented subset only: the first ``llm_subset`` test encounters. Every system is
scored on that same subset in a second run (``report-llm-subset/``, titled as a subset), and the
main report (``report/``) scores the baselines on the whole test split.

LLM speed (issue 12, measured with ``bench/bench_local_server.py`` on a 2-core AMX VM): a
zero-shot request costs about 8.5 CPU-seconds on one core (5.6 for its ≈620 prompt tokens, 2.9
for its ≈75 answer tokens), an audit request about 6.8, so the 24 predictions and the judge need
some 240 CPU-seconds and the audit's 12–14 labels another 90. One llama.cpp server uses one thread
(more threads spin at barriers and collapse on a busy machine), so the LLM audit runs on a second
single-thread server *alongside* the predictions and the LLM judge, which keeps both cores busy.
Every answer is bounded by ``llm_max_tokens``: answers take 40–100 tokens, and SmolLM2 sometimes
loops (a 717-token diagnosis list; audit quotes of "1.0, 1.0, 1.0, …" in 4 of 14 labels of one
run), which now stops at 256 tokens, costs about 10 CPU-seconds instead of up to 60, and is
counted as unparseable.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from rich.console import Console

from admitdx.auditing.dataset import audit_dataset
from admitdx.auditing.llm_auditor import LLMAuditor
from admitdx.auditing.rules import RuleAuditor
from admitdx.contracts import INSTANCES_FILE, load_instances
from admitdx.jsonl import dumps, write_jsonl
from admitdx.llm.client import LLMClient
from admitdx.llm.local_server import LOG_NAME, LocalServer, llama_cpp_available
from admitdx.matching import create_matcher
from admitdx.matching.agreement import write_agreement
from admitdx.matching.runner import run_matcher
from admitdx.report.console import print_headline
from admitdx.report.html import write_report
from admitdx.report.table import TABLE_FILE, write_table
from admitdx.runs import write_manifest
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
    test_fraction: float = 0.15  # ≥ 100 test encounters from ≥ 60 patients at 800 patients
    use_llm: bool = True  # only if llama-cpp-python is installed (admitdx[local])
    llm_max_input_chars: int = 2500  # keeps SmolLM2's prompt within its 2048-token window
    llm_audit_instances: int = 8  # test encounters the LLM auditor checks against _truth
    llm_subset: int = 24  # the first test encounters the local LLM predicts (every system is scored on them)
    # Answers in the demo are 40–100 tokens; the bound stops a looping model (the default is 1500).
    llm_max_tokens: int = 256


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
    if llm:  # on its own single-thread server, alongside the steps below (see the module docstring)
        llm_audit = _Background(lambda: _llm_audit(dataset, out, mimic, params))
    choices = [SystemChoice(name, name) for name in BASELINES]
    # graded: each diagnosis marked confirmed or suspected, so the report's graded view has data
    llm_choice = SystemChoice(LLM_SYSTEM, "llm", {
        "base_url": "local", "prompt": "zero-shot", "graded": True,
        "max_input_chars": params.llm_max_input_chars, "max_tokens": params.llm_max_tokens,
    })  # fmt: skip
    if not llm:
        why = (
            "--no-llm"
            if not params.use_llm
            else "llama-cpp-python is not installed: pip install 'admitdx\\[local]'"
        )
        console.print(f"[yellow]   skipping the local LLM steps ({why})[/]")
    prediction_dirs = _predict_all(console, audited, choices, out / "predictions")
    subset_dirs: list[Path] = []
    if llm:
        subset = _llm_subset(audited, out / "earlydx-llm-subset", params.llm_subset)
        console.print(f"[bold]▶ the local LLM's subset: the first {params.llm_subset} test encounters[/]")
        subset_dirs = _predict_all(console, subset, [*choices, llm_choice], out / "predictions-llm-subset")
    with _step(console, "match: embedding"):
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
        with _step(console, "match: LLM judge on the LLM's predictions, and its agreement with embedding"):
            judge = create_matcher("llm_judge", local=True, llm={"max_tokens": params.llm_max_tokens})
            try:
                run_matcher(judge, subset, llm_dir)
            finally:
                judge.close()
            result, _ = write_agreement(subset, llm_dir, "llm_judge", "embedding")
            console.print(f"   {_agreement_line(result.to_dict())}")
        title = f"evidence audit (LLM) of {params.llm_audit_instances} test encounters (ran alongside)"
        with _step(console, title):
            console.print(f"   {_audit_line(llm_audit.result())}")
    score_params = ScoreParams(matcher="embedding", seed=params.seed)  # --seed seeds the bootstrap too
    with _step(console, "score (patient-level bootstrap) and report"):
        run_dir = out / "report"
        results = score_run(audited, prediction_dirs, run_dir, score_params)
        write_table(results, run_dir / TABLE_FILE)
        report = write_report(run_dir)
    if subset_dirs:
        with _step(console, f"score and report on the LLM's subset ({params.llm_subset} test encounters)"):
            subset_run = out / "report-llm-subset"
            subset_results = score_run(subset, subset_dirs, subset_run, score_params)
            write_table(subset_results, subset_run / TABLE_FILE)
            subset_report = write_report(subset_run)
        console.print(
            f"\n[bold]Subset:[/] every system on the first {params.llm_subset} test encounters only"
        )
        print_headline(console, subset_results)
        console.print(f"[bold green]Subset report:[/] {subset_report.resolve()}")
        console.print("\n[bold]Whole test split[/] (the baselines)")
    print_headline(console, results)
    console.print(f"\n[bold green]Report:[/] {report.resolve()}")
    console.print(f"Table:  {(run_dir / 'table.md').resolve()}")
    return report


def _predict_all(console: Console, dataset: Path, choices: list[SystemChoice], out: Path) -> list[Path]:
    dirs = []
    for choice in choices:
        with _step(console, f"predict: {choice.name} ({dataset.name})"):
            run = run_predictions(dataset, choice, out / choice.name)
            dirs.append(run.out_dir)
            if run.parse_errors:
                console.print(f"   [yellow]{run.parse_errors} unparseable outputs kept and counted[/]")
    return dirs


def _llm_subset(audited: Path, out: Path, n: int) -> Path:
    """The audited dataset cut to its training split and its first ``n`` test encounters: a dataset
    of its own (its own fingerprint), so the LLM's run over it is complete and every system is
    scored against exactly these encounters, never against missing predictions."""
    instances = load_instances(audited)
    test = [i for i in instances if i.split == "test"][:n]
    keep = [i for i in instances if i.split != "test"] + test
    text = "".join(dumps(i.to_dict()) + "\n" for i in keep)
    path = out / INSTANCES_FILE
    if not path.exists() or path.read_text(encoding="utf-8") != text:  # unchanged: runs over it resume
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        # the report reads this and says, on the page, that its numbers describe a subset
        write_manifest(out, stage="subset", inputs={"dataset": str(audited)},
                       outputs={"subset": f"the first {len(test)} test encounters of {audited}"})  # fmt: skip
    return out


def _synthesize(root: Path, params: DemoParams) -> Path:
    """Generate the root unless one with the same size and seed is already there."""
    if (root / "_truth").is_dir():
        meta = read_truth_meta(root)
        if meta.get("patients") == params.patients and meta.get("seed") == params.seed:
            return root
    generate_synthetic(root, patients=params.patients, seed=params.seed, overwrite=True)
    return root


def _llm_audit(dataset: Path, out: Path, mimic: Path, params: DemoParams) -> dict[str, Any]:
    """The LLM auditor on the first test encounters, with its own server (log in its directory)."""
    sample = _test_sample(dataset, out / "llm-audit-sample", params.llm_audit_instances)
    audit_dir = out / "llm-audit"
    with LocalServer(log_path=audit_dir / LOG_NAME) as server:
        client = LLMClient(server.config(max_tokens=params.llm_max_tokens), liveness=server.check_alive)
        return audit_dataset(sample, audit_dir, LLMAuditor(client), truth_root=mimic)


T = TypeVar("T")


class _Background(Generic[T]):
    """``fn()`` in a daemon thread; :meth:`result` waits for it and re-raises its error.

    A daemon, so that Ctrl-C or an error in the foreground does not wait for it: its server is
    stopped at exit (``atexit``, ``PR_SET_PDEATHSIG``) and its stage resumes on the next run.
    """

    def __init__(self, fn: Callable[[], T]) -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn,), name="admitdx-demo-llm", daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[[], T]) -> None:
        try:
            self._value = fn()
        except BaseException as e:  # handed to the foreground by result()
            self._error = e

    def result(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value


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
