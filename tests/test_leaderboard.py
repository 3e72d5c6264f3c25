"""The leaderboard's columns and ranks from results.json alone: which metrics each suite shows
(a text task has one ROUGE-L and concept recall per part), ties share the better rank, an EarlyDx
track metric rests on its track's encounters, and a published number sits under its own metric.
Issue 34: every format carries n and the subset mark in one vocabulary; each cell its difference
with the column's best system (marked only where the paired interval excludes 0); HELM's mean win
rate; the provenance in the json, the md and the LaTeX comment."""

from __future__ import annotations

from admitdx.report.leaderboard import TaskRun, build_leaderboard, primary_metrics
from admitdx.report.leaderboard_files import render_html, render_latex, render_markdown


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
              "subset_trial": {"n": 3, "of": 12}, "n_instances": 3,
              "systems": [system("b", {"accuracy": 0.6}, instances=3)]}  # fmt: skip
    ed["n_instances"] = 10
    published = ({"label": "o3-mini", "metric": "accuracy", "value": 0.627, "printed": "62.70",
                  "source": "ER-Reason Table 2", "data": "ER-Reason release"},)  # fmt: skip
    gaps = {"supported.micro_f1": {"best": "b", "systems": {
        "a": {"difference": -0.1, "ci": [-0.2, -0.01], "excludes_zero": True},
        "b": {"difference": 0.0, "ci": None, "excludes_zero": False},
        "c": {"difference": -0.1, "ci": [-0.25, 0.05], "excludes_zero": False},
        "d": {"difference": -0.4, "ci": [-0.5, -0.3], "excludes_zero": True}}}}  # fmt: skip
    provenance = {"admitdx_version": "9.9", "study_file": {"name": "s.yaml", "sha256": "ab" * 32},
                  "runs": [{"name": "earlydx", "task": "earlydx", "dataset_sha256": "cd" * 32,
                            "seeds": {"build.seed": 7, "bootstrap.seed": 7, "bootstrap.replicates": 50},
                            "dates": {"built": "2026-12-01", "predicted": ["2026-12-01"],
                                      "scored": "2026-12-01"}}],
                  "systems": {"b": {"kind": "llm", "model": "Qwen3-8B-AWQ", "server": "vllm",
                                    "quantisation": "AWQ"}}}  # fmt: skip
    board = build_leaderboard("t", ["a", "b", "c", "d", "e"], [
        TaskRun("earlydx", "earlydx/report/report.html", "earlydx/report/encounters.html", ed, (), gaps),
        TaskRun("acuity", "acuity/report/report.html", "acuity/report/encounters.html", acuity, published),
    ], provenance)  # fmt: skip
    ed_col, acuity_col = board["columns"]
    assert [c["rank"] if c else None for c in ed_col["cells"]] == [2, 1, 2, 4, None]
    assert {c["n"] for c in ed_col["cells"] if c} == {7}  # the supported track's encounters, not 10
    assert [c["n"] if c else None for c in acuity_col["cells"]] == [None, 3, None, None, None]
    assert (
        acuity_col["subset"] == "subset: 3 scored of 12 in the benchmark set"
    )  # no path: the board can move
    assert ed_col["counts"]["text"] == "10 scored of 10 in the benchmark set"
    assert ed_col["published"] == [] and acuity_col["published"][0]["value"] == 0.627
    assert [c["difference"]["mark"] if c and c["difference"] else None for c in ed_col["cells"]] == [
        True, None, False, True, None,
    ]  # fmt: skip
    markdown = render_markdown(board)
    assert "| b | 0.500 [0.400, 0.600] n=7 #1 best | 0.600 [0.500, 0.700] n=3 #1 |" in markdown
    assert "| a | 0.400 [0.300, 0.500] n=7 #2 Δ -0.100 [-0.200, -0.010]* |" in markdown
    assert "| c | 0.400 [0.300, 0.500] n=7 #2 Δ -0.100 [-0.250, 0.050] |" in markdown  # no mark
    assert "acuity: accuracy (subset: 3 scored of 12 in the benchmark set)" in markdown
    assert "- acuity: subset: 3 scored of 12 in the benchmark set\n" in markdown
    assert "| *o3-mini* |  | *0.627* (ER-Reason Table 2) |" in markdown
    assert "- admitdx 9.9; study file s.yaml sha256 " + "ab" * 32 in markdown
    assert "b: llm, model Qwen3-8B-AWQ (server vllm; quantisation AWQ)" in markdown
    latex = render_latex(board)
    assert latex.startswith("% admitdx 9.9; study file s.yaml sha256 ")
    assert r"\textit{o3-mini} &  & \textit{0.627} \\" in latex
    assert r"0.400$^{*}$ {\scriptsize [0.300, 0.500] $n{=}7$}" in latex
    assert r"$n{=}3$ of 12$^\dagger$" in latex
    assert r"$\dagger$ subset: 3 scored of 12 in the benchmark set." in latex  # the dagger's caption
    html = render_html(board)
    assert "subset: 3 scored of 12 in the benchmark set" in html and 'id="provenance"' in html


