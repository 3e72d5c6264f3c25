"""Concept recall for ER-Reason's planning rationales: the offline extractor (ICD-10-CM phrases,
drug lexicon, NegEx) on hand-written text with hand-derived concepts, and its wiring into the text
suite through `admitdx score` (the results name the extractor)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from tests.planning_data import score, write_planning_run
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.errors import UsageError
from admitdx.metrics.concepts import concept_recall, get_extractor, offline_available

pytestmark = pytest.mark.skipif(not offline_available(), reason="the concepts extra is not installed")


def test_offline_extractor_concepts_and_negation() -> None:
    x = get_extractor("offline")
    # J18 pneumonia; DB01212 ceftriaxone, DB00207 azithromycin; chest pain and fever are negated
    text = "No chest pain. Denies fever. Pneumonia likely; give ceftriaxone and azithromycin."
    assert x.concepts(text) == {"ICD10:J18", "DRUG:DB01212", "DRUG:DB00207"}
    # I10 hypertension, E11 type 2 diabetes mellitus (longest match wins over "diabetes mellitus")
    assert x.concepts("Hypertension and type 2 diabetes mellitus, no atrial fibrillation.") == {
        "ICD10:I10",
        "ICD10:E11",
    }
    assert x.concepts("atrial fibrillation") == {"ICD10:I48"}
    assert concept_recall(
        x, "consider pneumonia, give aspirin", "Pneumonia, pulmonary embolism; aspirin"
    ) == (pytest.approx(2 / 3))
    assert concept_recall(x, "anything", "return in two days") is None  # no concept: undefined, not 0


def test_text_suite_reports_concept_recall_and_its_extractor(tmp_path: Path) -> None:
    target = {
        "rule_out": "Pneumonia, pulmonary embolism, pneumothorax.",
        "treatment_plan": "Aspirin and heparin.",
    }
    answers = [
        {"rule_out": "pneumonia; no pulmonary embolism", "treatment_plan": "heparin"},  # 1/3 and 1/2
        {"rule_out": "pneumothorax or pulmonary embolism", "treatment_plan": "aspirin, heparin"},  # 2/3, 2/2
    ]
    ds, run = write_planning_run(tmp_path, [target, target], answers)
    out = tmp_path / "out"
    results = score(ds, run, out)
    assert results["concept_extractor"] == "offline"
    assert len(results["concept_extractor_params"]["lexicon"]) == 16  # the cached tables' key
    assert "> Concept recall: concepts by `offline`" in (out / "table.md").read_text()
    assert "rule_out.concept_recall" in results["headline_metrics"]
    metrics = results["systems"][0]["metrics"]
    assert metrics["rule_out.concept_recall"]["value"] == pytest.approx((1 / 3 + 2 / 3) / 2)
    assert metrics["treatment_plan.concept_recall"]["value"] == pytest.approx((1 / 2 + 1) / 2)
    # the report draws concept recall by rationale type and ROUGE per part, from the same numbers
    figures = tmp_path / "figures"
    result = CliRunner().invoke(app, ["report", str(out), "--figures", str(figures)])
    assert result.exit_code == 0, result.output
    with (figures / "concept_recall.csv").open() as f:
        drawn = {r["metric"]: float(r["value"]) for r in csv.DictReader(f)}
    assert drawn["rule_out.concept_recall"] == pytest.approx(0.5)
    assert drawn["treatment_plan.concept_recall"] == pytest.approx(0.75)
    assert (figures / "rouge_rule_out.svg").is_file() and (figures / "rouge_treatment_plan.svg").is_file()


def test_an_unknown_extractor_is_a_usage_error(tmp_path: Path) -> None:
    ds, run = write_planning_run(tmp_path, [{"rule_out": "Pneumonia."}], [{"rule_out": "pneumonia"}])
    with pytest.raises(UsageError, match="unknown concept extractor 'ctakes'") as e:
        score(ds, run, tmp_path / "out", "--concept-extractor", "ctakes")
    assert "offline, quickumls, llm_judge" in (e.value.hint or "")


def test_lexicons_are_cached_on_disk_keyed_by_package_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from admitdx.metrics import concepts_icd, concepts_lexicon

    built: list[str] = []

    def build_conditions() -> dict[str, str]:
        built.append("conditions")
        return {"pneumonia": "J18"}

    monkeypatch.setattr(concepts_icd, "condition_lexicon", build_conditions)
    monkeypatch.setattr(concepts_lexicon, "drug_lexicon", lambda: {"aspirin": "DRUG:DB00945"})
    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))
    concepts_lexicon.lexicons.cache_clear()
    try:
        first = concepts_lexicon.lexicons()
        path = concepts_lexicon.lexicon_path()
        assert path.parent == tmp_path / "cache" / "concepts" and path.is_file()
        concepts_lexicon.lexicons.cache_clear()
        assert concepts_lexicon.lexicons() == first == ({"pneumonia": "J18"}, {"aspirin": "DRUG:DB00945"})
        assert built == ["conditions"]  # the second process-level load read the file
        # another package version is another file: the old tables are not read for it
        real_version = concepts_lexicon.metadata.version
        monkeypatch.setattr(concepts_lexicon.metadata, "version", lambda p: real_version(p) + ".post1")
        assert concepts_lexicon.lexicon_path() != path
        # an unwritable cache still gives the tables, with a warning naming the variable to set
        monkeypatch.setenv("ADMITDX_CACHE_DIR", str(path))  # a file, so no folder can be made in it
        concepts_lexicon.lexicons.cache_clear()
        assert concepts_lexicon.lexicons() == first and built == ["conditions", "conditions"]
        assert "ADMITDX_CACHE_DIR" in caplog.text
    finally:
        concepts_lexicon.lexicons.cache_clear()
