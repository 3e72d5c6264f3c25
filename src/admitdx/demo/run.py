"""``run_demo``: the stages in order, the slow local-model stages alongside, and the summary that
says where each task's report is."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Console

from admitdx.demo import earlydx
from admitdx.demo.params import DemoParams
from admitdx.demo.steps import Background, Steps, cpu_seconds
from admitdx.demo.tasks import TaskOutcome, run_task_demos
from admitdx.llm.local_server import llama_cpp_available
from admitdx.report.console import print_headline
from admitdx.study.leaderboard import Scored, write_leaderboard
from admitdx.synthetic import generate_synthetic, read_truth_meta
from admitdx.tasks.earlydx import EarlyDxParams
from admitdx.tasks.registry import get_task


def run_demo(params: DemoParams, console: Console) -> Path:
    """Run every stage; return the path of the leaderboard over every report (leaderboard.html)."""
    started, cpu_at_start = time.perf_counter(), cpu_seconds()
    out = Path(params.out)
    llm = params.use_llm and llama_cpp_available()
    steps = Steps(console)
    with steps.step("synthetic MIMIC-IV"):
        mimic = _synthesize(out / "mimic", params)
    dataset, audited = earlydx.build_and_audit(mimic, out, params, steps)
    alongside: Background[list[TaskOutcome]] | None = None
    behind = Steps(console, buffered=True)
    if llm:  # on their own single-thread servers, alongside EarlyDx's predictions (see admitdx.demo)
        alongside = Background(lambda: _alongside(dataset, mimic, out, params, behind))
    else:
        why = (
            "--no-llm"
            if not params.use_llm
            else "llama-cpp-python is not installed: pip install 'admitdx\\[local]'"
        )
        console.print(f"[yellow]   skipping the local LLM steps ({why})[/]")
    ed = earlydx.run_systems(audited, out, params, steps, llm=llm)
    if alongside is not None:
        console.print("[bold]Ran alongside the steps above:[/]")
        tasks = alongside.result()
        behind.flush()
    else:
        tasks = run_task_demos(mimic, out, params, steps, llm=False) if params.other_tasks else []
    _summary(console, params, ed, tasks)
    leaderboard = write_leaderboard(out, "admitdx demo (synthetic MIMIC-IV)", _scored(params, ed, tasks))
    console.print(
        f"\nDemo finished in {time.perf_counter() - started:.0f} s wall, "
        f"{cpu_seconds() - cpu_at_start:.0f} CPU-s (this process and the model servers it has stopped)"
    )
    return leaderboard


def _scored(params: DemoParams, ed: earlydx.EarlyDxOutcome, tasks: list[TaskOutcome]) -> list[Scored]:
    """Every report of the demo as a column group of its leaderboard; a local-model subset is its
    own group (its numbers describe the first test instances only, and its header says so)."""
    ed_params = EarlyDxParams(test_fraction=params.test_fraction, seed=params.seed)
    scored = [Scored("EarlyDx", "earlydx", ed_params, ed.report.parent, ed.results)]
    if ed.subset_report is not None and ed.subset_results is not None:
        scored.append(
            Scored("EarlyDx, LLM subset", "earlydx", ed_params, ed.subset_report.parent, ed.subset_results)
        )
    for t in tasks:
        build = get_task(t.demo.task).params(**t.demo.build)
        scored.append(Scored(t.demo.title, t.demo.task, build, t.report.parent, t.results))
        if t.subset_report is not None and t.subset_results is not None:
            scored.append(Scored(f"{t.demo.title}, LLM subset", t.demo.task, build, t.subset_report.parent,
                                 t.subset_results))  # fmt: skip
    return scored


def _alongside(dataset: Path, mimic: Path, out: Path, params: DemoParams, steps: Steps) -> list[TaskOutcome]:
    """The LLM audit, then the other tasks: the foreground meanwhile keeps one core on EarlyDx's
    local-model predictions, which leaves the other core to these."""
    with steps.step(f"evidence audit (LLM) of {params.llm_audit_instances} test encounters"):
        audit = earlydx.llm_audit(dataset, out, mimic, params)
        steps.say(f"   {earlydx.audit_line(audit)}")
    return run_task_demos(mimic, out, params, steps, llm=True) if params.other_tasks else []


def _synthesize(root: Path, params: DemoParams) -> Path:
    """Generate the root unless one with the same size and seed is already there."""
    if (root / "_truth").is_dir():
        meta = read_truth_meta(root)
        if meta.get("patients") == params.patients and meta.get("seed") == params.seed:
            return root
    generate_synthetic(root, patients=params.patients, seed=params.seed, overwrite=True)
    return root


def _summary(
    console: Console, params: DemoParams, ed: earlydx.EarlyDxOutcome, tasks: list[TaskOutcome]
) -> None:
    """Each other task's headline table (baselines, whole test split) and its local model's figure on
    its subset, EarlyDx's tables, then where every report is."""
    for t in tasks:
        console.print(f"\n[bold]{t.demo.title}[/] (whole test split; {t.counts})")
        print_headline(console, t.results)
        if t.subset_results is not None:
            console.print(f"   {_subset_line(t.demo.llm_subset, t.subset_results)}")
    if ed.subset_results is not None:
        console.print(
            f"\n[bold]EarlyDx subset:[/] every system on the first {params.llm_subset} test encounters only"
        )
        print_headline(console, ed.subset_results)
    console.print("\n[bold]EarlyDx, whole test split[/] (the baselines)")
    print_headline(console, ed.results)
    console.print("\n[bold green]Reports[/] (report.html; table.md and results.json beside it)")
    rows = [
        ("EarlyDx", ed.report, ed.subset_report),
        *((t.demo.title, t.report, t.subset_report) for t in tasks),
    ]
    for title, report, subset in rows:
        console.print(f"  {title:<36} {report.resolve()}", soft_wrap=True)
        if subset is not None:
            console.print(f"  {'':<36} {subset.resolve()}  (local-model subset)", soft_wrap=True)


def _subset_line(n: int, results: dict[str, Any]) -> str:
    """The local model's headline figure on its subset next to the baselines' on the same instances."""
    metric = "clinibench.macro_f1" if results["suite"] == "clinibench" else results["headline_metrics"][0]
    *baselines, model = results["systems"]
    others = ", ".join(f"{s['name']} {_value(s, metric)}" for s in baselines)
    return (
        f"local model {model['name']} on the first {n} test instances: {metric} {_value(model, metric)} "
        f"({others} on the same), {model['counts']['parse_errors']} unparseable"
    )


def _value(system: dict[str, Any], metric: str) -> str:
    value = system["metrics"][metric]["value"]
    return "n/a" if value is None else f"{value:.3f}"
