"""The leaderboard's columns and ranks from results.json alone: which metrics each suite shows
(a text task has one ROUGE-L and concept recall per part), ties share the better rank, an EarlyDx
track metric rests on its track's encounters, and a published number sits under its own metric."""

from __future__ import annotations

from admitdx.report.leaderboard import TaskRun, build_leaderboard, primary_metrics
from admitdx.report.leaderboard_files import render_latex, render_markdown


def system(name: str, metrics: dict[str, float], instances: int = 10, **extra: object) -> dict:
    scored = {k: {"value": v, "ci": [v - 0.1, v + 0.1]} for k, v in metrics.items()}
    return {"name": name, "counts": {"instances": instances}, "metrics": scored, **extra}


def test_a_text_task_shows_each_parts_rouge_l_and_concept_recall() -> None:
    parts = ("rule_out", "treatment_plan")
    headline = [f"{p}.{m}" for p in parts for m in ("rouge1_f1", "rougeL_f1", "concept_recall")]
    assert primary_metrics({"suite": "text", "headline_metrics": headline}) == [
        ("rule_out.rougeL_f1", "rule_out ROUGE-L"),
        ("treatment_plan.rougeL_f1", "treatment_plan ROUGE-L"),
        ("rule_out.concept_recall", "rule_out concept recall"),
        ("treatment_plan.concept_recall", "treatment_plan concept recall"),
    ]
    final = {"suite": "final_diagnosis", "headline_metrics": ["main.exact", "any.exact", "main.hcc"]}
    assert primary_metrics(final) == [("main.exact", "exact ICD"), ("main.hcc", "HCC")]


def test_ranks_cells_and_published_numbers() -> None:
    size = {"supported": {"n_encounters": 7, "n_patients": 6}}
    ed = {"suite": "earlydx", "headline_metrics": ["supported.micro_f1"], "systems": [
        system("a", {"supported.micro_f1": 0.4}, sample_size=size),
        system("b", {"supported.micro_f1": 0.5}, sample_size=size),
        system("c", {"supported.micro_f1": 0.4}, sample_size=size),
        system("d", {"supported.micro_f1": 0.1}, sample_size=size),
    ]}  # fmt: skip
    acuity = {"suite": "category", "headline_metrics": ["accuracy"], "subset": "the first 3 … of /x",
              "n_instances": 3, "systems": [system("b", {"accuracy": 0.6}, instances=3)]}  # fmt: skip
    published = ({"label": "o3-mini", "metric": "accuracy", "value": 0.627, "printed": "62.70",
                  "source": "ER-Reason Table 2", "data": "ER-Reason release"},)  # fmt: skip
    board = build_leaderboard("t", ["a", "b", "c", "d", "e"], [
        TaskRun("earlydx", "earlydx/report/report.html", "earlydx/report/encounters.html", ed),
        TaskRun("acuity", "acuity/report/report.html", "acuity/report/encounters.html", acuity, published),
    ])  # fmt: skip
    ed_col, acuity_col = board["columns"]
    assert [c["rank"] if c else None for c in ed_col["cells"]] == [2, 1, 2, 4, None]
    assert {c["n"] for c in ed_col["cells"] if c} == {7}  # the supported track's encounters, not 10
    assert [c["n"] if c else None for c in acuity_col["cells"]] == [None, 3, None, None, None]
    assert acuity_col["subset"] == "a subset: 3 scored test instances"  # no path: the board can move
    assert ed_col["published"] == [] and acuity_col["published"][0]["value"] == 0.627
    markdown = render_markdown(board)
    assert "| b | 0.500 [0.400, 0.600] n=7 #1 | 0.600 [0.500, 0.700] n=3 #1 |" in markdown
    assert "| *o3-mini* |  | *0.627* (ER-Reason Table 2) |" in markdown
    assert r"\textit{o3-mini} &  & \textit{0.627} \\" in render_latex(board)
