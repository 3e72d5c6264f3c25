"""Honest numbers and publication outputs of `admitdx score` / `admitdx report`: per-track sample
sizes, significance marks only above the patient minimum, uninformative intervals flagged, the
missing-prediction warning, a trial marked as one, colours in order of appearance,
`report --figures` (SVG, PDF, PNG, CSV, LaTeX, Markdown), and the report's layout checked in
headless Chromium."""

from __future__ import annotations

import csv
import json
import re
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

import scoring_data as sd
from admitdx.cli import app
from admitdx.colours import PALETTE, PATTERNS, assign
from browser import CHROMIUM_FLAGS, chromium
from predict_manifests import write_predict_manifest

TRACK_CLASSES = {
    "supported": {"supported"},
    "supported_partial": {"supported", "partial"},
    "partial": {"partial"},
    "all": None,
}


def run_cli(*args: object) -> object:
    return CliRunner().invoke(app, [str(a) for a in args])


def _systems(root: Path, complete: bool = False) -> tuple[Path, list[Path]]:
    """Two systems; ``noisy`` has no prediction for e5 (a trial) unless ``complete``."""
    insts = sd.instances()
    ds = sd.write_dataset(root / "ds", insts)
    oracle = sd.write_system(root, "oracle-all", insts, sd.oracle(None))
    noisy = sd.write_system(
        root,
        "noisy",
        insts,
        lambda i: [("Sepsis", None), *sd.oracle(None)(i)[:1]],
        suspected=lambda i, k: k == 0,
    )
    if complete:
        return ds, [oracle, noisy]
    for path in (noisy / "predictions.jsonl", noisy / "matches" / "exact.jsonl"):  # e5 has no prediction
        path.write_text("".join(x for x in path.read_text().splitlines(keepends=True) if '"e5"' not in x))
    return ds, [oracle, noisy]


def _score(ds: Path, dirs: list[Path], out: Path, *extra: object) -> tuple[dict, str]:
    result = run_cli(
        "score", "--dataset", ds, "--predictions", *dirs, "--matcher", "exact", "--out", out,
        "--n-bootstrap", "200", *extra,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text()), result.output


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[Path], dict, str]:
    root = tmp_path_factory.mktemp("outputs")
    ds, dirs = _systems(root)
    results, output = _score(ds, dirs, root / "run")
    return root, ds, dirs, results, output


def _expected_sizes() -> dict[str, tuple[int, int]]:
    """Counted straight from the hand-built instances: encounters with a label on the track."""
    test = [i for i in sd.instances() if i.split == "test"]
    out = {}
    for track, classes in TRACK_CLASSES.items():
        on = [i for i in test if any(classes is None or r.evidence_class in classes for r in i.references)]
        out[track] = (len(on), len({i.subject_id for i in on}))
    out["tc"] = (len(test), len({i.subject_id for i in test}))
    return out


def test_every_track_states_what_it_was_computed_over(scored: tuple) -> None:
    root, _, _, results, output = scored
    expected = _expected_sizes()
    assert expected["supported"] == (5, 3) and expected["partial"] == (3, 3)  # the fixture really differs
    for system in results["systems"]:
        sizes = {k: (v["n_encounters"], v["n_patients"]) for k, v in system["sample_size"].items()}
        assert sizes == expected
    table = (root / "run" / "table.md").read_text()
    assert "## Supported labels (primary track) — scored on 5 encounters, 3 patients" in table
    assert "## Partially supported labels only — scored on 3 encounters, 3 patients" in table
    assert "## Time-critical conditions (encounter level) — scored on 6 encounters, 4 patients" in table
    # the terminal table (on stdout) names the track's sample before the split's
    text = " ".join(output.split())
    assert (
        "TRIAL: 5 PREDICTED OF 6 IN THE BENCHMARK SET · supported labels · scored on 5 encounters, 3 patients"
        in text
    )
    assert "(of the test split's 6 encounters, 4" in text


def test_missing_predictions_are_reported_and_explained(scored: tuple) -> None:
    _, _, _, results, output = scored
    noisy = next(s for s in results["systems"] if s["name"] == "noisy")
    assert noisy["counts"]["missing"] == 1
    text = " ".join(output.split())
    assert "noisy: 1 of 6 test encounters have no prediction" in text
    assert "scored as an empty prediction" in text
    assert "oracle-all: " not in text.split("have no prediction")[0].split("warning")[-1]


