"""``admitdx study``: the same stages run by hand and by a study (in two lanes) write the same
results.json bytes; a rerun makes no prediction twice and writes the same leaderboard; the
leaderboard has a row per system and an n in every cell; the leaderboard and the encounter browser
open in headless Chromium with no console error; a bad study file stops with exit code 2 naming
the file and the key.

Real parts throughout: the session's synthetic MIMIC-IV root, DuckDB builds, the rule-based
auditor, baselines, the exact matcher (no model to load), the real scoring stage.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.runs import sha256_file
from browser import CHROMIUM_FLAGS, chromium
from data_roots import run_cli

TASKS = ("earlydx", "er-reason-acuity")
SYSTEMS = ("frequency", "knn-bm25", "majority", "triage-classifier")
STUDY = """\
out: out
lanes: 2
data:
  mimic: {root}
score: {{n_bootstrap: 50}}
tasks:
  earlydx:
    audit: rules
    matcher: exact
    systems: [frequency, knn-bm25]
  er-reason-acuity:
    systems: [majority, triage-classifier]
systems:
  frequency: {{kind: frequency}}
  knn-bm25: {{kind: knn-bm25}}
  majority: {{kind: majority}}
  triage-classifier: {{kind: triage-classifier}}
"""


def cli(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def by_hand(root: Path, out: Path) -> dict[str, bytes]:
    """The stages the study file names, as a user types them, into the study's layout."""
    ed = out / "earlydx"
    cli("build", "earlydx", "--mimic", root, "--out", ed / "dataset")
    cli("audit", "--dataset", ed / "dataset", "--system", "rules", "--out", ed / "audited")
    for system in ("frequency", "knn-bm25"):
        cli("predict", "--dataset", ed / "audited", "--system", system, "--out", ed / "predictions" / system)
    preds = [ed / "predictions" / s for s in ("frequency", "knn-bm25")]
    cli("match", "--dataset", ed / "audited", "--matcher", "exact", "--predictions", *preds)
    cli("score", "--dataset", ed / "audited", "--matcher", "exact", "--n-bootstrap", 50,
        "--out", ed / "report", "--palette", ",".join(SYSTEMS), "--predictions", *preds)  # fmt: skip
    er = out / "er-reason-acuity"
    cli("build", "er-reason", "--task", "acuity", "--mimic", root, "--out", er / "dataset")
    for system in ("majority", "triage-classifier"):
        cli("predict", "--dataset", er / "dataset", "--system", system, "--out", er / "predictions" / system)
    cli("score", "--dataset", er / "dataset", "--n-bootstrap", 50, "--out", er / "report",
        "--palette", ",".join(SYSTEMS),  # the study's colours: its systems in their order
        "--predictions", *(er / "predictions" / s for s in ("majority", "triage-classifier")))  # fmt: skip
    return {t: (out / t / "report" / "results.json").read_bytes() for t in TASKS}


@pytest.fixture(scope="module")
def study(
    synthetic_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, bytes], Path]:
    """(the study file, results.json by hand, leaderboard.html): the stages are run by hand into the
    study's own layout, removed, then run by the study into the same place (results.json records
    its paths, so only the same place can give the same bytes)."""
    base = tmp_path_factory.mktemp("study")
    path = base / "demo-study.yaml"
    path.write_text(STUDY.format(root=synthetic_root), encoding="utf-8")
    hand = by_hand(synthetic_root, base / "out")
    shutil.rmtree(base / "out")
    leaderboard = Path(cli("study", path).strip())
    return path, hand, leaderboard


def test_a_study_writes_the_bytes_of_the_stages_run_by_hand(
    study: tuple[Path, dict[str, bytes], Path],
) -> None:
    path, hand, leaderboard = study
    assert leaderboard == path.parent / "out" / "leaderboard.html"
    for task in TASKS:
        assert (path.parent / "out" / task / "report" / "results.json").read_bytes() == hand[task], task


