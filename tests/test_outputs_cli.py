"""One consistent command line: `predict --limit` trials extended by a later run, `predict --name`,
`match --set` (with `--param` kept) over several prediction directories in one call, `systems
--verbose`, and help laid out wider than 80 columns off a terminal."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import scoring_data as sd
from admitdx.cli import app
from admitdx.jsonl import read_jsonl


def run_cli(*args: object) -> object:
    return CliRunner().invoke(app, [str(a) for a in args])


def _ids(directory: Path) -> list[str]:
    return [r["instance_id"] for r in read_jsonl(directory / "predictions.jsonl")]


def test_a_limit_trial_is_extended_by_a_later_run(tmp_path: Path) -> None:
    ds = sd.write_dataset(tmp_path / "ds", sd.instances())
    out = tmp_path / "pred"
    first = run_cli("predict", "--dataset", ds, "--system", "frequency", "--out", out, "--limit", "2")
    assert first.exit_code == 0, first.output
    trial = (out / "predictions.jsonl").read_text()
    assert _ids(out) == ["e1", "e2"]
    more = run_cli("predict", "--dataset", ds, "--system", "frequency", "--out", out, "--limit", "4")
    assert more.exit_code == 0, more.output
    rest = run_cli("predict", "--dataset", ds, "--system", "frequency", "--out", out)
    assert rest.exit_code == 0, rest.output
    assert _ids(out) == ["e1", "e2", "e3", "e4", "e5", "e6"]  # appended, each once
    assert (out / "predictions.jsonl").read_text().startswith(trial)  # the trial's lines are kept
    assert "2 predicted now, 4 earlier" in " ".join(rest.output.split())
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["inputs"]["limit"] is None and manifest["outputs"]["predictions"] == 6
    # what changes the answers is still refused
    other = run_cli("predict", "--dataset", ds, "--system", "frequency", "--out", out, "--set", "k=1")
    assert other.exit_code != 0


def test_name_match_set_and_several_directories_in_one_call(tmp_path: Path) -> None:
    ds = sd.write_dataset(tmp_path / "ds", sd.instances())
    dirs = []
    for name, k in (("freq-k1", 1), ("freq-k5", 5)):
        d = tmp_path / name
        r = run_cli(
            "predict", "--dataset", ds, "--system", "frequency", "--set", f"k={k}", "--name", name, "--out", d
        )
        assert r.exit_code == 0, r.output
        assert {p["system"] for p in read_jsonl(d / "predictions.jsonl")} == {name}
        dirs.append(d)
    bad = run_cli("match", "--dataset", ds, "--predictions", dirs[0], "--matcher", "exact", "--set", "x=1")
    assert bad.exit_code != 0 and "x" in str(bad.exception)  # --set reaches the matcher
    old = run_cli("match", "--dataset", ds, "--predictions", dirs[0], "--matcher", "exact", "--param", "x=1")
    assert old.exit_code != 0 and "x" in str(old.exception)  # the old name still works
    r = run_cli("match", "--dataset", ds, "--predictions", dirs[0], dirs[1], "--matcher", "exact")
    assert r.exit_code == 0, r.output
    for d in dirs:
        assert len(list(read_jsonl(d / "matches" / "exact.jsonl"))) == 6
    out = tmp_path / "s"
    scored = run_cli("score", "--dataset", ds, "--predictions", *dirs, "--matcher", "exact", "--out", out)
    assert scored.exit_code == 0, scored.output
    systems = json.loads((out / "results.json").read_text())["systems"]
    assert [s["name"] for s in systems] == ["freq-k1", "freq-k5"]


def test_systems_verbose_lists_each_kinds_options() -> None:
    plain = run_cli("systems")
    verbose = run_cli("systems", "--verbose")
    assert plain.exit_code == 0 and verbose.exit_code == 0
    assert "neighbours=1" not in plain.output and "neighbours=1" in verbose.output  # knn defaults
    assert "retriever='bm25'" in verbose.output and "task=" not in verbose.output


def test_help_is_not_cut_at_80_columns() -> None:
    text = run_cli("match", "--help").output
    line = (
        "Pair each prediction with the references it names, one-to-one, into PREDICTIONS/matches/NAME.jsonl."
    )
    assert line in text and max(len(x) for x in text.splitlines()) > 100


def test_predict_system_local_is_the_llm_kind_as_for_audit(tmp_path: Path) -> None:
    """`--system local` is the llm kind with base_url=local (here overridden by --set, so the test
    talks to a loopback server instead of starting the bundled model)."""
    from admitdx.llm.fault_server import FaultServer

    ds = sd.write_dataset(tmp_path / "ds", sd.instances())
    out = tmp_path / "local"
    with FaultServer() as server:
        r = run_cli(
            "predict", "--dataset", ds, "--system", "local", "--set", f"base_url={server.base_url}",
            "--set", f"cache_path={tmp_path / 'cache.sqlite'}", "--out", out, "--limit", "2",
        )  # fmt: skip
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["inputs"]["system"]["name"] == "local" and manifest["inputs"]["system"]["kind"] == "llm"
    assert {p["system"] for p in read_jsonl(out / "predictions.jsonl")} == {"local"}