def _marks(root: Path, out_name: str, results: dict) -> dict[str, int]:
    assert run_cli("report", root / out_name, "--figures", root / f"{out_name}-figs").exit_code == 0
    html = (root / out_name / "report.html").read_text()
    table = (root / out_name / "table.md").read_text()
    tex = (root / f"{out_name}-figs" / "results.tex").read_text()
    return {
        "html": html.count('<span class="sig">*</span>') - html.count('<span class="sig">*</span> paired'),
        "md": sum(line.count("\\*") for line in table.splitlines() if line.startswith("| ")),
        "tex": sum(line.count("$^{*}$") for line in tex.splitlines() if line.endswith("\\\\")),
    }


@pytest.fixture(scope="module")
def complete(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[Path], dict]:
    """The two systems with every prediction: a result, not a trial."""
    root = tmp_path_factory.mktemp("complete")
    ds, dirs = _systems(root, complete=True)
    results, _ = _score(ds, dirs, root / "run")
    return root, ds, dirs, results


def test_no_significance_mark_below_the_patient_minimum(complete: tuple) -> None:
    root, ds, dirs, results = complete
    p_values = next(s for s in results["systems"] if s["name"] == "noisy")["vs_baseline"]["p_values"]
    assert p_values["supported_partial.micro_precision"] < 0.05  # a difference the bootstrap calls real
    assert results["params"]["min_patients_for_significance"] == 30
    below = _marks(root, "run", results)
    assert below == {"html": 0, "md": 0, "tex": 0}
    html = (root / "run" / "report.html").read_text()
    assert "No significance marks where a metric rests on fewer than 30 patients" in html
    assert "fewer than 30 patients" in (root / "run" / "table.md").read_text()
    # the same run with a minimum the fixture meets prints the marks: suppression is by the minimum alone
    allowed, _ = _score(ds, dirs, root / "run-min3", "--min-patients", "3")
    marks = _marks(root, "run-min3", allowed)
    assert marks["html"] > 0 and marks["md"] > 0 and marks["tex"] > 0
    assert "No significance marks" not in (root / "run-min3" / "report.html").read_text()
    # with a minimum of 4 the supported track (3 patients) loses its marks, supp.+partial (4) keeps them
    _score(ds, dirs, root / "run-min4", "--min-patients", "4")
    table = (root / "run-min4" / "table.md").read_text()
    supported = table.split("## Supported labels")[1].split("##")[0]
    partial = table.split("## Supported + partially")[1].split("##")[0]
    assert "\\*" not in supported and "\\*" in partial


def test_uninformative_intervals_are_flagged(scored: tuple) -> None:
    root, _, _, results, _ = scored
    oracle = next(s for s in results["systems"] if s["name"] == "oracle-all")
    assert oracle["metrics"]["all.micro_f1"]["ci"] == [1.0, 1.0]
    table = (root / "run" / "table.md").read_text()
    assert "| oracle-all | 1.000 [1.000, 1.000]† | 1.000 [1.000, 1.000]† | 1.000 [1.000, 1.000]†" in table
    assert "† uninformative interval: zero width" in table
    # a proper interval is not flagged
    assert re.search(r"\| oracle-all \| 0\.900 \[0\.8\d\d, 1\.000\] \|", table)


def test_a_trial_is_marked_everywhere_and_gets_no_significance_marks(scored: tuple) -> None:
    """noisy predicted 5 of the 6 test encounters: every card, title, figure, table and caption says
    "trial: 5 predicted of 6 in the benchmark set", and no renderer prints a mark, even where
    --min-patients would allow one."""
    from admitdx.report.latex import render_latex

    root, ds, dirs, _, _ = scored
    results, _ = _score(ds, dirs, root / "trial-min3", "--min-patients", "3")
    assert run_cli("report", root / "trial-min3").exit_code == 0
    html = (root / "trial-min3" / "report.html").read_text()
    assert '<span class="trial" id="trial-mark">trial: 5 predicted of 6 in the benchmark set</span>' in html
    assert (
        html.count('<div class="trial">trial: 5 predicted of 6 in the benchmark set</div>') == 1
    )  # noisy's card only
    assert (
        "trial: 5 predicted of 6 in the benchmark set" in html.split('id="fig-main"')[1].split("</figure>")[0]
    )  # the figure's title
    assert '<span class="sig">*</span>' not in html and "paired bootstrap p &lt;" not in html
    table = (root / "trial-min3" / "table.md").read_text()
    assert (
        table.startswith("# Trial: 5 predicted of 6 in the benchmark set — admitdx results")
        and "\\*" not in table
    )
    tex = render_latex(results)
    assert (
        "\\caption{Trial: 5 predicted of 6 in the benchmark set, not a result." in tex and "$^{*}$" not in tex
    )


