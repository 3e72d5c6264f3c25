"""Issue 26, class 2: predictions with no manifest bypassed provenance.

With ``manifest.json`` deleted, the predictions of another build (or of the same encounters split
with another seed) were matched and scored with exit 0 and only a warning that most encounters had
no prediction. ``match`` and ``score`` now refuse them, saying how to re-create the manifest or
that ``--allow-no-manifest`` scores predictions made outside admitdx, which the results record.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adversarial_runs import Cli, write_dataset


@pytest.fixture
def cli(capsys, monkeypatch) -> Cli:
    return Cli(capsys, monkeypatch)


def test_predictions_of_another_split_seed_without_manifest_are_refused(cli: Cli, tmp_path: Path) -> None:
    seed_a = write_dataset(tmp_path / "seed-a", {"e0", "e1", "e2", "e3"})
    seed_b = write_dataset(tmp_path / "seed-b", {"e8", "e9", "e10", "e11"})
    pred = cli.predict(seed_a, tmp_path / "pred")
    assert cli.match(seed_a, pred)[0] == 0
    (pred / "manifest.json").unlink()
    for code, err in (cli.match(seed_b, pred), cli.score(seed_b, pred, tmp_path / "s")):
        assert code == 2, err
        assert f"{pred} has no manifest.json of `admitdx predict`" in err
        assert f"admitdx predict --dataset {seed_b} --system NAME --out NEW_DIR" in err  # how to re-create it
        assert "--allow-no-manifest" in err
    assert not (tmp_path / "s" / "results.json").exists()


def test_allow_no_manifest_scores_and_records_it(cli: Cli, tmp_path: Path) -> None:
    """Predictions made outside admitdx are scored on request; match summary and results say so."""
    ds = write_dataset(tmp_path / "ds", {"e0", "e1", "e2", "e3"})
    pred = cli.predict(ds, tmp_path / "pred")
    (pred / "manifest.json").unlink()
    code, err = cli.match(ds, pred, "--allow-no-manifest")
    assert code == 0, err
    summary = json.loads((pred / "matches" / "exact.summary.json").read_text())
    assert summary["provenance"]["dataset"] == "unknown"
    assert summary["provenance"]["allowed_by"] == "--allow-no-manifest"
    code, err = cli.score(ds, pred, tmp_path / "s", "--allow-no-manifest")
    assert code == 0, err
    results = json.loads((tmp_path / "s" / "results.json").read_text())
    assert results["params"]["allow_no_manifest"] is True
    assert results["systems"][0]["provenance"]["allowed_by"] == "--allow-no-manifest"
