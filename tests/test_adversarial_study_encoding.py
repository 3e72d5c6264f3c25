"""Issue 30, encodings: a study file is read as UTF-8, a byte-order mark accepted; any other encoding
(UTF-16 with its mark, Latin-1) is exit 2 naming the file and the first byte that is not UTF-8, never
a UnicodeDecodeError traceback. A ``--config`` file of ``predict`` is read the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from admitdx.study.spec import load_study
from data_roots import run_cli
from study_cases import STUDY, predict_refused, write_study

TITLED = STUDY.replace("out: out\n", "out: out\ntitle: Études cliniques\n")


def refused_bytes(
    tmp_path: Path, data: bytes, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> str:
    path = write_study(tmp_path, "")
    path.write_bytes(data)
    code, _, err = run_cli(["study", str(path), "--dry-run"], capsys, monkeypatch)
    joined = " ".join(err.split())
    assert code == 2 and "Traceback" not in err, err
    assert f"{path} is not UTF-8" in joined
    assert not (tmp_path / "out").exists()
    return joined


def test_utf16_with_its_byte_order_mark_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    err = refused_bytes(tmp_path, TITLED.encode("utf-16"), capsys, monkeypatch)
    assert "UTF-16 byte-order mark" in err


def test_latin1_is_refused_naming_the_first_bad_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = TITLED.encode("latin-1")
    err = refused_bytes(tmp_path, data, capsys, monkeypatch)
    at = data.index("É".encode("latin-1"))
    assert f"byte {at} is {data[at : at + 1]!r}" in err and "\\xc9" in err


def test_utf8_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = write_study(tmp_path, "")
    path.write_bytes(b"\xef\xbb\xbf" + TITLED.encode("utf-8"))
    study = load_study(path)
    assert study.title == "Études cliniques"
    assert [t.name for t in study.tasks] == ["earlydx", "er-reason-acuity"]


def test_a_predict_config_in_utf16_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "systems.yaml"
    config.write_bytes("systems:\n  é: {kind: frequency}\n".encode("utf-16"))
    assert f"{config} is not UTF-8" in predict_refused(config, "é", capsys, monkeypatch)
