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
    "concurrency": 0,  # whether study lanes run side by side: asked by scoring, set by study's threads
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
    "study": 10,  # a study runs the stages, and knows no demo
    "demo": 11,  # the demo is one study: its shipped file and a thin verb
    "cli": 12,
    "launcher": 12,  # the console script: --version, then the cli
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


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _target(module: str, names: list[str], modules: set[str]) -> list[str]:
    """The admitdx modules an import names: ``from admitdx.a import b`` is ``admitdx.a.b`` when b is
    a module, else ``admitdx.a``."""
    found = [f"{module}.{n}" for n in names if f"{module}.{n}" in modules]
    return found or ([module] if module in modules else [])


def _import_graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in paths}
    for module, path in paths.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                graph[module] |= set(_target(node.module, [a.name for a in node.names], set(paths)))
            elif isinstance(node, ast.Import):
                graph[module] |= {a.name for a in node.names if a.name in paths}
    return graph


def test_no_two_modules_import_each_other_round_a_circle() -> None:
    """A circle of imports (a → b → … → a, lazy and type-only imports included) works only by the
    order modules happen to load in, and neither of its modules can be read or moved alone."""
    graph = _import_graph()
    circles = set()
    for start in graph:
        stack = [(start, (start,))]
        while stack:
            here, path = stack.pop()
            for there in graph[here]:
                if there == start and len(path) > 1:
                    circles.add(" → ".join((*path, start)))
                elif there not in path and there > start:  # each circle once, from its first module
                    stack.append((there, (*path, there)))
    assert not circles, "\n".join(sorted(circles))