def test_mean_win_rate_averages_columns_within_a_run_then_runs() -> None:
    two = {"suite": "clinibench", "headline_metrics": ["clinibench.macro_f1", "clinibench.map"],
           "n_instances": 4,
           "systems": [system("a", {"clinibench.macro_f1": 0.5, "clinibench.map": 0.2}),
                       system("b", {"clinibench.macro_f1": 0.4, "clinibench.map": 0.2}),
                       system("c", {"clinibench.macro_f1": 0.1, "clinibench.map": 0.9})]}  # fmt: skip
    one = {"suite": "category", "headline_metrics": ["accuracy"], "n_instances": 4,
           "systems": [system("b", {"accuracy": 0.9}), system("c", {"accuracy": 0.1})]}  # fmt: skip
    board = build_leaderboard("t", ["a", "b", "c"], [TaskRun("cb", "", "", two), TaskRun("acc", "", "", one)])
    rates = {w["name"]: (w["value"], w["task_runs"]) for w in board["win_rate"]["systems"]}
    # cb: macro-F1 a 1, b 0.5, c 0; MAP (a ties b) a 0.25, b 0.25, c 1 → a 0.625, b 0.375, c 0.5
    # acc: b 1, c 0 → a 0.625 over 1 run; b (0.375 + 1) / 2; c (0.5 + 0) / 2
    assert rates == {"a": (0.625, 1), "b": (0.6875, 2), "c": (0.25, 2)}


def test_a_run_a_system_did_not_finish_is_marked_a_trial_in_every_format() -> None:
    cut = system("b", {"accuracy": 0.5}, instances=6)
    cut["counts"]["missing"] = 2
    run = {"suite": "category", "headline_metrics": ["accuracy"], "n_instances": 6,
           "systems": [system("a", {"accuracy": 0.6}, instances=6), cut]}  # fmt: skip
    board = build_leaderboard("t", ["a", "b"], [TaskRun("acuity", "", "", run)])
    counts = board["columns"][0]["counts"]
    assert counts == {"n": 6, "of": 6, "subset": False, "text": "6 scored of 6 in the benchmark set",
                      "trial": "trial: 4 predicted of 6 in the benchmark set"}  # fmt: skip
    mark = "trial: 4 predicted of 6 in the benchmark set"
    assert mark in render_markdown(board) and mark in render_latex(board) and mark in render_html(board)


def test_past_eight_systems_the_colour_keys_are_hatched_as_the_figures() -> None:
    names = [f"s{i}" for i in range(10)]
    run = {"suite": "category", "headline_metrics": ["accuracy"], "n_instances": 4,
           "systems": [system(n, {"accuracy": i / 10}) for i, n in enumerate(names)]}  # fmt: skip
    board = build_leaderboard("t", names, [TaskRun("acuity", "", "", run)])
    assert [s["pattern"] for s in board["systems"]] == [None] * 8 + ["//", "//"]
    assert board["systems"][8]["colour"] == board["systems"][0]["colour"]
    html = render_html(board)
    assert (
        'style="background:repeating-linear-gradient(45deg, #0072b2 0 2px, #fff 2px 4px)"></span>s8' in html
    )
    assert 'style="background:#0072b2"></span>s0' in html
