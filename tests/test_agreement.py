"""Judge agreement with hand-computed values, and the manual-review round trip (export → fill → read)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from tests.matching_data import write_case_dirs

from admitdx.contracts import Match
from admitdx.errors import InputError
from admitdx.matching.agreement import compare_matches, export_review_sample, write_agreement
from admitdx.matching.base import MatchTask
from admitdx.matching.exact import ExactMatcher
from admitdx.matching.manual import ManualMatcher, format_pairs, parse_pairs
from admitdx.matching.runner import build_tasks, load_matches, run_matcher


def task(iid: str, n_p: int, n_r: int) -> MatchTask:
    return MatchTask(iid, "s", [f"p{i}" for i in range(n_p)], [f"r{i}" for i in range(n_r)])


def match(iid: str, name: str, pairs: list[tuple[int, int]], **details: object) -> Match:
    return Match(iid, "s", name, pairs, dict(details))


def test_hand_computed_agreement() -> None:
    tasks = [task("a", 2, 2), task("b", 3, 1), task("c", 1, 1), task("d", 4, 2), task("e", 0, 2)]
    judge = [match("a", "j", [(0, 0), (1, 1)]), match("b", "j", [(2, 0)]), match("c", "j", []),
             match("d", "j", [(0, 1)]), match("e", "j", [])]  # fmt: skip
    other = [match("a", "o", [(0, 1), (1, 0)]), match("b", "o", [(2, 0)]), match("c", "o", [(0, 0)]),
             match("d", "o", [(0, 0), (1, 1), ]), match("e", "o", [])]  # fmt: skip
    ag = compare_matches(tasks, judge, other)
    # e has no prediction: excluded. Counts j (2,1,0,1) vs o (2,1,1,2): equal in a, b → 2/4;
    # within one everywhere → 1.0. Pair sets equal only in b → 1/4.
    assert (ag.compared, ag.excluded_empty) == (4, 1)
    assert ag.exact_count_agreement == 0.5
    assert ag.within_one_agreement == 1.0
    assert ag.pair_set_agreement == 0.25
    # F1 = 2m/(|P|+|R|): j (1, .5, 0, 1/3) vs o (1, .5, 1, 2/3).
    # Means j 11/24, o 19/24; deviations j (13,1,-11,-3)/24, o (5,-7,5,-3)/24;
    # r = (65-7-55+9) / sqrt((169+1+121+9)(25+49+25+9)) = 12 / sqrt(300·108) = 12/180 = 0.0667.
    assert ag.f1_pearson == pytest.approx(12 / 180)
    assert ag.a == "j" and ag.b == "o"


def test_counts_can_agree_while_pairs_differ_and_constant_f1_has_no_correlation() -> None:
    tasks = [task("a", 2, 2), task("b", 2, 2)]
    one = [match("a", "x", [(0, 0)]), match("b", "x", [(0, 0)])]
    two = [match("a", "y", [(1, 1)]), match("b", "y", [(0, 0)])]
    ag = compare_matches(tasks, one, two)
    assert ag.exact_count_agreement == 1.0 and ag.pair_set_agreement == 0.5
    assert ag.f1_pearson is None  # every F1 is 0.5 on both sides: r is undefined, not 0 or 1


def test_include_empty_and_missing_instances() -> None:
    tasks = [task("a", 1, 1), task("b", 0, 1), task("c", 1, 1)]
    one = [match("a", "x", [(0, 0)]), match("b", "x", []), match("c", "x", [])]
    two = [match("a", "y", [(0, 0)]), match("b", "y", [])]
    ag = compare_matches(tasks, one, two, nonempty_only=False)
    assert ag.compared == 2 and ag.only_in_a == 1 and ag.only_in_b == 0
    assert ag.exact_count_agreement == 1.0


def test_unreviewed_instances_are_left_out() -> None:
    tasks = [task("a", 1, 1), task("b", 1, 1)]
    judge = [match("a", "j", [(0, 0)]), match("b", "j", [(0, 0)])]
    manual = [match("a", "manual", [], reviewed=True), match("b", "manual", [], reviewed=False)]
    ag = compare_matches(tasks, judge, manual)
    assert ag.compared == 1 and ag.exact_count_agreement == 0.0 and ag.within_one_agreement == 1.0


def test_pair_text_round_trip() -> None:
    assert format_pairs([(2, 0), (0, 1)]) == "1-2; 3-1"
    assert parse_pairs("1-2; 3-1") == [(0, 1), (2, 0)]
    assert parse_pairs("none") == [] and format_pairs([]) == "none"
    with pytest.raises(ValueError):
        parse_pairs("1:2")


def _fill(path: Path, answers: dict[str, str]) -> None:
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
        fields = list(rows[0])
    for row in rows:
        row["manual_pairs"] = answers.get(row["instance_id"], "")
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def test_export_fill_and_read_back_as_the_manual_matcher(tmp_path: Path) -> None:
    dataset, pred = write_case_dirs(tmp_path)
    run_matcher(ExactMatcher(), dataset, pred)
    run_matcher(ExactMatcher(drop_qualifiers=False), dataset, pred, label="strict")
    tasks = build_tasks(dataset, pred)
    ag = compare_matches(tasks, load_matches(pred, "exact"), load_matches(pred, "strict"))
    review = tmp_path / "review.csv"
    assert export_review_sample(ag, tasks, review, n=10) == 4  # only 4 non-empty instances exist
    with review.open(newline="", encoding="utf-8") as f:
        e1 = next(r for r in csv.DictReader(f) if r["instance_id"] == "e1")
    assert e1["predictions"] == "1. CHF\n2. AFib\n3. pneumonia"
    assert e1["a_pairs"] == "1-1; 2-2" and e1["b_pairs"] == "2-2"
    # The reviewer: e1 both pairs, e3 nothing, e2 left blank (not reviewed).
    _fill(review, {"e1": "1-1; 2-2", "e3": "none", "e5": "1-1"})
    run = run_matcher(ManualMatcher(csv=review), dataset, pred)
    assert run.summary["reviewed"] == 3
    manual = {m.instance_id: m for m in load_matches(pred, "manual")}
    assert manual["e1"].pairs == [(0, 0), (1, 1)] and manual["e2"].details["reviewed"] is False
    vs_exact = compare_matches(tasks, load_matches(pred, "exact"), load_matches(pred, "manual"))
    assert vs_exact.compared == 3 and vs_exact.exact_count_agreement == 1.0


def test_manual_review_errors_name_the_row(tmp_path: Path) -> None:
    dataset, pred = write_case_dirs(tmp_path)
    run_matcher(ExactMatcher(), dataset, pred)
    tasks = build_tasks(dataset, pred)
    exact = load_matches(pred, "exact")
    review = tmp_path / "review.csv"
    export_review_sample(compare_matches(tasks, exact, exact), tasks, review)
    _fill(review, {"e1": "1 to 1"})
    with pytest.raises(InputError, match="row"):
        ManualMatcher(csv=review)
    _fill(review, {"e1": "1-1; 1-2"})  # prediction 1 used twice
    with pytest.raises(InputError, match="reuses"):
        run_matcher(ManualMatcher(csv=review), dataset, pred)
    _fill(review, {"e1": "9-1"})  # out of range
    with pytest.raises(InputError, match="out of range"):
        run_matcher(ManualMatcher(csv=review), dataset, pred)
    # Texts changed since the export: the old decision must not attach to new predictions.
    _fill(review, {"e1": "1-1"})
    stale = tmp_path / "stale.csv"
    stale.write_text(review.read_text().replace("1. CHF", "1. COPD"))
    with pytest.raises(InputError, match="different texts"):
        run_matcher(ManualMatcher(csv=stale), dataset, pred)


def test_write_agreement_writes_what_the_report_reads(tmp_path: Path) -> None:
    dataset, pred = write_case_dirs(tmp_path)
    run_matcher(ExactMatcher(), dataset, pred)
    run_matcher(ExactMatcher(drop_qualifiers=False), dataset, pred, label="strict")
    result, path = write_agreement(dataset, pred, "exact", "strict")
    assert path == pred / "matches" / "agreement_exact_vs_strict.json"
    assert json.loads(path.read_text()) == result.to_dict()
    assert (result.compared, result.exact_count_agreement) == (4, 0.75)
