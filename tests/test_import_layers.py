"""The flow of imports runs one way: sources → tasks → systems → matching → scoring → report, with
the command line on top and the kernel below. This walks every module's imports (module level
and inside functions) and fails on an import from a later stage into an earlier one."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "admitdx"

#: Each top-level part of the package and its layer; a module may import its own layer or lower.
LAYERS: dict[str, int] = {
    # kernel
    "__init__": 0,
    "errors": 0,
    "jsonl": 0,
    "runs": 0,
    "contracts": 0,
    "progress": 0,
    "yaml_reader": 0,
    "provenance": 0,
    "colours": 0,
    "typed_options": 0,
    "ontology": 0,
    # reading EHR files, and the generator that writes them
    "sources": 1,
    "synthetic": 2,
    # infrastructure the model stages share (transport only)
    "llm": 2,
    "executors": 2,  # where LLM calls run (local or Ray): transport like llm, below auditing and systems
    "embeddings": 2,
    "retrieval": 2,
    # stages, in order
    "tasks": 3,
    "auditing": 4,
    "systems": 5,
    "harness": 5,  # exports a system's prompts to Inspect / lm-eval and replays their logs as a system
    "matching": 6,
    "metrics": 7,
    "scoring": 8,
    "report": 9,
    "demo": 10,
    "study": 10,  # a study runs the stages (and the demo runs a study)
    "cli": 11,
    "launcher": 11,  # the console script: --version, then the cli
}


def _part(module: str) -> str:
    return module.split(".")[1] if module.count(".") else "__init__"


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return [(line, m) for line, m in found if m == "admitdx" or m.startswith("admitdx.")]


def test_every_part_has_a_layer() -> None:
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir() if p.suffix == ".py" or p.is_dir()}
    parts -= {"__pycache__", "__main__"}
    assert parts <= set(LAYERS), f"place these in LAYERS: {sorted(parts - set(LAYERS))}"


def test_no_import_runs_back_up_the_flow() -> None:
    back_edges = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).with_suffix("")
        here = _part(".".join(relative.parts))
        for line, module in _imports(path):
            there = _part(module)
            if there in LAYERS and LAYERS[there] > LAYERS[here]:
                back_edges.append(f"{path.relative_to(PACKAGE)}:{line} imports {module}")
    assert not back_edges, "\n".join(back_edges)
