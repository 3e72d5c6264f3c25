"""Issue 26, class 1: one flipped bit in a converted Parquet copy.

DuckDB writes no page checksums, so a bit flipped inside a data page of ``ed/triage.parquet``
decoded as another value: ``data check`` and ``build earlydx`` exited 0 and one encounter of 344 had
another triage section. ``data convert`` now records each table's SHA-256 and every reader verifies
it, so the flip is exit 2 naming the file, whichever verb meets it first, remembered or not.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from admitdx.errors import InputError
from admitdx.sources.integrity import Verdicts
from admitdx.sources.mimic import open_mimic
from data_roots import run_cli


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))


def _flip(path: Path, at: int) -> None:
    """Flip one bit at byte ``at``, keeping size and modification time (what bit rot or a bad copy
    does; the Parquet footer, which DuckDB does read and check, stays intact)."""
    data = bytearray(path.read_bytes())
    data[at] ^= 0x10
    stat = path.stat()
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _copy(converted: Path, to: Path) -> Path:
    shutil.copytree(converted, to)
    return to


def test_a_flipped_bit_stops_check_build_and_convert_resume_rewrites_it(
    demo_dir: Path, converted_demo: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    copy = _copy(converted_demo, tmp_path / "copy")
    triage = copy / "ed" / "triage.parquet"
    _flip(triage, triage.stat().st_size // 3)  # inside the first column chunk's pages, before the footer
    for args in (["data", "check"], ["build", "earlydx", "--out", str(tmp_path / "ds")]):
        code, _, err = run_cli([*args, "--mimic", str(copy)], capsys, monkeypatch)
        err = " ".join(err.split())
        assert code == 2, err
        assert f"{triage} is not the file its conversion wrote" in err and "table ed.triage" in err
        assert "Traceback" not in err
    assert not (tmp_path / "ds" / "manifest.json").exists()
    # the fix the message names: convert again into the same folder rewrites the altered table only
    code, _, err = run_cli(
        ["data", "convert", "--mimic", str(demo_dir), "--out", str(copy)], capsys, monkeypatch
    )
    assert code == 0, err
    assert triage.read_bytes() == (converted_demo / "ed" / "triage.parquet").read_bytes()
    assert run_cli(["data", "check", "--mimic", str(copy)], capsys, monkeypatch)[0] == 0


def test_a_remembered_verdict_does_not_hide_a_later_flip(converted_demo: Path, tmp_path: Path) -> None:
    """The digest check is remembered per file identity; writing the file changes its ctime, which
    no tool can set back, so a flip after a clean read is found by the next read."""
    copy = _copy(converted_demo, tmp_path / "copy")
    verdicts = Verdicts(tmp_path / "verdicts", min_bytes=0)  # the demo's tables are under the default
    with open_mimic(copy, verdicts=verdicts):
        pass
    assert len(list((tmp_path / "verdicts").rglob("*.json"))) == len(list(copy.rglob("*.parquet")))
    labevents = copy / "hosp" / "labevents.parquet"
    _flip(labevents, labevents.stat().st_size // 2)
    with pytest.raises(InputError, match=r"labevents\.parquet is not the file its conversion wrote") as err:
        open_mimic(copy, verdicts=verdicts)
    assert err.value.table == "hosp.labevents"


def test_a_conversion_without_digests_is_refused_until_convert_records_them(
    demo_dir: Path, converted_demo: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    """A copy made before digests were recorded cannot be verified: refused, and a convert rerun
    (which keeps the tables) records them."""
    copy = _copy(converted_demo, tmp_path / "copy")
    manifest = json.loads((copy / "manifest.json").read_text())
    for entry in manifest["outputs"]["tables"].values():
        del entry["sha256"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="recorded no SHA-256 of its tables"):
        open_mimic(copy)
    code, _, err = run_cli(
        ["data", "convert", "--mimic", str(demo_dir), "--out", str(copy)], capsys, monkeypatch
    )
    assert code == 0, err
    recorded = json.loads((copy / "manifest.json").read_text())["outputs"]["tables"]
    original = json.loads((converted_demo / "manifest.json").read_text())["outputs"]["tables"]
    assert {k: v["sha256"] for k, v in recorded.items()} == {k: v["sha256"] for k, v in original.items()}
