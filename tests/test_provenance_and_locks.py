"""Stages refuse what they cannot trust, through the real command line: predictions scored against
another dataset, unfinished or wrong-split runs, damaged files, two writers on one directory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import Instance, Reference
from admitdx.errors import AdmitdxError
from admitdx.jsonl import write_jsonl


class _Run:
    """A CliRunner result with the exit code ``admitdx`` gives: ``main`` turns an AdmitdxError into
    a message and exit code 2."""

    def __init__(self, args: list[str]) -> None:
        result = CliRunner().invoke(app, args)
        self.output, self.exception = result.output, result.exception
        self.exit_code = 2 if isinstance(result.exception, AdmitdxError) else result.exit_code


def _cli(*args: object) -> _Run:
    return _Run([str(a) for a in args])


def _dataset(folder: Path, *, text_suffix: str = "", label: str = "Pneumonia", n_test: int = 4) -> Path:
    rows = [
        Instance(
            f"tr{i}", i, "earlydx", "train", {}, f"cough {i}", [Reference("Pneumonia"), Reference("Sepsis")]
        )
        for i in range(4)
    ]
    rows += [
        Instance(f"te{i}", 100 + i, "earlydx", "test", {}, f"fever {i}{text_suffix}", [Reference(label)])
        for i in range(n_test)
    ]
    write_jsonl(folder / "instances.jsonl", (r.to_dict() for r in rows))
    return folder


@pytest.fixture
def predicted(tmp_path: Path) -> tuple[Path, Path]:
    ds = _dataset(tmp_path / "ds")
    result = _cli("predict", "--dataset", ds, "--system", "frequency", "--out", tmp_path / "pred")
    assert result.exit_code == 0, result.output
    result = _cli("match", "--dataset", ds, "--predictions", tmp_path / "pred", "--matcher", "exact")
    assert result.exit_code == 0, result.output
    return ds, tmp_path / "pred"


def _score(ds: Path, pred: Path, out: Path, *extra: object) -> _Run:
    return _cli("score", "--dataset", ds, "--predictions", pred, "--matcher", "exact", "--out", out,
                "--n-bootstrap", "20", *extra)  # fmt: skip


def test_predictions_of_another_build_are_refused_by_match_and_score(predicted, tmp_path: Path) -> None:
    _, pred = predicted
    other = _dataset(tmp_path / "other", text_suffix=" (6-hour window)")
    for result in (
        _score(other, pred, tmp_path / "s"),
        _cli("match", "--dataset", other, "--predictions", pred, "--matcher", "exact"),
        _score(other, pred, tmp_path / "s", "--allow-label-change"),  # inputs differ: never allowed
    ):
        assert result.exit_code == 2 and "another dataset" in str(result.exception)
        assert "manifest.json" in str(result.exception) and str(other) in str(result.exception)


def test_a_label_only_change_needs_the_flag_and_is_recorded(predicted, tmp_path: Path) -> None:
    _, pred = predicted
    relabelled = _dataset(tmp_path / "audit2", label="Sepsis")
    refused = _score(relabelled, pred, tmp_path / "s")
    assert refused.exit_code == 2 and "--allow-label-change" in str(refused.exception)
    kept = _cli("match", "--dataset", relabelled, "--predictions", pred, "--matcher", "exact")
    assert kept.exit_code == 2 and "other labels" in str(kept.exception)  # existing matches untouched
    matched = _cli("match", "--dataset", relabelled, "--predictions", pred, "--matcher", "exact",
                   "--allow-label-change")  # fmt: skip
    assert matched.exit_code == 0, matched.output
    scored = _score(relabelled, pred, tmp_path / "s", "--allow-label-change")
    assert scored.exit_code == 0, scored.output
    results = json.loads((tmp_path / "s" / "results.json").read_text())
    assert results["params"]["allow_label_change"] is True
    assert results["systems"][0]["provenance"]["dataset"] == "labels changed"
    summary = json.loads((pred / "matches" / "exact.summary.json").read_text())
    assert summary["provenance"]["allowed_by"] == "--allow-label-change"


def test_unfinished_wrong_split_and_empty_runs_are_refused(predicted, tmp_path: Path) -> None:
    ds, pred = predicted
    manifest_path = pred / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest_path.write_text(json.dumps({**manifest, "outputs": {"complete": False}}))
    refused = _score(ds, pred, tmp_path / "s")
    assert refused.exit_code == 2 and "unfinished" in str(refused.exception)
    assert _score(ds, pred, tmp_path / "s", "--allow-incomplete").exit_code == 0
    results = json.loads((tmp_path / "s" / "results.json").read_text())
    assert results["systems"][0]["provenance"]["incomplete"] == "allowed by --allow-incomplete"

    manifest_path.write_text(json.dumps({**manifest, "inputs": {**manifest["inputs"], "split": "val"}}))
    wrong = _score(ds, pred, tmp_path / "s")
    assert wrong.exit_code == 2 and "'val' split" in str(wrong.exception)

    manifest_path.write_text(json.dumps({**manifest, "outputs": {**manifest["outputs"], "predictions": 0}}))
    (pred / "predictions.jsonl").write_text("")
    empty = _score(ds, pred, tmp_path / "s")
    assert empty.exit_code == 2 and "no prediction" in str(empty.exception)


def test_damaged_or_missing_prediction_files_name_the_line(predicted, tmp_path: Path) -> None:
    ds, pred = predicted
    path = pred / "predictions.jsonl"
    lines = path.read_text().splitlines()
    path.write_bytes(("\ufeff" + "\n".join(lines) + "\n").encode())  # a byte-order mark is accepted
    assert _score(ds, pred, tmp_path / "s").exit_code == 0
    path.write_text("\n".join([lines[0], "garbage", *lines[1:]]) + "\n")
    bad = _score(ds, pred, tmp_path / "s")
    assert bad.exit_code == 2 and "row 2" in str(bad.exception) and "predictions.jsonl" in str(bad.exception)
    # as many lines as the manifest counts, so the check that a complete run is whole passes
    path.write_bytes(b"\n".join([lines[0].encode(), b"\xff\xfe{}", *(x.encode() for x in lines[2:])]) + b"\n")
    latin = _score(ds, pred, tmp_path / "s")
    assert latin.exit_code == 2 and "not UTF-8" in str(latin.exception)
    missing = _score(ds, tmp_path / "nowhere", tmp_path / "s")
    assert missing.exit_code == 2 and "admitdx predict" in str(missing.exception)


def test_predicting_the_training_split_says_what_to_do(tmp_path: Path) -> None:
    ds = _dataset(tmp_path / "ds")
    result = _cli(
        "predict", "--dataset", ds, "--system", "frequency", "--out", tmp_path / "p", "--split", "train"
    )
    assert result.exit_code == 2 and "--train-split" in str(result.exception)
    assert "rebuild" not in str(result.exception)


def test_a_second_writer_on_one_output_directory_is_refused(tmp_path: Path) -> None:
    """While a run holds --out, `admitdx predict` into it exits 2 naming the holder and writes
    nothing; the lock dies with its holder, so after a kill -9 the directory is free again."""
    ds, out = _dataset(tmp_path / "ds"), tmp_path / "pred"
    cli = [sys.executable, "-c", "from admitdx.cli import main; main()", "predict", "--dataset", str(ds),
           "--system", "frequency", "--out", str(out)]  # fmt: skip
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from admitdx.runs import exclusive\n"
         "with exclusive(sys.argv[1], 'predict'):\n    print('held', flush=True); time.sleep(600)", str(out)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        second = subprocess.run(cli, capture_output=True, text=True, timeout=300)
        assert second.returncode == 2 and "being written by another admitdx run" in second.stderr
        assert f"predict, pid {holder.pid}" in second.stderr
        assert not (out / "predictions.jsonl").exists()
    finally:
        holder.kill()  # SIGKILL: no cleanup runs in the holder
        holder.wait(30)
    after = subprocess.run(cli, capture_output=True, text=True, timeout=300)
    assert after.returncode == 0, after.stderr
    assert len((out / "predictions.jsonl").read_text().splitlines()) == 4


def test_a_build_stopped_between_renames_is_rebuilt_not_trusted(
    synthetic_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill between the commit's renames leaves no manifest: the rerun rebuilds, so split.csv and
    instances.jsonl never come from two builds."""
    out = tmp_path / "ds"
    assert _cli("build", "earlydx", "--mimic", synthetic_root, "--out", out).exit_code == 0
    real_replace = Path.replace

    def replace_then_die(self: Path, target: Path) -> Path:
        # split.csv sorts after manifest.json: in name order the new manifest would already vouch
        # for a directory whose split.csv is still the old build's
        if self.name == "split.csv":
            raise OSError("simulated kill between two renames")
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", replace_then_die)
    stopped = _cli("build", "earlydx", "--mimic", synthetic_root, "--out", out, "--seed", "1")
    monkeypatch.setattr(Path, "replace", real_replace)
    assert stopped.exception is not None and not (out / "manifest.json").exists()
    rerun = _cli("build", "earlydx", "--mimic", synthetic_root, "--out", out, "--seed", "1")
    assert rerun.exit_code == 0 and "already holds" not in rerun.output
    split = dict(line.split(",") for line in (out / "split.csv").read_text().splitlines()[1:])
    for line in (out / "instances.jsonl").read_text().splitlines():
        record = json.loads(line)
        assert split[str(record["subject_id"])] == record["split"]
    assert not (out / ".building").exists()
