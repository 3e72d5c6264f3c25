"""Shared fixtures: the real MIMIC-IV demo, and small synthetic roots and datasets built once per session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from admitdx.llm.local_server import LocalServer, llama_cpp_available

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DEMO = REPO.parent / "shared" / "data" / "mimic-iv-demo"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules holding a slow or LLM test run first. `make test` gives each of its two workers one
    module at a time (pytest-xdist's loadscope); a long module handed out last would leave the other
    worker idle at the end. Within a module the order is kept (the sort is stable)."""
    heavy = {
        item.nodeid.split("::")[0]
        for item in items
        if item.get_closest_marker("slow") or item.get_closest_marker("llm")
    }
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in heavy)


@pytest.fixture(scope="session")
def demo_dir() -> Path:
    """The open MIMIC-IV demo (hosp + ed), from $ADMITDX_DEMO_DIR or ../shared beside the repo."""
    path = Path(os.environ.get("ADMITDX_DEMO_DIR", DEFAULT_DEMO))
    if not (path / "hosp").is_dir():
        pytest.skip(f"MIMIC-IV demo not found at {path} (set ADMITDX_DEMO_DIR)")
    return path


@pytest.fixture(scope="session")
def converted_demo(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``admitdx data convert`` of the demo, made once per session (tests that damage it copy it)."""
    from admitdx.sources.convert import convert_mimic

    out = tmp_path_factory.mktemp("parquet") / "mimic"
    convert_mimic(demo_dir, out)
    return out


@pytest.fixture(scope="session")
def synthetic_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 300-patient synthetic MIMIC-IV root (seed 7), generated once per test session."""
    from admitdx.synthetic import generate_synthetic

    out = tmp_path_factory.mktemp("synth") / "mimic"
    generate_synthetic(out, patients=300, seed=7)
    return out


@pytest.fixture(scope="session")
def synthetic_dataset(synthetic_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The EarlyDx dataset built with default parameters from ``synthetic_root``."""
    from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx

    out = tmp_path_factory.mktemp("earlydx")
    build_earlydx(synthetic_root, out, EarlyDxParams())
    return out


@pytest.fixture(scope="session")
def hosp10(synthetic_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The CliniBench hosp ICD-10 dataset of ``synthetic_root`` (systems, scoring and export tests)."""
    from typer.testing import CliRunner

    from admitdx.cli import app

    out = tmp_path_factory.mktemp("cb") / "hosp-icd10"
    args = ["build", "clinibench", "--mimic", str(synthetic_root), "--out", str(out), "--module", "hosp"]
    result = CliRunner().invoke(app, [*args, "--icd-version", "10"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="session")
def local_llm() -> Iterator[LocalServer]:
    """The embedded llama.cpp server with the shipped SmolLM2 model, one per test session."""
    if not llama_cpp_available():
        pytest.skip("llama-cpp-python is not installed (pip install 'admitdx[local]')")
    with LocalServer() as srv:
        yield srv
