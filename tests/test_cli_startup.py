"""A fast start (issue 23): `admitdx --version` loads no verb, and `admitdx --help` loads none of
the heavy parts (plotting, the scoring run, the demo, the matchers' solver). Measured in a fresh
interpreter through the console script's entry (:mod:`admitdx.launcher`), as a user's shell starts
it; the CPU time is printed for the suite's log."""

from __future__ import annotations

import resource
import subprocess
import sys

#: Not needed to list the verbs and their options. (The build verbs' options come from the task
#: specs, whose modules import DuckDB; CliniBench's defaults come from a module importing SciPy.)
HEAVY = (
    "matplotlib",
    "torch",
    "sentence_transformers",
    "admitdx.report.plots",
    "admitdx.scoring.run",
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
    assert cpu < 0.5


def test_help_loads_none_of_the_heavy_parts() -> None:
    out, cpu = _start("--help")
    print(f"admitdx --help: {cpu:.2f} CPU-s")
    assert "predict" in out and "score" in out
    loaded = out.splitlines()[-1].split()[1:]
    assert not set(loaded) & set(HEAVY), loaded
