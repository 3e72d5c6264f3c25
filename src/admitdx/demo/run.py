"""``run_demo``: generate the synthetic root, set the demo's options in the shipped study file
(``demo_study.yaml``), run it as ``admitdx study`` does, and say where each report is."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Console

from admitdx.demo.params import DemoParams
from admitdx.llm.local_server import llama_cpp_available
from admitdx.llm.open import LOCAL
from admitdx.report.console import print_headline
from admitdx.study.run import run_study
from admitdx.study.scored import Scored
from admitdx.study.spec import read_study
from admitdx.study.steps import Steps, cpu_seconds
from admitdx.synthetic import generate_synthetic, read_truth_meta
from admitdx.yaml_reader import load_yaml

STUDY_FILE = Path(__file__).with_name("demo_study.yaml")


def run_demo(params: DemoParams, console: Console) -> Path:
    """Run every stage; return the path of the leaderboard over every report (leaderboard.html)."""
    started, cpu_at_start = time.perf_counter(), cpu_seconds()
    llm = params.use_llm and llama_cpp_available()
    steps = Steps(console)
    with steps.step("synthetic MIMIC-IV"):
        mimic = _synthesize(Path(params.out) / "mimic", params)
    if not llm:
        why = (
            "--no-llm"
            if not params.use_llm
            else "llama-cpp-python is not installed: pip install 'admitdx\\[local]'"
        )
        console.print(f"[yellow]   skipping the local LLM steps ({why})[/]")
    study = read_study(demo_study(params, mimic, llm=llm), STUDY_FILE)
    leaderboard, scored = run_study(study, steps)
    _summary(console, scored)
    console.print(
        f"\nDemo finished in {time.perf_counter() - started:.0f} s wall, "
        f"{cpu_seconds() - cpu_at_start:.0f} CPU-s (this process and the model servers it has stopped)"
    )
    return leaderboard


def demo_study(params: DemoParams, mimic: Path, *, llm: bool) -> dict[str, Any]:
    """The shipped study file's content with the demo's options set, as its header says: ``out``,
    the generated root, every ``seed`` and EarlyDx's ``test_fraction``; without the local model the
    runs that use it and every ``llm_audit`` are left out, and ``other_tasks`` off keeps EarlyDx's."""
    data = load_yaml(STUDY_FILE.read_text(encoding="utf-8"), str(STUDY_FILE))
    data["out"] = str(Path(params.out).resolve())
    data["data"] = {"mimic": str(mimic.resolve())}
    data["score"]["seed"] = params.seed
    local = {name for name, s in data["systems"].items() if s.get("base_url") == LOCAL}
    task_of: dict[str, str] = {}
    kept = {}
    for name, block in data["tasks"].items():
        task_of[name] = task_of[block["from"]] if "from" in block else block.get("task", name)
        if (not llm and local & set(block["systems"])) or (
            not params.other_tasks and task_of[name] != "earlydx"
        ):
            continue
        settings = block.get("set", {})
        for key, value in (("seed", params.seed), ("test_fraction", params.test_fraction)):
            if key in settings:
                settings[key] = value
        if not llm:
            block.pop("llm_audit", None)
        kept[name] = block
    data["tasks"] = kept
    return data


def _synthesize(root: Path, params: DemoParams) -> Path:
    """Generate the root unless one with the same size and seed is already there."""
    if (root / "_truth").is_dir():
        meta = read_truth_meta(root)
        if meta.get("patients") == params.patients and meta.get("seed") == params.seed:
            return root
    generate_synthetic(root, patients=params.patients, seed=params.seed, overwrite=True)
    return root


def _summary(console: Console, scored: list[Scored]) -> None:
    """Each run's headline table, then where every report is (the leaderboard links them all)."""
    for s in scored:
        subset = s.results.get("subset")
        console.print(f"\n[bold]{s.name}[/]" + (f" ({subset})" if subset else " (whole test split)"))
        print_headline(console, s.results)
    console.print(
        "\n[bold green]Reports[/] (report.html; table.md, results.json and encounters.html beside it)"
    )
    for s in scored:
        console.print(f"  {s.name:<34} {(s.report_dir / 'report.html').resolve()}", soft_wrap=True)
