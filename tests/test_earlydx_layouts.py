"""The two EarlyDx layouts carry the same evidence, and predictions made on one are not scored
against the other unless asked (``--allow-other-layout``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import Instance, load_instances
from admitdx.errors import UsageError
from admitdx.scoring.layout import check_layout, predicted_layout
from admitdx.tasks.earlydx import drop_sections
from admitdx.tasks.earlydx.serialize import layout_of, relayout


def _invoke(*args: str) -> None:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def builds(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("layouts")
    out = {}
    for layout in ("paper", "demarcated"):
        out[layout] = root / layout
        _invoke("build", "earlydx", "--mimic", str(demo_dir), "--out", str(out[layout]), "--layout", layout)
    return out


def _by_id(path: Path) -> dict[str, Instance]:
    return {i.id: i for i in load_instances(path)}


def test_the_layouts_differ_in_text_only_and_each_text_is_rebuilt_from_the_other(
    builds: dict[str, Path],
) -> None:
    paper, demarcated = _by_id(builds["paper"]), _by_id(builds["demarcated"])
    assert paper.keys() == demarcated.keys()
    for key, p in paper.items():
        d = demarcated[key]
        assert [r.text for r in p.references] == [r.text for r in d.references] and p.history == d.history
        assert {k for k, v in p.sections.items() if v} == {k for k, v in d.sections.items() if v}
        assert layout_of(p.text) == "paper" and layout_of(d.text) == "demarcated"
        assert relayout(d, "paper").text == p.text
    one = next(i for i in paper.values() if i.history)
    lines = one.text.splitlines()
    assert lines[6].startswith("Baseline labs (prior): ") and lines[7].startswith(
        "Past medical history (prior dx): "
    )
    assert lines[10].startswith("ECG: ") and lines[-1].startswith("Initial labs: ")
    # a prompt-time ablation re-serializes in the instance's own layout
    assert layout_of(drop_sections(one, ("labs",)).text) == "paper"


def test_predictions_made_on_the_other_layout_are_refused_unless_allowed(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    run = tmp_path / "freq"
    _invoke("predict", "--dataset", str(builds["paper"]), "--system", "frequency", "--out", str(run))
    paper, demarcated = load_instances(builds["paper"]), load_instances(builds["demarcated"])
    assert predicted_layout(paper, run) is None and check_layout(paper, run, allow_other_layout=False) is None
    assert predicted_layout(demarcated, run) == "paper"
    with pytest.raises(UsageError, match=r"made on the 'paper' layout of this dataset.*'demarcated'"):
        check_layout(demarcated, run, allow_other_layout=False)
    record = check_layout(demarcated, run, allow_other_layout=True)
    assert record == {
        "dataset": "other layout",
        "predicted_layout": "paper",
        "scored_layout": "demarcated",
        "allowed_by": "--allow-other-layout",
    }


def test_admitdx_score_refuses_the_other_layout_and_records_an_allowed_one(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    run = tmp_path / "freq"
    _invoke("predict", "--dataset", str(builds["paper"]), "--system", "frequency", "--out", str(run))
    _invoke("match", "--dataset", str(builds["paper"]), "--predictions", str(run), "--matcher", "exact")
    args = ["score", "--dataset", str(builds["demarcated"]), "--predictions", str(run), "--matcher", "exact"]
    refused = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "s1")])
    assert isinstance(refused.exception, UsageError)  # exit 2 from the admitdx entry point
    assert "'paper' layout" in str(refused.exception) and "--allow-other-layout" in refused.exception.hint
    _invoke(*args, "--out", str(tmp_path / "s2"), "--allow-other-layout")
    results = json.loads((tmp_path / "s2" / "results.json").read_text())
    assert results["systems"][0]["provenance"]["predicted_layout"] == "paper"
    assert results["params"]["allow_other_layout"] is True
