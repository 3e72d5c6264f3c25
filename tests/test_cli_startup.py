"""A fast start (issue 23): `admitdx --version` loads no verb, and `admitdx --help` loads none of
the heavy parts (plotting, the scoring run, the demo, the matchers' solver). Checked in a fresh
interpreter through the console script's entry (:mod:`admitdx.launcher`), as a user's shell starts
it. What is imported decides the start-up time and does not change with the machine's load, so the
test asserts the modules; the CPU seconds are a bench figure (`bench/bench_cli_startup.py`, issue 34:
no clocks in tests)."""

from __future__ import annotations

import subprocess
import sys

#: Not needed to list the verbs and their options. The task registry (every task's builder: PyArrow,
#: Jinja) loads when `build` lists or runs its subcommands; SciPy when CliniBench's metrics run;
#: httpx when a verb opens an LLM client. (DuckDB is still loaded: `data convert`'s defaults live
#: in a module that imports it.)
HEAVY = (
    "matplotlib",
    "torch",
    "sentence_transformers",
    "scipy",
    "httpx",
    "pyarrow",
    "jinja2",
    "pandas",
    "sklearn",
    "admitdx.tasks.registry",
    "admitdx.report.plots",
    "admitdx.scoring.run",
    "admitdx.study.run",
    "admitdx.demo.run",
    "admitdx.matching.base",
)
#: Not needed to print the version: not even the command-line framework.
FRAMEWORK = ("typer", "rich", "numpy", "duckdb", "admitdx.cli")
PROBE = """
import sys
from admitdx.launcher import main
sys.argv = ["admitdx", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print("LOADED", *sorted(m for m in {modules} if m in sys.modules))
"""


def start(*args: str) -> tuple[str, list[str]]:
    """(what `admitdx ARGS` printed, which of :data:`HEAVY` and :data:`FRAMEWORK` it imported), in a
    fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(modules=HEAVY + FRAMEWORK), *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out, out.splitlines()[-1].split()[1:]


def test_version_answers_without_loading_any_verb() -> None:
    out, loaded = start("--version")
    assert out.startswith("admitdx ") and loaded == []


def test_help_loads_none_of_the_heavy_parts() -> None:
    out, loaded = start("--help")
    assert "predict" in out and "score" in out
    assert not set(loaded) & set(HEAVY), loaded
    assert "typer" in loaded  # the probe does see what is loaded (the framework that prints the help)


def test_build_lists_the_registered_tasks_on_demand() -> None:
    """`admitdx build --help` still lists every registered task (loaded lazily by its group)."""
    out, loaded = start("build", "--help")
    # the package's tasks, from a fresh interpreter (test modules register tasks of their own here)
    listing = [sys.executable, "-c", "from admitdx.tasks.registry import registered; print(*registered())"]
    shipped = subprocess.run(listing, capture_output=True, text=True, check=True).stdout.split()
    assert len(shipped) >= 11 and all(name in out for name in shipped)
    assert "admitdx.tasks.registry" in loaded  # loaded here, on demand
