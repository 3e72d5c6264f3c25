"""Small real prediction runs for the adversarial tests of issue 26 (classes 2–4): a hand-made
dataset of 12 encounters, ``admitdx predict --system frequency`` into a folder, and the CLI's
verbs run through the real entry point with their exit code and one-line stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from admitdx.contracts import Instance, Reference
from admitdx.jsonl import write_jsonl
from data_roots import run_cli

LABELS = ("Pneumonia", "Sepsis", "Heart failure")


def write_dataset(folder: Path, test_ids: set[str]) -> Path:
    """Encounters e0…e11 with fixed texts and labels; ``test_ids`` are the test split (a split
    seed decides them in a build, so two seeds give two such datasets of the same encounters)."""
    rows = [
        Instance(f"e{i}", i, "earlydx", "test" if f"e{i}" in test_ids else "train", {}, f"fever {i}",
                 [Reference(LABELS[i % 3])])
        for i in range(12)
    ]  # fmt: skip
    write_jsonl(folder / "instances.jsonl", (r.to_dict() for r in rows))
    return folder


class Cli:
    """``admitdx ARGS`` through ``main`` (exit 2 for an admitdx error), stderr on one line."""

    def __init__(self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
        self.capsys, self.monkeypatch = capsys, monkeypatch

    def __call__(self, *args: object) -> tuple[int, str]:
        code, _, err = run_cli([str(a) for a in args], self.capsys, self.monkeypatch)
        return code, " ".join(err.split())

    def predict(self, dataset: Path, out: Path) -> Path:
        code, err = self("predict", "--dataset", dataset, "--system", "frequency", "--out", out)
        assert code == 0, err
        return out

    def match(self, dataset: Path, predictions: Path, *extra: object) -> tuple[int, str]:
        return self("match", "--dataset", dataset, "--predictions", predictions, "--matcher", "exact", *extra)

    def score(self, dataset: Path, predictions: Path, out: Path, *extra: object) -> tuple[int, str]:
        return self("score", "--dataset", dataset, "--predictions", predictions, "--matcher", "exact",
                    "--out", out, "--n-bootstrap", "20", *extra)  # fmt: skip


def manifest(run: Path) -> dict:
    return json.loads((run / "manifest.json").read_text())


def completed_run(cli: Cli, folder: Path) -> tuple[Path, Path]:
    """A four-encounter dataset and a completed predictions run on it: what these tests damage."""
    ds = write_dataset(folder / "ds", {"e0", "e1", "e2", "e3"})
    return ds, cli.predict(ds, folder / "pred")
