"""A fast start (issue 23): `admitdx --version` loads no verb, and `admitdx --help` loads none of
the heavy parts (plotting, the scoring run, the demo, the matchers' solver). Measured in a fresh
interpreter through the console script's entry (:mod:`admitdx.launcher`), as a user's shell starts
it; the CPU time is printed for the suite's log."""

from __future__ import annotations

import resource
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
    "admitdx.tasks.registry",
    "admitdx.report.plots",
    "admitdx.scoring.run",
    "admitdx.demo.run",
    "admitdx.matching.base",
)
#: The issue's target for `--version` and `--help` (measured 0.01 and 0.36-0.41 CPU-s on the 2-core
#: development machine under load; 0.60-0.66 before the registry, SciPy and httpx were made lazy).
CPU_TARGET_S = 0.5
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


def _start(*args: str) -> tuple[str, float]:
    """(what the command printed, the CPU seconds its process used)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(modules=HEAVY + FRAMEWORK), *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def test_version_answers_without_loading_any_verb() -> None:
    out, cpu = _start("--version")
    print(f"admitdx --version: {cpu:.2f} CPU-s")
    assert out.startswith("admitdx ") and out.splitlines()[-1] == "LOADED"
    assert cpu < CPU_TARGET_S


def test_help_loads_none_of_the_heavy_parts() -> None:
    out, cpu = _start("--help")
    print(f"admitdx --help: {cpu:.2f} CPU-s")
    assert "predict" in out and "score" in out
    loaded = out.splitlines()[-1].split()[1:]
    assert not set(loaded) & set(HEAVY), loaded
    assert cpu < CPU_TARGET_S


def test_build_lists_the_registered_tasks_on_demand() -> None:
    """`admitdx build --help` still lists every registered task (loaded lazily by its group)."""
    out, _ = _start("build", "--help")
    # the package's tasks, from a fresh interpreter (test modules register tasks of their own here)
    listing = [sys.executable, "-c", "from admitdx.tasks.registry import registered; print(*registered())"]
    shipped = subprocess.run(listing, capture_output=True, text=True, check=True).stdout.split()
    assert len(shipped) >= 11 and all(name in out for name in shipped)
    assert "admitdx.tasks.registry" in out.splitlines()[-1].split()  # loaded here, on demand
