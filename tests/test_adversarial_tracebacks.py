"""Issue 26, class 4: inputs that ended in a traceback now stop with exit 2 naming file and fix.

``match`` on predictions whose ``items`` is not a list (TypeError) and on a garbage
``manifest.json`` (JSONDecodeError); ``build`` under a file-size limit (``OSError: [Errno 27] File
too large``), which must also leave nothing a rerun would trust.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adversarial_runs import Cli, write_dataset
from data_roots import run_process


@pytest.fixture
def cli(capsys, monkeypatch) -> Cli:
    return Cli(capsys, monkeypatch)


def test_items_that_are_not_a_list_name_the_line(cli: Cli, tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds", {"e0", "e1", "e2", "e3"})
    pred = cli.predict(ds, tmp_path / "pred")
    path = pred / "predictions.jsonl"
    lines = path.read_text().splitlines()
    lines[1] = json.dumps({**json.loads(lines[1]), "items": "Pneumonia"})
    path.write_text("\n".join(lines) + "\n")
    code, err = cli.match(ds, pred)
    assert code == 2 and "not a prediction: its items are not a list" in err and f"table {path}, row 2" in err


@pytest.mark.parametrize("garbage", ['{"stage": "predict", "inputs": {', "[1, 2]"])
def test_a_garbage_manifest_is_named(cli: Cli, tmp_path: Path, garbage: str) -> None:
    ds = write_dataset(tmp_path / "ds", {"e0", "e1", "e2", "e3"})
    pred = cli.predict(ds, tmp_path / "pred")
    assert cli.match(ds, pred)[0] == 0  # so that score gets as far as the manifest
    (pred / "manifest.json").write_text(garbage)
    for code, err in (cli.match(ds, pred), cli.score(ds, pred, tmp_path / "s")):
        assert code == 2, err
        assert "not a manifest" in err and f"table {pred / 'manifest.json'}" in err and "restore it" in err


def test_a_build_under_a_file_size_limit_stops_and_leaves_nothing_trusted(
    synthetic_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real RLIMIT_FSIZE (``ulimit -f``), low enough to stop the lock file (0) or the instances
    (40 blocks): exit 2 naming the file and the limit, and no staging folder or manifest that a
    rerun could mistake for a build (the builder's commit and abort are tested elsewhere)."""
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))  # the child's verdicts stay here
    out = tmp_path / "ds"
    for blocks in (0, 40):
        limited = ["sh", "-c", f'ulimit -f {blocks} && exec "$@"', "sh"]
        done = run_process(
            ["build", "earlydx", "--mimic", str(synthetic_root), "--out", str(out)], prefix=limited
        )
        err = " ".join(done.stderr.split())
        assert done.returncode == 2 and "Traceback" not in err, err
        assert "file-size limit (ulimit -f)" in err and "ulimit -f unlimited" in err
        assert not (out / ".building").exists() and not (out / "manifest.json").exists()
    assert f"cannot write {out / '.building' / 'instances.jsonl'}" in err  # the file it was writing


def test_a_garbage_match_summary_is_named(cli: Cli, tmp_path: Path) -> None:
    """The summary that guards matches against another dataset, damaged: named, not a traceback."""
    ds = write_dataset(tmp_path / "ds", {"e0", "e1", "e2", "e3"})
    pred = cli.predict(ds, tmp_path / "pred")
    assert cli.match(ds, pred)[0] == 0
    summary = pred / "matches" / "exact.summary.json"
    summary.write_text('{"matcher": "exa')
    code, err = cli.match(ds, pred)
    assert code == 2 and "not a match summary: not JSON" in err and f"table {summary}" in err
