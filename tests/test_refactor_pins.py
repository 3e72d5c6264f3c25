"""EarlyDx output pinned byte for byte across refactors.

The task-model refactor moved the builder's shared parts (split, writer, sections) out of
``tasks/earlydx`` and scoring out of ``report/``. Nothing a researcher has built or scored may
change because of such a move: these tests pin the SHA-256 of ``instances.jsonl``, ``split.csv``
and ``coverage.csv`` of several builds (the real demo and a synthetic root, default and non-default
parameters), and every EarlyDx metric of a scored run of real baselines. The pinned values in
``data/refactor_pins.json`` were written by the code *before* the refactor; regenerate them only
when an issue asks for a change in output (``ADMITDX_WRITE_PINS=1``), and say so in the commit.

Issue 14 changed the defaults (``--label-filter paper``, ``--layout paper``), so the ``demo`` and
``synthetic`` pins were rewritten for the new defaults; the pins written before it live on as
``demo-legacy`` / ``synthetic-legacy``, and every build run with ``--label-filter strict --layout
demarcated`` must still reproduce them byte for byte.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.runs import sha256_file, sha256_text

PINS = Path(__file__).parent / "data" / "refactor_pins.json"
WRITE = os.environ.get("ADMITDX_WRITE_PINS") == "1"
BUILDS = {
    "default": [],
    "w24-storetime": ["--window-hours", "24", "--timestamps", "storetime"],
    "admission-dictionary": ["--lab-scope", "admission", "--label-text", "dictionary"],
    "demo-cc": ["--keep-sections", "demographics,chief_complaint"],
}
FILES = ("instances.jsonl", "split.csv", "coverage.csv")
#: The options that give the output of admitdx before issue 14 (its label filter and layout).
LEGACY = ["--label-filter", "strict", "--layout", "demarcated"]
#: Before issue 23, predict also predicted the encounters outside the benchmark set.
LEGACY_PREDICT = ["--set", "train_labels=all", "--keep-unsupported-only"]
LEGACY_SCORING = ["--bootstrap-universe", "split", "--keep-unsupported-only"]


def _pins() -> dict:
    return json.loads(PINS.read_text(encoding="utf-8")) if PINS.exists() else {}


def _save(section: str, key: str, value: object) -> None:
    pins = _pins()
    pins.setdefault(section, {})[key] = value
    PINS.parent.mkdir(exist_ok=True)
    PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _invoke(*args: str) -> None:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _check(section: str, key: str, value: object) -> None:
    if WRITE:
        _save(section, key, value)
        return
    assert value == _pins()[section][key], f"{section}/{key} changed"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BUILDS))
def test_demo_builds_are_byte_identical(demo_dir: Path, tmp_path: Path, name: str) -> None:
    out = tmp_path / name
    _invoke("build", "earlydx", "--mimic", str(demo_dir), "--out", str(out), *BUILDS[name])
    _check("demo", name, {f: sha256_file(out / f) for f in FILES})


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BUILDS))
def test_synthetic_builds_are_byte_identical(synthetic_root: Path, tmp_path: Path, name: str) -> None:
    out = tmp_path / name
    _invoke("build", "earlydx", "--mimic", str(synthetic_root), "--out", str(out), *BUILDS[name])
    _check("synthetic", name, {f: sha256_file(out / f) for f in FILES})


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BUILDS))
def test_strict_demarcated_builds_reproduce_the_bytes_before_issue_14(
    demo_dir: Path, synthetic_root: Path, tmp_path: Path, name: str
) -> None:
    for section, root in (("demo-legacy", demo_dir), ("synthetic-legacy", synthetic_root)):
        out = tmp_path / section
        _invoke("build", "earlydx", "--mimic", str(root), "--out", str(out), *BUILDS[name], *LEGACY)
        assert {f: sha256_file(out / f) for f in FILES} == _pins()[section][name], f"{section}/{name} changed"


def _close(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _audit_by_hash(ds: Path, out: Path) -> None:
    """Evidence classes drawn from a hash of (instance, label): an audited dataset that no change
    to an auditor can move, so the pinned scores test the scoring alone."""
    classes = ("supported", "partial", "unsupported")
    lines = []
    for line in (ds / "instances.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for j, ref in enumerate(record["references"]):
            ref["evidence_class"] = classes[int(sha256_text(f"{record['id']}:{j}")[:8], 16) % 3]
        lines.append(json.dumps(record))
    out.mkdir()
    (out / "instances.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.slow
def test_earlydx_scores_of_real_baselines_do_not_change(synthetic_root: Path, tmp_path: Path) -> None:
    """Synthetic build with fixed evidence classes, frequency and BM25-kNN predictions, exact
    matching, 200 bootstrap replicates: every EarlyDx metric (value and interval) equals the pin."""
    ds, audited = tmp_path / "ds", tmp_path / "audited"
    _invoke(
        "build", "earlydx", "--mimic", str(synthetic_root), "--out", str(ds),
        "--test-fraction", "0.3", *LEGACY,
    )  # fmt: skip
    _audit_by_hash(ds, audited)
    runs = []
    for system in ("frequency", "knn-bm25"):
        run = tmp_path / system
        # train_labels=all: what every system learned from before issue 14's benchmark set
        _invoke("predict", "--dataset", str(audited), "--system", system, "--out", str(run), *LEGACY_PREDICT)
        _invoke("match", "--dataset", str(audited), "--predictions", str(run), "--matcher", "exact")
        runs.append(str(run))
    out = tmp_path / "scores"
    _invoke(
        "score", "--dataset", str(audited), "--predictions", *runs, "--matcher", "exact",
        "--out", str(out), "--n-bootstrap", "200", *LEGACY_SCORING,
    )  # fmt: skip
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    prefixes = ("supported", "supported_partial", "partial", "all", "tc", "graded")
    observed = {
        s["name"]: {
            k: [m["value"], m["ci"]] for k, m in sorted(s["metrics"].items()) if k.split(".")[0] in prefixes
        }
        for s in results["systems"]
    }
    if WRITE:
        _save("scores", "synthetic", observed)
        return
    pinned = _pins()["scores"]["synthetic"]
    assert set(observed) == set(pinned)
    for system, metrics in pinned.items():
        assert set(metrics) <= set(observed[system]), f"{system}: metrics disappeared"
        changed = [k for k, v in metrics.items() if not _close(observed[system][k], v)]
        assert not changed, f"{system}: {changed[:5]} changed"
