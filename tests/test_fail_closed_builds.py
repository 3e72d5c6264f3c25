"""Issue 29's manifest and console: what the fail-closed readers withheld or left out, with counts.

CliniBench: a section under a heading the reader does not recognise ("Inpatient Events Summary:")
is withheld, its spelling listed in the manifest's ``withheld_headings`` and printed on the
console; ``--keep-heading`` shows it and is recorded. ER-Reason: the console prints every reason an
encounter was left out with the manifest's count.
"""

from __future__ import annotations

import csv
import gzip
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import load_instances
from admitdx.runs import read_manifest

UNKNOWN = "Inpatient Events Summary"
SECRET = "Qzsecretmarker"
_BUILD = ("build", "clinibench", "--module", "hosp", "--icd-version", "10", "--mimic")


def _invoke(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def planted_root(synthetic_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic root with an unrecognised section planted before each note's admission medications."""
    root = tmp_path_factory.mktemp("planted")
    shutil.copytree(synthetic_root, root, copy_function=os.symlink, dirs_exist_ok=True)  # files linked
    (root / "note/discharge.csv.gz").unlink()
    with gzip.open(synthetic_root / "note/discharge.csv.gz", "rt", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    text = rows[0].index("text")
    for row in rows[1:]:
        head = next(h for h in ("Medications on Admission:", "MEDICATIONS ON ADMISSION:") if h in row[text])
        row[text] = row[text].replace(head, f"{UNKNOWN}:\n{SECRET} sepsis\n \n{head}", 1)
    with gzip.open(root / "note/discharge.csv.gz", "wt", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return root


def test_unrecognised_heading_is_withheld_listed_and_printed(planted_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "cb"
    result = _invoke(*_BUILD, str(planted_root), "--out", str(out))
    assert result.exit_code == 0, result.output
    insts = load_instances(out)
    assert insts and not any(SECRET in i.text for i in insts)
    withheld = read_manifest(out)["outputs"]["withheld_headings"]
    assert withheld["unrecognised_spellings"][UNKNOWN] == withheld["unrecognised"] >= len(insts)
    assert withheld["by_section"]["unrecognised"] == withheld["unrecognised"]
    printed = " ".join(result.output.split())  # the console wraps long lines
    line = printed[printed.index("withheld ") :]
    assert line.startswith(
        f"withheld {withheld['sections']} sections, {withheld['unrecognised']} under unrecognised"
    )
    assert f"'{UNKNOWN}' {withheld['unrecognised']}" in line and "--keep-heading" in line


def test_keep_heading_shows_it_and_is_recorded(planted_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "cb"
    result = _invoke(*_BUILD, str(planted_root), "--out", str(out), "--keep-heading", UNKNOWN.upper())
    assert result.exit_code == 0, result.output
    manifest = read_manifest(out)
    assert list(manifest["inputs"]["params"]["keep_heading"]) == [UNKNOWN.upper()]
    assert UNKNOWN not in manifest["outputs"]["withheld_headings"]["unrecognised_spellings"]
    assert all(SECRET in i.text for i in load_instances(out))