def test_every_system_has_a_row_and_every_cell_an_n(study: tuple[Path, dict[str, bytes], Path]) -> None:
    _, _, leaderboard = study
    board = json.loads(leaderboard.with_suffix(".json").read_text(encoding="utf-8"))
    assert [s["name"] for s in board["systems"]] == ["frequency", "knn-bm25", "majority", "triage-classifier"]
    columns = {(c["task"], c["metric"]): c for c in board["columns"]}
    assert list(columns) == [("earlydx", "supported.micro_f1"), ("er-reason-acuity", "accuracy")]
    ed, er = columns.values()
    results = json.loads((leaderboard.parent / "er-reason-acuity/report/results.json").read_text())
    for i, system in enumerate(results["systems"], start=2):  # the cells are the results' own numbers
        assert er["cells"][i]["value"] == system["metrics"]["accuracy"]["value"]
        assert er["cells"][i]["n"] == system["counts"]["instances"] > 0
    assert [c is None for c in ed["cells"]] == [False, False, True, True]
    assert sorted(c["rank"] for c in ed["cells"] if c) == [1, 2]
    assert all(c["n"] > 0 for c in ed["cells"] if c)
    # ER-Reason's table 2 stands beside the MIMIC-IV-ED acuity task, marked as published on other data
    labels = {p["label"].removesuffix(" (zero-shot)") for p in er["published"]}
    assert labels == {"LLaMA 3.2", "GPT-3.5", "GPT-4o", "o3-mini"}
    markdown = leaderboard.with_suffix(".md").read_text(encoding="utf-8")
    assert "| triage-classifier |" in markdown and "not comparable" in markdown
    assert r"\toprule" in leaderboard.with_suffix(".tex").read_text(encoding="utf-8")
    report = (leaderboard.parent / "earlydx/report/report.html").read_text(encoding="utf-8")
    assert 'href="encounters.html"' in report  # the browser opens from the task report


def test_a_rerun_predicts_nothing_again_and_writes_the_same_leaderboard(
    study: tuple[Path, dict[str, bytes], Path],
) -> None:
    path, _, leaderboard = study
    before = {p: p.read_bytes() for p in leaderboard.parent.glob("leaderboard.*")}
    lines = {p: p.read_bytes() for p in leaderboard.parent.glob("*/predictions/*/predictions.jsonl")}
    assert len(lines) == 4
    cli("study", path)
    assert {p: p.read_bytes() for p in lines} == lines
    assert {p: p.read_bytes() for p in before} == before


def test_each_system_has_one_colour_on_every_page_of_the_study(
    study: tuple[Path, dict[str, bytes], Path],
) -> None:
    """The study assigns the colours once, in its order of systems: the acuity report draws majority
    in the study's third colour, not in the first that a standalone score would give it."""
    _, _, leaderboard = study
    board = json.loads(leaderboard.with_suffix(".json").read_text(encoding="utf-8"))
    colours = {s["name"]: s["colour"] for s in board["systems"]}
    assert list(colours) == list(SYSTEMS) and len(set(colours.values())) == 4
    for task in TASKS:
        report = leaderboard.parent / task / "report"
        results = json.loads((report / "results.json").read_text(encoding="utf-8"))
        browser = (report / "encounters.html").read_text(encoding="utf-8")
        page = (report / "report.html").read_text(encoding="utf-8")
        for s in results["systems"]:
            assert s["colour"] == colours[s["name"]], (task, s["name"])
            assert f"fill: {colours[s['name']]}" in page  # its figures
            key = f'<span class="dot" style="background:{colours[s["name"]]}"></span><b>{s["name"]}</b>'
            assert key in browser
    acuity = (leaderboard.parent / "er-reason-acuity/report/report.html").read_text(encoding="utf-8")
    # the first colour, which a standalone score would give majority, is not drawn in the acuity report
    assert f"fill: {colours['frequency']}" not in acuity


