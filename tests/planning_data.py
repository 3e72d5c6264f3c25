"""A hand-made ER-Reason planning run for concept-recall tests: a dataset whose instances have
multi-part text targets, one system's answers, and `admitdx score` over them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.predict_manifests import write_predict_manifest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import Instance, Prediction
from admitdx.jsonl import write_jsonl

TASK = "er-reason-release-planning"


def write_answers(run: Path, answers: list[dict[str, str]]) -> None:
    write_jsonl(
        run / "predictions.jsonl",
        (Prediction(f"i{k}", "sys", [], answer=a).to_dict() for k, a in enumerate(answers)),
    )


def write_planning_run(
    tmp_path: Path, targets: list[dict[str, str]], answers: list[dict[str, str]]
) -> tuple[Path, Path]:
    """(dataset dir, predictions dir): instance ``i<k>`` of patient k+1 has ``targets[k]``."""
    ds, run = tmp_path / "ds", tmp_path / "sys"
    instances = [
        Instance(f"i{k}", k + 1, TASK, "test", {}, "record", [], target=t) for k, t in enumerate(targets)
    ]
    write_jsonl(ds / "instances.jsonl", (i.to_dict() for i in instances))
    write_answers(run, answers)
    write_predict_manifest(run, instances)
    return ds, run


def score(ds: Path, run: Path, out: Path, *options: str) -> dict[str, Any]:
    """results.json of `admitdx score` (20 bootstrap replicates); an admitdx error is raised as is."""
    args = [
        "score",
        "--dataset",
        str(ds),
        "--predictions",
        str(run),
        "--out",
        str(out),
        "--n-bootstrap",
        "20",
    ]
    result = CliRunner().invoke(app, [*args, *options])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text())
