"""Scoring EarlyDx as the authors' evaluator does: the bootstrap resamples the patients that
contribute to each track, paired p-values are (1 + count) / (B + 1) and never 0, ``--common``
scores every system on the encounters all of them covered, ``--budget k`` truncates each system's
list to k items. The same predictions are scored under the old universe (every patient of the
split) and the new one, side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import load_instances
from admitdx.errors import UsageError
from admitdx.metrics.bootstrap import paired_p_values
from admitdx.runs import sha256_text

N_BOOT = 200


def _invoke(*args: str) -> None:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output


def test_a_paired_p_value_is_never_zero() -> None:
    a = {"m": np.zeros(99)}
    better = {"m": np.ones(99)}
    assert paired_p_values(a, better)["m"] == pytest.approx(2 * (1 + 0) / (99 + 1))
    mixed = {"m": np.concatenate([np.ones(89), -np.ones(10)])}
    assert paired_p_values(a, mixed)["m"] == pytest.approx(2 * (1 + 10) / (99 + 1))
    assert paired_p_values(a, a)["m"] == 1.0
    assert paired_p_values(a, {"m": np.full(99, np.nan)})["m"] is None


@pytest.fixture(scope="module")
def scored(synthetic_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two baselines on a synthetic build with evidence classes drawn from a hash (fixed whatever
    the auditor), matched exactly; the frequency run predicts only the first 8 test encounters."""
    root = tmp_path_factory.mktemp("boot")
    audited = root / "audited"
    lines = []
    for line in (synthetic_dataset / "instances.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for j, ref in enumerate(record["references"]):
            ref["evidence_class"] = ("supported", "partial", "unsupported")[
                int(sha256_text(f"{record['id']}:{j}")[:8], 16) % 3
            ]
        lines.append(json.dumps(record))
    audited.mkdir()
    (audited / "instances.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = {}
    for system, limit in (("frequency", ["--limit", "8"]), ("knn-bm25", [])):
        runs[system] = root / system
        _invoke("predict", "--dataset", str(audited), "--system", system, "--out", str(runs[system]), *limit)
        _invoke("match", "--dataset", str(audited), "--predictions", str(runs[system]), "--matcher", "exact")

    def score(name: str, *options: str, systems: tuple[str, ...] = ("knn-bm25",)) -> dict[str, Any]:
        out = root / name
        _invoke(
            "score", "--dataset", str(audited), "--predictions", *(str(runs[s]) for s in systems),
            "--matcher", "exact", "--out", str(out), "--n-bootstrap", str(N_BOOT), *options,
        )  # fmt: skip
        return json.loads((out / "results.json").read_text(encoding="utf-8"))

    return {"audited": audited, "score": score, "runs": runs}


def _contributing_patients(audited: Path, track_classes: set[str]) -> int:
    test = [i for i in load_instances(audited) if i.split == "test"]
    return len({i.subject_id for i in test if any(r.evidence_class in track_classes for r in i.references)})


@pytest.mark.slow
def test_the_same_predictions_under_the_old_and_the_new_bootstrap_universe(scored: dict[str, Any]) -> None:
    new = scored["score"]("track")
    old = scored["score"]("split", "--bootstrap-universe", "split")
    assert new["params"]["bootstrap_universe"] == "track" and old["params"]["bootstrap_universe"] == "split"
    n_split = new["n_patients"]
    supported = _contributing_patients(scored["audited"], {"supported"})
    assert 0 < supported < n_split
    assert new["bootstrap_patients"]["supported"] == supported
    assert old["bootstrap_patients"]["supported"] == n_split
    m_new, m_old = new["systems"][0]["metrics"], old["systems"][0]["metrics"]
    for name in ("supported.micro_f1", "supported_partial.micro_f1", "all.micro_f1"):
        assert m_new[name]["value"] == m_old[name]["value"]  # the point value does not depend on it
    # both intervals hold the point; they differ because they resample different patients
    for m in (m_new, m_old):
        lo, hi = m["supported.micro_f1"]["ci"]
        assert lo <= m["supported.micro_f1"]["value"] <= hi
    assert m_new["supported.micro_f1"]["ci"] != m_old["supported.micro_f1"]["ci"]


@pytest.mark.slow
def test_common_encounters_budget_and_p_values(scored: dict[str, Any]) -> None:
    both = ("frequency", "knn-bm25")
    everything = scored["score"]("both", "--allow-incomplete", systems=both)
    common = scored["score"]("common", "--common", "--allow-incomplete", systems=both)
    predicted = {
        json.loads(line)["instance_id"]
        for line in (scored["runs"]["frequency"] / "predictions.jsonl").read_text().splitlines()
    }
    scored_ids = {
        i.id
        for i in load_instances(scored["audited"])
        if i.split == "test" and any(r.evidence_class in ("supported", "partial") for r in i.references)
    }
    assert len(predicted) == 8 and everything["n_instances"] == len(scored_ids)
    assert common["n_instances"] == common["common_encounters"] == len(predicted & scored_ids) > 0
    assert everything["unsupported_only_encounters"] > 0
    for result in (everything, common):
        p_values = result["systems"][1]["vs_baseline"]["p_values"]
        assert p_values and all(p is None or p >= 1 / (N_BOOT + 1) for p in p_values.values())
    # a budget of k items equals the top-k truncation the suite already reports
    full = scored["score"]("full")["systems"][0]["metrics"]
    one = scored["score"]("budget1", "--budget", "1")["systems"][0]["metrics"]
    assert one["supported.micro_f1"]["value"] == pytest.approx(full["supported.micro_f1_top1"]["value"])
    assert 0 < one["supported.mean_predictions"]["value"] <= 1.0
    assert one["supported.recall@1"]["value"] == pytest.approx(full["supported.recall@1"]["value"])


@pytest.mark.slow
def test_reproduce_authors_is_their_universe_and_seed_2026(scored: dict[str, Any]) -> None:
    authors = scored["score"]("authors", "--reproduce", "authors")
    seeded = scored["score"]("seed-2026", "--seed", "2026")
    assert authors["params"]["reproduce"] == "authors" and "reproduce" not in seeded["params"]
    assert (authors["params"]["seed"], authors["params"]["bootstrap_universe"]) == (2026, "track")
    assert authors["systems"] == seeded["systems"]  # same intervals: the flag is the seed, nothing else
    assert authors["systems"] != scored["score"]("default-seed")["systems"]  # another seed, other intervals
    run = str(scored["runs"]["knn-bm25"])
    args = ["score", "--dataset", str(scored["audited"]), "--predictions", run, "--out", "x"]
    refused = CliRunner().invoke(app, [*args, "--reproduce", "authors", "--seed", "7"])
    assert isinstance(refused.exception, UsageError) and refused.exception.exit_code == 2
    assert "seed" in str(refused.exception)