def test_differences_win_rate_and_provenance_reach_the_leaderboard(
    study: tuple[Path, dict[str, bytes], Path],
) -> None:
    path, _, leaderboard = study
    board = json.loads(leaderboard.with_suffix(".json").read_text(encoding="utf-8"))
    er = next(c for c in board["columns"] if c["task"] == "er-reason-acuity")
    gaps = json.loads((leaderboard.parent / "er-reason-acuity/report/differences.json").read_text())
    assert gaps["n_bootstrap"] == 50 and er["best"] == gaps["metrics"]["accuracy"]["best"]
    values = {s["name"]: c["value"] for s, c in zip(board["systems"], er["cells"], strict=True) if c}
    assert er["best"] == max(values, key=lambda name: values[name])
    for c in er["cells"][2:]:  # majority and triage-classifier: one is the best, the other differs
        if not c["best"]:
            gap = c["difference"]
            assert gap["value"] == pytest.approx(c["value"] - values[er["best"]])
            assert gap["mark"] == (gap["ci"][0] > 0 or gap["ci"][1] < 0)
    assert [w["task_runs"] for w in board["win_rate"]["systems"]] == [1, 1, 1, 1]
    provenance = board["provenance"]
    assert provenance["study_file"] == {"name": path.name, "sha256": sha256_file(path)}
    runs = {r["name"]: r for r in provenance["runs"]}
    built = leaderboard.parent / "er-reason-acuity" / "dataset" / "instances.jsonl"
    assert runs["er-reason-acuity"]["dataset_sha256"] == sha256_file(built)
    assert runs["er-reason-acuity"]["seeds"]["bootstrap.replicates"] == 50
    assert provenance["systems"]["majority"] == {"kind": "majority"}
    assert "study file demo-study.yaml sha256" in leaderboard.read_text(encoding="utf-8")  # the page footer
    assert leaderboard.with_suffix(".tex").read_text(encoding="utf-8").startswith("% admitdx ")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tasks:\n  earlydx:\n    sett: {}\n", "unknown key(s) tasks.earlydx.sett"),
        (
            "tasks:\n  sub:\n    from: earlydx\n  earlydx: {}\n",
            "tasks.sub.from must name an earlier task run",
        ),
    ],
)
def test_a_bad_study_file_names_the_file_and_the_key(
    text: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    code, _, err = run_cli(["study", str(path)], capsys, monkeypatch)
    assert code == 2
    assert f"{path}: {message}" in " ".join(err.split())


def dom(url: str, profile: Path) -> subprocess.CompletedProcess[str]:
    """The page after its scripts ran, with the browser's console on stderr."""
    return subprocess.run(
        [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
         "--dump-dom", url],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install -y chromium)")
def test_the_browser_filters_agree_with_the_scores(
    study: tuple[Path, dict[str, bytes], Path], tmp_path: Path
) -> None:
    """Filtered by system, track and outcome (preset by the link's #fragment), the browser shows the
    encounters the scores say: those whose supported labels knn-bm25 all found (per_instance.jsonl),
    and those the majority class got wrong (its accuracy)."""
    _, _, leaderboard = study
    ed = leaderboard.parent / "earlydx" / "report"
    rows = [json.loads(line) for line in (ed / "per_instance.jsonl").read_text().splitlines()]
    found = sum(1 for r in rows if r["system"] == "knn-bm25" and r["supported.n_ref"] > 0
                and r["supported.tp"] == r["supported.n_ref"])  # fmt: skip
    page = (ed / "encounters.html").resolve().as_uri()
    shown = dom(f"{page}#system=knn-bm25&track=supported&outcome=correct", tmp_path).stdout
    n = shown.count('<article class="enc"')
    assert 0 < found < n and f"showing {found} of {n}" in shown
    er = leaderboard.parent / "er-reason-acuity" / "report"
    majority = json.loads((er / "results.json").read_text())["systems"][0]
    total = majority["counts"]["instances"]
    wrong = total - round(majority["metrics"]["accuracy"]["value"] * total)
    page = (er / "encounters.html").resolve().as_uri()
    shown = dom(f"{page}#system=majority&outcome=missed", tmp_path).stdout
    assert wrong > 0 and f"showing {wrong} of {total}" in shown


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install -y chromium)")
@pytest.mark.parametrize("page", ["leaderboard.html", "earlydx/report/encounters.html"])
def test_pages_open_in_headless_chromium_without_console_errors(
    study: tuple[Path, dict[str, bytes], Path], page: str, tmp_path: Path
) -> None:
    _, _, leaderboard = study
    run = dom((leaderboard.parent / page).resolve().as_uri(), tmp_path)
    console = [line for line in run.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    if page == "leaderboard.html":
        assert run.stdout.count('class="n"') >= 6  # four user cells and the published numbers
    else:  # the filter script ran over every encounter
        assert "showing " in run.stdout and 'data-system="knn-bm25"' in run.stdout
