"""The match runner: Match files on disk, content-addressed cache, resume, errors, and the CLI verbs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.matching_data import write_case_dirs
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import PREDICTIONS_FILE, Match
from admitdx.errors import InputError, UsageError
from admitdx.jsonl import read_jsonl
from admitdx.matching import create_matcher
from admitdx.matching.exact import ExactMatcher
from admitdx.matching.runner import load_matches, matches_path, run_matcher


class CountingExact(ExactMatcher):
    """The real exact matcher, counting how many instances it is asked to compute."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def match(self, task):  # type: ignore[no-untyped-def]
        self.calls += 1
        return super().match(task)


def test_writes_one_match_per_prediction_with_pairs(tmp_path: Path) -> None:
    dataset, pred = write_case_dirs(tmp_path)
    run = run_matcher(ExactMatcher(), dataset, pred)
    got = {m.instance_id: m.pairs for m in load_matches(pred, "exact")}
    # e1: CHF and AFib are spelled-out forms of the two references; pneumonia matches nothing.
    assert got == {"e1": [(0, 0), (1, 1)], "e2": [(0, 0)], "e3": [], "e4": [], "e5": [(0, 0)]}
    assert run.path == pred / "matches" / "exact.jsonl"
    assert all(m.matcher == "exact" and m.system == "sys" for m in run.matches)
    summary = json.loads(run.path.with_suffix(".summary.json").read_text())
    assert (
        summary["instances"] == 5 and summary["pairs"] == 4 and summary["params"] == {"drop_qualifiers": True}
    )


def test_rerun_computes_nothing_and_equal_texts_share_one_computation(tmp_path: Path) -> None:
    dataset, pred = write_case_dirs(tmp_path)
    first = CountingExact()
    run = run_matcher(first, dataset, pred)
    assert first.calls == 4  # e5 has e2's exact texts: computed once
    assert (run.computed, run.cached) == (5, 0)
    second = CountingExact()
    rerun = run_matcher(second, dataset, pred)
    assert second.calls == 0
    assert (rerun.computed, rerun.cached) == (0, 5)
    assert [m.to_dict() for m in rerun.matches] == [m.to_dict() for m in run.matches]


def test_changed_params_recompute(tmp_path: Path) -> None:
    dataset, pred = write_case_dirs(tmp_path)
    run_matcher(ExactMatcher(), dataset, pred)
    strict = CountingExact()
    strict.drop_qualifiers = False
    run_matcher(strict, dataset, pred)
    assert strict.calls == 4


def test_interrupted_run_resumes_from_the_appended_lines(tmp_path: Path) -> None:
    dataset, pred = write_case_dirs(tmp_path)
    run_matcher(ExactMatcher(), dataset, pred)
    path = matches_path(pred, "exact")
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:2]) + lines[2][:15])  # two whole records and a cut one, as after a kill
    counting = CountingExact()
    run_matcher(counting, dataset, pred)
    assert counting.calls == 2  # e3 and e4; e1, e2 (and e5, same texts as e2) came from the file
    assert len(list(read_jsonl(path))) == 5


def test_prediction_for_an_unknown_instance_is_an_input_error(tmp_path: Path) -> None:
    dataset, pred = write_case_dirs(tmp_path)
    with (pred / PREDICTIONS_FILE).open("a") as f:
        f.write(json.dumps({"instance_id": "nope", "system": "sys", "items": []}) + "\n")
    with pytest.raises(InputError, match="nope") as err:
        run_matcher(ExactMatcher(), dataset, pred)
    assert err.value.row == 6


def test_unknown_matcher_and_bad_params_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="unknown matcher"):
        create_matcher("cosine")
    with pytest.raises(UsageError, match="bad parameters"):
        create_matcher("exact", threshold=0.5)


def test_missing_matches_say_how_to_make_them(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="admitdx match"):
        load_matches(tmp_path, "embedding")


def test_cli_match_and_agree(tmp_path: Path) -> None:
    dataset, pred = write_case_dirs(tmp_path)
    runner = CliRunner()
    common = ["--dataset", str(dataset), "--predictions", str(pred)]
    r = runner.invoke(app, ["match", *common, "--matcher", "exact"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["match", *common, "--matcher", "exact", "--param", "drop_qualifiers=false",
                            "--name", "exact_strict"])  # fmt: skip
    assert r.exit_code == 0, r.output
    strict = [Match.from_dict(d) for d in read_jsonl(matches_path(pred, "exact_strict"))]
    assert {m.matcher for m in strict} == {"exact_strict"}
    r = runner.invoke(app, ["agree", *common, "--a", "exact", "--b", "exact_strict",
                            "--export", str(tmp_path / "review.csv"), "--sample", "2"])  # fmt: skip
    assert r.exit_code == 0, r.output
    result = json.loads((pred / "matches" / "agreement_exact_vs_exact_strict.json").read_text())
    # Non-empty instances e1, e2, e3, e5. Keeping "unspecified" loses CHF ↔ "Congestive heart failure,
    # unspecified" in e1: counts (2,1,0,1) vs (1,1,0,1); per-instance F1 (.8,1,0,1) vs (.4,1,0,1),
    # Pearson r = .64 / sqrt(.68 × .72) = 0.91466.
    assert result["compared"] == 4 and result["exact_count_agreement"] == 0.75
    assert result["within_one_agreement"] == 1.0 and result["excluded_empty"] == 1
    assert result["f1_pearson"] == pytest.approx(0.91466, abs=1e-4)
    assert len((tmp_path / "review.csv").read_text().strip().splitlines()) > 2
    for verb in ("match", "agree"):
        assert "Example:" in runner.invoke(app, [verb, "--help"]).output
