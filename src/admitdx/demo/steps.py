"""The stage machinery of studies and the demo: timed steps (printed now, or kept for a stage that
runs in another lane), scoring with its report, and the documented LLM subset of a dataset."""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from admitdx.contracts import INSTANCES_FILE, load_instances
from admitdx.jsonl import dumps
from admitdx.report.browser import write_browser
from admitdx.report.html import write_report
from admitdx.report.table import TABLE_FILE, write_table
from admitdx.runs import write_manifest
from admitdx.scoring.run import ScoreParams, score_run
from admitdx.study.encounters import encounters
from admitdx.systems.labels import benchmark_set


def cpu_seconds() -> float:
    """CPU seconds of this process (all its threads) and of its finished children (the stopped
    llama.cpp servers): what the demo has cost the machine so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Steps:
    """Timed steps. In the foreground each line is printed at once; a stage running in a background
    thread keeps its lines (``buffered``) and the foreground prints them when it collects the
    stage, so they never cut through the foreground's progress bars."""

    def __init__(self, console: Console, *, buffered: bool = False) -> None:
        self.console = console
        self.buffered = buffered
        self.lines: list[str] = []

    def say(self, line: str) -> None:
        if self.buffered:
            self.lines.append(line)
        else:
            self.console.print(line)

    @contextmanager
    def step(self, title: str) -> Iterator[None]:
        started = time.perf_counter()
        self.say(f"[bold]▶ {title}[/]")
        yield
        self.say(f"   done in {time.perf_counter() - started:.1f} s")

    def flush(self) -> None:
        for line in self.lines:
            self.console.print(line)
        self.lines.clear()


def score_and_report(
    dataset: Path, dirs: list[Path], run_dir: Path, params: ScoreParams
) -> tuple[dict[str, Any], Path]:
    """Score the prediction directories into ``run_dir``; (the results, the path of report.html).
    The per-encounter browser is written first, so that the report links to it."""
    results = score_run(dataset, dirs, run_dir, params)
    write_table(results, run_dir / TABLE_FILE)
    write_browser(run_dir, results, encounters(dataset, results, params.split))
    return results, write_report(run_dir)


def llm_subset(dataset: Path, out: Path, n: int) -> Path:
    """The dataset cut to its non-test splits and the first ``n`` test instances of its benchmark
    set: a dataset of its own (its own fingerprint), so the LLM's run over it is complete and every
    system is scored against exactly these instances, never against missing predictions. Cut from
    the benchmark set (as ``predict --limit`` counts), so the n it records is the n scored and its N
    the benchmark set's, not the test split's (issue 34: "20 of 139" stood for 18 scored of 120)."""
    instances = load_instances(dataset)
    every_test = benchmark_set(i for i in instances if i.split == "test")
    test = every_test[:n]
    keep = [i for i in instances if i.split != "test"] + test
    text = "".join(dumps(i.to_dict()) + "\n" for i in keep)
    path = out / INSTANCES_FILE
    if not path.exists() or path.read_text(encoding="utf-8") != text:  # unchanged: runs over it resume
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        # the report reads this and says, on the page, that its numbers describe a subset
        write_manifest(out, stage="subset", inputs={"dataset": str(dataset)},
                       outputs={"subset": f"the first {len(test)} benchmark-set encounters of {dataset}",
                                "trial": {"n": len(test), "of": len(every_test)}})  # fmt: skip
    return out
