"""Issue 30, class 12 (converted copies): a damaged conversion manifest.

A converted copy's ``manifest.json`` that is not JSON was reported as "an unfinished convert (0 of 0
tables)"; one whose ``outputs`` or ``tables`` had the wrong type was a traceback in every verb that
reads the copy. ``convert`` writes its manifest aside and renames it, so neither is a kill's
leftover: each is now exit 2 naming the manifest and the key, and ``data convert`` into the folder
(the fix the message names) redoes it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from data_roots import run_cli

VERBS = (
    ["data", "check"],
    ["build", "earlydx", "--out", "{out}/earlydx"],
    ["build", "er-reason", "--task", "acuity", "--out", "{out}/acuity"],
)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))


def _damaged(converted: Path, to: Path, edit) -> Path:
    shutil.copytree(converted, to)
    path = to / "manifest.json"
    path.write_text(edit(json.loads(path.read_text())), encoding="utf-8")
    return to


def _outputs(value):
    return lambda m: json.dumps({**m, "outputs": value})


def _tables(value):
    return lambda m: json.dumps({**m, "outputs": {**m["outputs"], "tables": value}})


def _entry(m):
    tables = dict(m["outputs"]["tables"])
    tables[next(iter(tables))] = 5
    return json.dumps({**m, "outputs": {**m["outputs"], "tables": tables}})


CASES = {
    "not JSON": (lambda m: json.dumps(m)[:-40], "not a conversion manifest: not JSON"),
    "outputs a list": (_outputs([]), "outputs is list [], expected an object"),
    "outputs a string": (_outputs("done"), 'outputs is str "done", expected an object'),
    "tables a string": (_tables("all"), 'outputs.tables is str "all", expected an object'),
    "tables a list": (_tables(["hosp.admissions"]), "outputs.tables is list"),
    "a table entry a number": (_entry, "expected an object"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_manifest_is_exit_2_naming_it_in_every_verb(
    case: str, converted_demo: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    edit, said = CASES[case]
    copy = _damaged(converted_demo, tmp_path / "copy", edit)
    for verb in VERBS:
        args = [a.format(out=tmp_path) for a in verb]
        code, _, err = run_cli([*args, "--mimic", str(copy)], capsys, monkeypatch)
        err = " ".join(err.split())
        assert code == 2, (verb, err)
        assert said in err and f"table {copy / 'manifest.json'}" in err, (verb, err)
        assert "unfinished" not in err and "Traceback" not in err


def test_convert_into_the_folder_redoes_a_damaged_manifest(
    demo_dir: Path, converted_demo: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    copy = _damaged(converted_demo, tmp_path / "copy", _tables("all"))
    code, _, err = run_cli(
        ["data", "convert", "--mimic", str(demo_dir), "--out", str(copy)], capsys, monkeypatch
    )
    assert code == 0, err
    assert run_cli(["data", "check", "--mimic", str(copy)], capsys, monkeypatch)[0] == 0
    assert json.loads((copy / "manifest.json").read_text())["outputs"]["complete"] is True
