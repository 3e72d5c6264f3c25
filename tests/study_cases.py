"""Helpers of the adversarial study tests: a study file written from a template, run through the
real entry point, and the check every refusal shares (exit 2, the file named, no traceback, and
nothing written: not even ``out:``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from data_roots import run_cli

#: A valid study over an empty data root: it is refused before any build only if the file is wrong
#: (a study that passed the checks would fail later, at the build, with another message).
STUDY = """\
out: out
data:
  mimic: data
tasks:
  earlydx:
    matcher: exact
    systems: [frequency]
  er-reason-acuity:
    systems: [majority]
systems:
  frequency: {kind: frequency}
  majority: {kind: majority}
"""


def write_study(folder: Path, text: str, name: str = "study.yaml") -> Path:
    """``text`` as ``folder/name``, with an empty ``folder/data`` for its data root."""
    (folder / "data").mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def refused(
    path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *args: str,
) -> str:
    """``admitdx study PATH ARGS`` must stop with exit 2 before any work, naming the file; its
    stderr with the lines joined (rich wraps long messages)."""
    code, _, err = run_cli(["study", str(path), *args], capsys, monkeypatch)
    joined = " ".join(err.split())
    assert code == 2, err
    assert "Traceback" not in err
    assert str(path) in joined
    assert not (path.parent / "out").exists(), "the study wrote under out: before refusing"
    return joined


def predict_refused(
    config: Path, system: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> str:
    """``admitdx predict --config CONFIG --system SYSTEM`` must stop with exit 2 before writing its
    ``--out``; its stderr with the lines joined."""
    out = config.parent / "p"
    args = ["predict", "--dataset", str(config.parent), "--system", system, "--config", str(config)]
    code, _, err = run_cli([*args, "--out", str(out)], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in err, err
    assert not out.exists()
    return " ".join(err.split())
