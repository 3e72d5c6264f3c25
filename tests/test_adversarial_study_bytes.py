"""Issue 30, classes 9 and 10: prediction files were not bound to their manifest, and token tallies
under-counted after a resume.

Another run's ``predictions.jsonl`` put in place, or another dataset's lines appended to it, were
matched and scored with exit 0; rerunning ``predict`` on a file with a duplicated line rewrote the
manifest to bless it. A completed run now records its file's SHA-256 beside its line count, and
``match``, ``score`` and ``predict`` refuse a file that is not the one the run completed, naming it.
A resumed run's token and cost tally counted only the answers it asked itself; it now sums the
``usage`` every line of the file keeps.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from tests.dialect_servers import DialectServer

from admitdx.systems import runner
from admitdx.systems.config import SystemChoice
from adversarial_runs import Cli, completed_run, manifest, write_dataset

PRICE = {"prompt": 0.5, "completion": 2.0}


@pytest.fixture
def cli(capsys, monkeypatch) -> Cli:
    return Cli(capsys, monkeypatch)


@pytest.fixture
def run(cli: Cli, tmp_path: Path) -> tuple[Path, Path]:
    return completed_run(cli, tmp_path)


def test_a_completed_run_records_its_files_digest_and_lines(run: tuple[Path, Path]) -> None:
    _, pred = run
    outputs = manifest(pred)["outputs"]
    data = (pred / "predictions.jsonl").read_bytes()
    assert outputs["predictions"] == data.count(b"\n") == 4
    assert outputs["predictions_sha256"] == hashlib.sha256(data).hexdigest()


def test_another_runs_file_put_in_place_is_refused(cli: Cli, run: tuple[Path, Path], tmp_path: Path) -> None:
    """Same dataset, same instances, same line count: only the bytes tell (knn's answers under
    frequency's manifest)."""
    ds, pred = run
    code, err = cli("predict", "--dataset", ds, "--system", "knn-bm25", "--out", tmp_path / "knn")
    assert code == 0, err
    other = (tmp_path / "knn" / "predictions.jsonl").read_text().replace('"knn-bm25"', '"frequency"')
    assert other != (pred / "predictions.jsonl").read_text()
    (pred / "predictions.jsonl").write_text(other)
    path = pred / "predictions.jsonl"
    for code, err in (cli.match(ds, pred), cli.score(ds, pred, tmp_path / "s")):
        assert code == 2, err
        assert "not the file this run completed" in err and f"table {path}" in err
    code, err = cli("predict", "--dataset", ds, "--system", "frequency", "--out", pred)
    assert code == 2 and "not the file this run completed" in err  # not blessed by a rerun


def test_lines_of_another_dataset_appended_are_refused(
    cli: Cli, run: tuple[Path, Path], tmp_path: Path
) -> None:
    ds, pred = run
    other = cli.predict(write_dataset(tmp_path / "ds2", {"e4", "e5"}), tmp_path / "pred2")
    with (pred / "predictions.jsonl").open("a") as f:
        f.write((other / "predictions.jsonl").read_text())
    code, err = cli.score(ds, pred, tmp_path / "s")
    assert code == 2 and "not the file this run completed: 6 lines" in err and "recorded 4 lines" in err


def test_predict_does_not_bless_a_duplicated_line(cli: Cli, run: tuple[Path, Path]) -> None:
    ds, pred = run
    path = pred / "predictions.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([*lines, lines[1]]))
    before = (pred / "manifest.json").read_bytes()
    code, err = cli("predict", "--dataset", ds, "--system", "frequency", "--out", pred)
    assert code == 2 and f"table {path}" in err
    assert (pred / "manifest.json").read_bytes() == before  # not rewritten to bless 5 lines


def test_a_duplicated_line_in_an_unfinished_run_is_refused_naming_its_row(
    cli: Cli, run: tuple[Path, Path]
) -> None:
    """An unfinished run has no digest yet; a run appends each instance once, so a second line for
    one instance came from elsewhere."""
    ds, pred = run
    data = manifest(pred)
    data["outputs"] = {"complete": False}
    (pred / "manifest.json").write_text(json.dumps(data))
    path = pred / "predictions.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([lines[0], lines[1], lines[0]]))
    code, err = cli("predict", "--dataset", ds, "--system", "frequency", "--out", pred)
    assert code == 2 and "predicted twice" in err and f"table {path}, row 3" in err


def _llm(srv: DialectServer, cache: Path) -> SystemChoice:
    options = {"base_url": srv.base_url, "model": "test-model", "server": "vllm", "price_per_million": PRICE,
               "cache_path": str(cache)}  # fmt: skip
    return SystemChoice("llm", "llm", options)


def test_a_resumed_runs_tokens_count_every_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Interrupted after two of four answers (Ctrl-C while appending the third), then resumed: the
    manifest's tally is the uninterrupted run's, cost included, not the last two answers'. Each run
    has its own cache; the resumed one may find the answer that was in flight there (``cached``)."""
    ds = write_dataset(tmp_path / "ds", {"e0", "e1", "e2", "e3"})
    with DialectServer("vllm") as srv:
        whole = runner.run_predictions(
            ds, _llm(srv, tmp_path / "whole.sqlite"), tmp_path / "whole", show_progress=False
        )
        assert whole.predicted == 4
        appended = []
        real_append = runner.append_jsonl

        def interrupted(path: Path, record: dict) -> None:
            if len(appended) == 2:
                raise KeyboardInterrupt
            appended.append(record["instance_id"])
            real_append(path, record)

        monkeypatch.setattr(runner, "append_jsonl", interrupted)
        with pytest.raises(KeyboardInterrupt):
            runner.run_predictions(
                ds, _llm(srv, tmp_path / "resumed.sqlite"), tmp_path / "resumed", show_progress=False
            )
        monkeypatch.setattr(runner, "append_jsonl", real_append)
        resumed = runner.run_predictions(
            ds, _llm(srv, tmp_path / "resumed.sqlite"), tmp_path / "resumed", show_progress=False
        )
    assert (resumed.resumed, resumed.predicted) == (2, 2)
    tokens = manifest(tmp_path / "whole")["outputs"]["fit"]["tokens"]
    assert tokens["answers"] == 4 and tokens["prompt_tokens"] == 400 and tokens["cost_usd"] > 0
    again = manifest(tmp_path / "resumed")["outputs"]["fit"]["tokens"]
    assert {**again, "cached": 0} == tokens and again["cached"] <= 2


def test_a_run_killed_after_its_last_line_still_records_its_tokens(tmp_path: Path) -> None:
    """Every line written, the final manifest not: the rerun predicts nothing, and the tally it
    records is the file's (there was none before)."""
    ds = write_dataset(tmp_path / "ds", {"e0", "e1", "e2"})
    with DialectServer("vllm") as srv:
        runner.run_predictions(ds, _llm(srv, tmp_path / "c.sqlite"), tmp_path / "whole", show_progress=False)
        shutil.copytree(tmp_path / "whole", tmp_path / "killed")
        data = manifest(tmp_path / "killed")
        data["outputs"] = {"complete": False}
        (tmp_path / "killed" / "manifest.json").write_text(json.dumps(data))
        again = runner.run_predictions(
            ds, _llm(srv, tmp_path / "c.sqlite"), tmp_path / "killed", show_progress=False
        )
    assert again.predicted == 0
    whole = manifest(tmp_path / "whole")["outputs"]["fit"]["tokens"]
    assert manifest(tmp_path / "killed")["outputs"]["fit"]["tokens"] == whole