def test_colours_follow_the_order_of_appearance_and_are_recorded(scored: tuple) -> None:
    root, ds, dirs, results, _ = scored
    assert [(s["name"], s["colour"]) for s in results["systems"]] == [
        ("oracle-all", PALETTE[0]),
        ("noisy", PALETTE[1]),
    ]
    reversed_results, _ = _score(ds, list(reversed(dirs)), root / "reversed")
    assert [s["colour"] for s in reversed_results["systems"]] == [PALETTE[0], PALETTE[1]]
    for run, data in (("run", results), ("reversed", reversed_results)):
        assert run_cli("report", root / run).exit_code == 0
        html = (root / run / "report.html").read_text()
        for s in data["systems"]:
            assert (
                f'<div class="kpi" style="--c:{s["colour"]}">\n    <div class="name">{s["name"]}</div>'
                in html
            )
            assert f"fill: {s['colour']}" in html.split('id="fig-main"')[1].split("</section>")[0]
    # five systems, five colours; past the palette's size the colours come back with a pattern
    five = assign([f"s{i}" for i in range(5)])
    assert len({style.colour for style in five.values()}) == 5
    many = list(assign([f"s{i}" for i in range(len(PALETTE) + 1)]).values())
    assert [s.pattern for s in many[: len(PALETTE)]] == [None] * len(PALETTE)
    assert (many[-1].colour, many[-1].pattern) == (PALETTE[0], PATTERNS[1])


