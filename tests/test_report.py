"""`admitdx score` and `admitdx report` end to end on a hand-built dataset, and the report in Chromium."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

import scoring_data as sd
from admitdx.cli import app
from admitdx.metrics.earlydx import TRACKS
from browser import CHROMIUM_FLAGS, chromium

ORACLES = {
    "supported": {"supported"},
    "supported_partial": {"supported", "partial"},
    "partial": {"partial"},
    "all": None,
}
PERFECT = (
    "micro_precision",
    "micro_recall",
    "micro_f1",
    "example_precision",
    "example_recall",
    "example_f1",
    "complete_match_rate",
    "jaccard",
    "recall@5",
    "ignore_partial_precision",
)


def run_cli(*args: str) -> object:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("score")
    insts = sd.instances()
    ds = sd.write_dataset(root / "ds", insts)
    dirs = [sd.write_system(root, f"oracle-{t}", insts, sd.oracle(c)) for t, c in ORACLES.items()]
    noisy = sd.write_system(
        root,
        "noisy",
        insts,
        lambda i: [("Sepsis", None), *sd.oracle(None)(i)[:1]],
        parse_error_ids=frozenset({"e6"}),
        suspected=lambda i, k: k == 0,
    )
    manifest = json.loads((noisy / "manifest.json").read_text())  # as `predict` writes it for the
    manifest["inputs"] |= {"system": {"kind": "llm", "options": {}}, "system_inputs": {"local_server": True}}
    (noisy / "manifest.json").write_text(json.dumps(manifest))  # embedded SmolLM2 server
    agreement = {
        "a": "exact",
        "b": "embedding",
        "compared": 6,
        "exact_count_agreement": 0.8333,
        "within_one_agreement": 1.0,
        "pair_set_agreement": 0.5,
        "f1_pearson": None,
    }
    (dirs[0] / "matches" / "agreement_exact_vs_embedding.json").write_text(json.dumps(agreement))
    for path in (noisy / "predictions.jsonl", noisy / "matches" / "exact.jsonl"):  # drop e5: scored as empty
        path.write_text(
            "".join(line for line in path.read_text().splitlines(keepends=True) if '"e5"' not in line)
        )
    result = run_cli(
        "score",
        "--dataset",
        ds,
        "--predictions",
        *dirs,
        noisy,
        "--matcher",
        "exact",
        "--out",
        root / "run",
        "--n-bootstrap",
        "200",
        "--min-group",
        "1",
    )
    assert result.exit_code == 0, result.output
    text = (root / "run" / "results.json").read_text()
    return root / "run", json.loads(text, parse_constant=strict_json)


def strict_json(constant: str) -> None:
    """results.json is read by browsers and other languages: NaN / Infinity are not JSON."""
    raise AssertionError(f"results.json holds {constant}")


def test_each_oracle_scores_one_on_its_track(scored: tuple[Path, dict]) -> None:
    _, results = scored
    assert results["tracks"] == list(TRACKS)
    by_name = {s["name"]: s for s in results["systems"]}
    for track in ORACLES:
        m = by_name[f"oracle-{track}"]["metrics"]
        for metric in PERFECT:
            assert m[f"{track}.{metric}"]["value"] == pytest.approx(1.0), (track, metric)
        assert m[f"{track}.micro_f1"]["ci"] == pytest.approx([1.0, 1.0])
    everything = by_name["oracle-all"]
    assert (
        everything["metrics"]["tc.recall"]["value"] == 1.0
        and everything["metrics"]["tc.precision"]["value"] == 1.0
    )
    # an EarlyDx dataset is scored by the EarlyDx suite alone: no code-level blocks
    assert results["task"] == "earlydx" and results["suite"] == "earlydx"
    assert "clinibench" not in everything and not any(
        k.startswith("clinibench.") for k in everything["metrics"]
    )
    # the all-labels oracle also names partial labels, which are false positives on the primary track
    assert everything["metrics"]["supported.micro_precision"]["value"] == pytest.approx(6 / 9)


def test_counts_p_values_and_files(scored: tuple[Path, dict]) -> None:
    run, results = scored
    noisy = next(s for s in results["systems"] if s["name"] == "noisy")
    assert noisy["counts"]["parse_errors"] == 1 and noisy["counts"]["missing"] == 1
    assert noisy["counts"]["suspected_items"] == 4
    assert noisy["caveat"] and "clinical skill" in noisy["caveat"]
    assert set(noisy["vs_baseline"]["p_values"]) == set(results["headline_metrics"])
    assert noisy["vs_baseline"]["baseline"] == "oracle-supported"
    lines = (run / "per_instance.jsonl").read_text().splitlines()
    assert len(lines) == 5 * 6
    table = (run / "table.md").read_text()
    assert "| oracle-supported | 1.000 [1.000, 1.000]" in table and "## Caveats" in table
    assert json.loads((run / "manifest.json").read_text())["stage"] == "score"
    assert results["coverage"] == {"triage": 1.0, "labs": pytest.approx(2 / 6), "ecg": 0.0}
    assert results["agreement"][0]["result"]["a"] == "exact"


def test_unaudited_dataset_scores_all_labels_and_says_why(tmp_path: Path) -> None:
    insts = sd.instances(audited=False)
    ds = sd.write_dataset(tmp_path / "ds", insts)
    d = sd.write_system(tmp_path, "oracle", insts, sd.oracle(None))
    result = run_cli(
        "score",
        "--dataset",
        ds,
        "--predictions",
        d,
        "--matcher",
        "exact",
        "--out",
        tmp_path / "run",
        "--n-bootstrap",
        "50",
    )
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["tracks"] == ["all"] and "evidence class" in results["tracks_note"]
    assert results["systems"][0]["metrics"]["all.micro_f1"]["value"] == 1.0
    refused = run_cli(
        "score",
        "--dataset",
        ds,
        "--predictions",
        d,
        "--matcher",
        "exact",
        "--out",
        tmp_path / "r2",
        "--time-critical-track",
        "supported",
    )
    assert refused.exit_code != 0 and "not available" in str(refused.exception)
    assert run_cli("report", tmp_path / "run").exit_code == 0
    assert "Only the all-labels track" in (tmp_path / "run" / "report.html").read_text()


def test_missing_matches_is_a_clear_error(tmp_path: Path) -> None:
    insts = sd.instances()
    ds = sd.write_dataset(tmp_path / "ds", insts)
    d = sd.write_system(tmp_path, "oracle", insts, sd.oracle(None))
    result = run_cli(
        "score", "--dataset", ds, "--predictions", d, "--matcher", "embedding", "--out", tmp_path / "r"
    )
    assert result.exit_code != 0
    assert "admitdx match" in str(result.exception)


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install -y chromium)")
def test_report_renders_in_headless_chromium(scored: tuple[Path, dict], tmp_path: Path) -> None:
    run, _ = scored
    result = run_cli("report", run)
    assert result.exit_code == 0, result.output
    page = (run / "report.html").resolve()
    assert "http://" not in page.read_text().replace("http://www.w3.org", "")  # self-contained
    base = [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [*base, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    for element in (
        'id="main-table"',
        'id="fig-recall-at-k"',
        'id="fig-cardinality"',
        'id="fig-explicit"',
        'id="fig-operating"',
        'id="fig-coverage"',
        'id="subgroups"',
        'id="agreement"',
        'id="time-critical"',
        'id="graded"',
        'class="caveat"',
        'id="fig-tracks"',
        'id="fig-truncation"',
    ):
        assert element in dom, element
    assert 'id="clinibench"' not in dom  # only the sections the suite produced
    assert dom.count("<svg") >= 8
    assert '<td class="parse-failures">1</td>' in dom
    assert "exact vs embedding" in dom and "<td>0.833</td>" in dom  # the judge-agreement row
    shot = tmp_path / "report.png"
    subprocess.run(
        [*base, "--window-size=1280,2400", f"--screenshot={shot}", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.stat().st_size > 50_000  # a drawn page, not a blank one


def test_caveat_follows_the_system_registration(tmp_path: Path) -> None:
    """The llm kind's registration flags runs of the embedded toy model, not hosted models of the
    same kind, and other kinds carry no caveat."""
    from admitdx.scoring.context import caveat_for

    def run(name: str, inputs: dict) -> Path:
        (tmp_path / name).mkdir()
        (tmp_path / name / "manifest.json").write_text(json.dumps({"inputs": inputs}))
        return tmp_path / name

    local = run("local", {"system": {"kind": "llm"}, "system_inputs": {"local_server": True}})
    hosted = run("hosted", {"system": {"kind": "llm"}, "system_inputs": {"llm": {"model": "m"}}})
    knn = run("knn", {"system": {"kind": "knn-bm25"}})
    assert "clinical skill" in (caveat_for(local) or "")
    assert caveat_for(hosted) is None and caveat_for(knn) is None
    assert caveat_for(tmp_path) is None  # no manifest at all
