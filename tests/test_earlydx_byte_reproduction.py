"""``--reproduce authors``: the input text of every real-demo encounter equals the authors' builder's.

``data/earlydx_authors_demo_text.json`` maps each of the 146 demo encounters with a label to the
input text (the user message without its closing question, i.e. their ``earlydx.input_of``) that
the authors' public builder wrote, run unmodified: github.com/jimmylihui/EarlyDx at b79ac61,
``pipeline/make_cohort_index.py --data-root R`` then ``pipeline/build_planA.py --data-root R
--cohort-index … --out cohort.jsonl`` (W = 0, charttime), under CPython 3.11.7 with pandas 3.1.1,
numpy 2.4.6 and python-dateutil 4.0.0, on x86-64. R laid the real MIMIC-IV demo out as their code
reads it (``mimic-iv/3.1/hosp`` → the demo's hosp/, ``mimic-iv-ed/2.2/ed`` → its ed/) and held, for
the modules the demo lacks, files with their documented header and no rows (note/discharge and
radiology, ecg machine_measurements, echo structured-measurement): their builder reads those
unconditionally. Their 26 encounters without a label (answer "<answer></answer>") are left out, as
admitdx leaves them out; the file was written with ``json.dumps(…, indent=0, sort_keys=True)``.

Their pandas sorts are unstable (``sections/pandas_order.py``): another numpy may order equal keys
differently, for them as here; the three OMR values pinned below are where it shows on the demo.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import Instance, load_instances
from admitdx.errors import UsageError
from admitdx.tasks.earlydx.params import AUTHORS
from admitdx.tasks.earlydx.serialize import relayout
from admitdx.tasks.sections.pandas_order import pandas_order

EXPECTED = Path(__file__).parent / "data" / "earlydx_authors_demo_text.json"


@pytest.fixture(scope="module")
def reproduced(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Instance]]:
    out = tmp_path_factory.mktemp("authors") / "ds"
    args = ["build", "earlydx", "--mimic", str(demo_dir), "--out", str(out), "--reproduce", "authors"]
    result = CliRunner().invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out, load_instances(out)


@pytest.mark.slow
def test_every_demo_encounter_reads_byte_for_byte_as_the_authors_builder_wrote_it(
    reproduced: tuple[Path, list[Instance]],
) -> None:
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    ours = {str(i.stay_id): i.text for i in reproduced[1]}
    assert len(expected) == 146 and set(ours) == set(expected)
    assert [s for s in sorted(expected) if ours[s] != expected[s]] == []
    # the same-day OMR picks their unstable sort makes (a stable one takes BMI 24.7, Wt 90.00)
    # the text is rebuilt from the sections alone, as scoring's layout check rebuilds it
    assert all(relayout(i, "paper").text == i.text for i in reproduced[1])
    omr = {s: next(line for line in ours[s].splitlines() if line.startswith("Baseline (OMR)")) for s in ours}
    assert "BMI 24.4" in omr["36021274"] and "Wt 88," in omr["37376268"] and "Wt 88," in omr["38216551"]


@pytest.mark.slow
def test_the_manifest_records_the_flag_and_every_option_it_set(
    reproduced: tuple[Path, list[Instance]],
) -> None:
    params = json.loads((reproduced[0] / "manifest.json").read_text())["inputs"]["params"]
    assert params["reproduce"] == "authors"
    assert {k: params[k] for k in AUTHORS} == AUTHORS


def test_the_flag_refuses_an_option_it_sets_itself(demo_dir: Path, tmp_path: Path) -> None:
    args = ["build", "earlydx", "--mimic", str(demo_dir), "--out", str(tmp_path / "x")]
    result = CliRunner().invoke(app, [*args, "--reproduce", "authors", "--label-filter", "strict"])
    assert isinstance(result.exception, UsageError) and result.exception.exit_code == 2
    assert "label_filter" in str(result.exception)


def test_pandas_order_is_their_unstable_sort_not_file_order() -> None:
    # past 16 rows numpy's introsort partitions and equal keys leave in neither file order nor its
    # reverse; the expected orders are pandas 3.1.1's sort_values on the same column
    assert pandas_order([True] * 17 + [False]) == [
        17,
        15,
        14,
        13,
        12,
        11,
        10,
        9,
        0,
        7,
        6,
        5,
        4,
        3,
        2,
        1,
        16,
        8,
    ]
    assert pandas_order([False, True, False], ascending=False) == [1, 0, 2]
    assert pandas_order([True, False, True], ascending=False) == [0, 2, 1]