def test_figures_folder_holds_every_figure_in_every_format(scored: tuple) -> None:
    root, _, _, results, _ = scored
    figs = root / "figs"
    result = run_cli("report", root / "run", "--figures", figs)
    assert result.exit_code == 0, result.output
    names = {
        "main",
        "recall_at_k",
        "cardinality",
        "explicit",
        "truncation",
        "operating",
        "coverage",
        "tracks",
    }
    assert {p.stem for p in figs.glob("*.svg")} == names
    for name in names:
        assert (figs / f"{name}.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
        assert (figs / f"{name}.pdf").read_bytes()[:5] == b"%PDF-"
        assert (figs / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        rows = list(csv.DictReader((figs / f"{name}.csv").open()))
        assert rows, name
    main = list(csv.DictReader((figs / "main.csv").open()))
    f1 = next(r for r in main if r["system"] == "noisy" and r["metric"] == "supported.micro_f1")
    metric = next(s for s in results["systems"] if s["name"] == "noisy")["metrics"]["supported.micro_f1"]
    assert float(f1["value"]) == pytest.approx(metric["value"])
    assert [float(f1["ci_low"]), float(f1["ci_high"])] == pytest.approx(metric["ci"])
    assert (f1["n_encounters"], f1["n_patients"]) == ("5", "3")
    tex = (figs / "results.tex").read_text()
    for command in ("\\toprule", "\\midrule", "\\bottomrule", "\\begin{tabular}{lrrrrr}"):
        assert command in tex
    noisy = next(s for s in results["systems"] if s["name"] == "noisy")["metrics"]
    p = noisy["supported.micro_precision"]
    row = next(line for line in tex.splitlines() if line.startswith("noisy & "))
    assert row.startswith(f"noisy & {p['value']:.3f} {{\\scriptsize [{p['ci'][0]:.3f}, {p['ci'][1]:.3f}]}}")
    assert noisy["supported.complete_match_rate"]["ci"] == [0.0, 0.0]
    assert row.endswith("0.000 {\\scriptsize [0.000, 0.000]}$^{\\dagger}$ \\\\")  # flagged, last column
    assert (figs / "results.md").read_text() == (root / "run" / "table.md").read_text()
    # a rerun writes the same bytes (no creation dates in the files)
    before = {p.name: p.read_bytes() for p in figs.iterdir() if p.suffix in (".svg", ".pdf", ".csv", ".tex")}
    assert run_cli("report", root / "run", "--figures", figs).exit_code == 0
    assert before == {p.name: p.read_bytes() for p in figs.iterdir() if p.name in before}


def test_absent_sections_are_labelled_not_drawn_as_zero(scored: tuple, tmp_path: Path) -> None:
    _, ds, dirs, _, _ = scored
    manifest = {"stage": "build", "inputs": {}, "outputs": {"sections_absent_source": ["ecg"]}}
    (ds / "manifest.json").write_text(json.dumps(manifest))
    try:
        results, _ = _score(ds, dirs, tmp_path / "run")
    finally:
        (ds / "manifest.json").unlink()
    assert results["coverage_absent"] == ["ecg"]
    assert run_cli("report", tmp_path / "run").exit_code == 0
    html = (tmp_path / "run" / "report.html").read_text()
    section = html.split('id="fig-coverage"')[1].split("</section>")[0]
    assert (
        "source absent in this MIMIC root" in section
        and "their source is absent in this MIMIC root (ecg)" in section
    )
    assert ">0%<" not in section  # the absent section is not drawn as a measured 0 %


FLAGS = (*CHROMIUM_FLAGS, "--force-device-scale-factor=1", "--window-size=1280,7000")

# Runs in the page after layout: per figure, where it is, whether its axes hold drawn data, and
# for each legend entry whether a visible mark stands before its text (matplotlib writes a legend
# as handle groups followed by a text group per entry).
LAYOUT_PROBE = """
<script>
const drawn = (el) => {
  try { const b = el.getBBox(); return b.width > 0 || b.height > 0; } catch (e) { return false; }
};
const out = [];
document.querySelectorAll('figure svg').forEach((svg) => {
  const rect = svg.getBoundingClientRect();
  const axes = svg.querySelector('g[id^="axes_"]');
  const kinds = 'g[id^="patch_"], g[id^="line2d_"], g[id^="PolyCollection_"], g[id^="LineCollection_"]';
  const background = axes ? axes.querySelector('g[id^="patch_"]') : null;
  const data = axes ? [...axes.querySelectorAll(kinds)].filter((g) => g !== background && drawn(g)
      && !g.closest('[id^="matplotlib.axis"]') && !g.closest('[id^="legend_"]')) : [];
  const entries = [];
  svg.querySelectorAll('g[id^="legend_"]').forEach((legend) => {
    let marks = 0;
    for (const child of legend.children) {
      if (/^text_/.test(child.id)) { entries.push({label: child.textContent.trim(), marks}); marks = 0; }
      else if (/^(line2d|patch|PathCollection)_/.test(child.id) && drawn(child)
               && child.querySelector('path, use')) { marks += 1; }
    }
  });
  out.push({section: svg.closest('section').id, x: rect.left + scrollX, y: rect.top + scrollY,
            width: rect.width, height: rect.height, data: data.length, legend: entries});
});
const pre = document.createElement('pre'); pre.id = 'layout-probe'; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
"""


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install -y chromium)")
def test_every_figure_has_a_plot_and_every_legend_entry_a_mark(scored: tuple, tmp_path: Path) -> None:
    from PIL import Image

    root, _, _, _, _ = scored
    assert run_cli("report", root / "run").exit_code == 0
    page = tmp_path / "probe.html"
    page.write_text((root / "run" / "report.html").read_text().replace("</body>", LAYOUT_PROBE + "</body>"))
    base = [chromium(), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [*base, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    probe = json.loads(
        re.search(r'<pre id="layout-probe">(.*?)</pre>', dom, re.S).group(1).replace("&quot;", '"')
    )
    sections = {f["section"] for f in probe}
    assert {"fig-main", "fig-recall-at-k", "fig-operating", "fig-coverage", "fig-tracks"} <= sections
    shot = tmp_path / "report.png"
    subprocess.run(
        [*base, f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120, check=True
    )
    image = Image.open(shot).convert("L")
    for fig in probe:
        assert fig["width"] > 150 and fig["height"] > 80, fig  # laid out, visible
        assert fig["data"] >= 1, f"{fig['section']}: no drawn data in the plot area"
        for entry in fig["legend"]:
            assert entry["marks"] >= 1, f"{fig['section']}: legend entry {entry['label']!r} has no mark"
        box = (int(fig["x"]), int(fig["y"]), int(fig["x"] + fig["width"]), int(fig["y"] + fig["height"]))
        assert box[3] <= image.height, f"{fig['section']} lies below the screenshot"
        lo, hi = image.crop(box).getextrema()
        dark = sum(image.crop(box).histogram()[:200])
        assert hi - lo > 100 and dark > 500, f"{fig['section']}: blank in the screenshot"
    legends = [e["label"] for f in probe for e in f["legend"]]
    assert "noisy" in legends and "oracle-all" in legends


def test_a_category_suite_reports_its_sample_and_tables(tmp_path: Path) -> None:
    """Suites without figures (here categories) still state their sample, withhold marks below the
    patient minimum, and get their LaTeX and Markdown tables."""
    from dataclasses import dataclass

    from admitdx.contracts import Instance, Prediction
    from admitdx.jsonl import write_jsonl
    from admitdx.tasks.dataset_writer import instance_schema
    from admitdx.tasks.registry import register
    from admitdx.tasks.spec import TaskSpec

    @dataclass(frozen=True)
    class NoParams:
        pass

    def never_built(*args: object, **kwargs: object) -> dict:
        raise AssertionError("written by hand")

    task = register(
        TaskSpec("outputs-acuity", "acuity", NoParams, never_built, "category", "category",
                 instance_schema((), (), target=True), categories=("1", "2", "3"), ordinal=True)
    )  # fmt: skip
    gold = ["1", "2", "3", "2", "1", "3", "2", "2"]
    insts = [
        Instance(f"i{n}", n // 2, task.name, "test", {}, f"record {n}", [], target=g)
        for n, g in enumerate(gold)
    ]
    write_jsonl(tmp_path / "ds" / "instances.jsonl", (i.to_dict() for i in insts))
    dirs = []
    for name, answers in (("right", gold), ("always-2", ["2"] * len(gold))):
        d = tmp_path / name
        write_jsonl(
            d / "predictions.jsonl",
            (Prediction(i.id, name, [], answer=a).to_dict() for i, a in zip(insts, answers, strict=True)),
        )
        write_predict_manifest(d, insts)
        dirs.append(d)
    result = run_cli("score", "--dataset", tmp_path / "ds", "--predictions", *dirs, "--out", tmp_path / "run",
                     "--n-bootstrap", "100")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "scored on 8 encounters, 4 patients" in " ".join(result.output.split())
    figs = tmp_path / "figs"
    assert run_cli("report", tmp_path / "run", "--figures", figs).exit_code == 0
    html = (tmp_path / "run" / "report.html").read_text()
    assert "Scored on 8 encounters, 4 patients" in html and 'id="significance-suppressed"' in html
    assert html.count('<span class="sig">*</span>') == html.count('<span class="sig">*</span> paired')
    tex = (figs / "results.tex").read_text()
    assert "\\toprule" in tex and "right & 1.000 {\\scriptsize [1.000, 1.000]}$^{\\dagger}$" in tex
    assert "8 encounters, 4 patients" in (figs / "results.md").read_text()
    for svg in figs.glob("*.svg"):  # whatever figures the suite draws come in every format
        assert all(svg.with_suffix(ext).stat().st_size > 0 for ext in (".pdf", ".png", ".csv")), svg.name


def test_each_per_condition_f1_names_its_n(complete: tuple) -> None:
    """Counted by hand from the fixture's codes (all labels, the default time-critical track)."""
    root, _, _, results = complete
    recorded = ("myocardial infarction", "sepsis", "pulmonary embolism", "pneumonia", "atrial fibrillation",
                "fracture", "urinary tract infection")  # fmt: skip
    absent = ("intracranial haemorrhage", "stroke", "gastrointestinal bleeding", "acute kidney injury",
              "heart failure")  # fmt: skip
    expected = {**dict.fromkeys(recorded, 1), **dict.fromkeys(absent, 0)}
    assert all(s["per_condition_n"] == expected for s in results["systems"])
    assert run_cli("report", root / "run").exit_code == 0
    section = (root / "run" / "report.html").read_text().split('id="per-condition"')[1].split("</section>")[0]
    assert '<th>sepsis<br><span class="ci">n = 1</span></th>' in section
