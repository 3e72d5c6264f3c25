"""Concept recall for ER-Reason's planning rationales: the offline extractor (ICD-10-CM phrases,
admitdx's term table, drug lexicon, NegEx) on hand-written text with hand-derived concepts, its
precision and recall on the emergency-medicine phrase fixtures (``tests/data/concept_phrases*.tsv``,
issue 19), and its wiring into the text suite through `admitdx score` (the results name the
extractor and count the references without a concept)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from tests.planning_data import score, write_planning_run
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.errors import UsageError
from admitdx.metrics.concepts import concept_recall, get_extractor, offline_available
from admitdx.metrics.concepts_eval import read_phrases, score_phrases

FIXTURES = Path(__file__).parent / "data"

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


def test_whole_titles_abbreviations_tests_and_procedures() -> None:
    """Issue 19's findings: comma-cut titles made common words conditions, first code won, and
    no test, imaging study, procedure or abbreviation was a concept."""
    x = get_extractor("offline")
    assert x.concepts("blood on the sheets") == set()  # not F40 "Blood, injection, injury type phobia"
    assert x.concepts("laceration") == {"FINDING:LACERATION"}  # not O03 spontaneous abortion
    assert x.concepts("injury") == {"ICD10:T14"}  # T14.90 "Injury, unspecified", not O9A
    assert x.concepts("tetanus booster") == {"PROC:TETANUS_IMMUNIZATION"}  # not A35 tetanus
    assert x.concepts("syncope") == {"ICD10:R55"}  # figure 3's case; R55 "Syncope and collapse"
    assert x.concepts("appendicitis") == {"ICD10:K37"}  # "Unspecified appendicitis", not K36 "Other"
    assert x.concepts("subarachnoid hemorrhage") == {"ICD10:I60"}  # I60.9 "Nontraumatic ..."
    found = x.concepts("NSTEMI vs PE vs DVT; troponin, ECG, CT head, LP, chest x-ray, d-dimer")
    assert found == {
        "ICD10:I21", "ICD10:I26", "ICD10:I82", "LAB:TROPONIN", "PROC:ECG", "IMAGING:CT",
        "PROC:LUMBAR_PUNCTURE", "IMAGING:CHEST_RADIOGRAPH", "LAB:D_DIMER",
    }  # fmt: skip
    # a rule-out differential names what is considered; a finished work-up still negates
    assert x.concepts("Rule out ACS, PE") == {"ICD10:I24", "ICD10:I26"}
    assert x.concepts("r/o aortic dissection") == {"ICD10:I71"}
    assert x.concepts("PE was ruled out") == set()


def test_precision_and_recall_on_the_phrase_fixtures() -> None:
    """Micro P/R over the fixtures (bench/bench_concepts.py prints them by kind). The term table was
    tuned on the first; the held-out one was measured once, untuned: P 0.872, R 0.745."""
    x = get_extractor("offline")
    tuned = read_phrases(FIXTURES / "concept_phrases.tsv")
    held_out = read_phrases(FIXTURES / "concept_phrases_heldout.tsv")
    assert len(tuned) >= 100 and len(held_out) >= 40
    scores = score_phrases(x, tuned)
    assert scores.precision() >= 0.95 and scores.recall() >= 0.95
    assert scores.recall("LAB") == 1.0 and scores.recall("PROC") == 1.0
    scores = score_phrases(x, held_out)
    assert scores.precision() >= 0.85 and scores.recall() >= 0.7


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
    assert "not comparable with ER-Reason's table 4" in (out / "table.md").read_text()
    assert "rule_out.concept_recall" in results["headline_metrics"]
    metrics = results["systems"][0]["metrics"]
    assert metrics["rule_out.concept_recall"]["value"] == pytest.approx((1 / 3 + 2 / 3) / 2)
    assert metrics["treatment_plan.concept_recall"]["value"] == pytest.approx((1 / 2 + 1) / 2)
    assert results["systems"][0]["counts"]["no_concept_rule_out"] == 0
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
