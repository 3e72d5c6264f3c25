"""The transparent rule-based auditor: each rule on hand-made records, then agreement with _truth."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from admitdx.auditing import RuleAuditor, agreement, audit_dataset
from admitdx.auditing.agreement import cohen_kappa
from admitdx.auditing.rules import concept_for, parse_labs
from admitdx.contracts import INSTANCES_FILE, Instance, Reference, load_instances
from admitdx.jsonl import read_jsonl, write_jsonl

LABS = (
    "(3 results, 2 abnormal) Creatinine 3.4 mg/dL [0.5-1.2]*; Sodium 128 mEq/L [135-145]*; Glucose 94 mg/dL"
)


def _inst(stay: int, refs: list[Reference], history: str | None = None, **sections: str) -> Instance:
    return Instance(f"e{stay}", stay, "earlydx", "train", dict(sections), " ".join(sections.values()), refs,
                    history=history, stay_id=stay)  # fmt: skip


def _verdict(ref: Reference, history: str | None = None, **sections: str) -> tuple[str | None, str]:
    v = RuleAuditor().audit(_inst(1, [ref], history, **sections), ref)
    return v.evidence_class, v.quote


def test_parse_labs_reads_value_range_and_flag() -> None:
    creat, sodium, glucose = parse_labs(LABS)
    assert (creat.name, creat.value, creat.low, creat.high, creat.direction()) == (
        "creatinine",
        3.4,
        0.5,
        1.2,
        "high",
    )
    assert sodium.direction() == "low"
    assert glucose.direction() is None and glucose.high is None  # unflagged: not evidence


def test_concept_lookup_takes_the_longest_prefix() -> None:
    assert concept_for("4010").name == "malignant hypertension / hypertensive urgency"
    assert concept_for("4019").name == "hypertension"
    assert concept_for("N17.9").name == "acute kidney injury"
    assert concept_for("Z99") is None and concept_for(None) is None


def test_flagged_lab_in_the_right_direction_supports() -> None:
    aki = Reference("Acute kidney failure, unspecified", code="N179")
    assert _verdict(aki, labs=LABS) == ("supported", "Creatinine 3.4 mg/dL [0.5-1.2]*")
    hypernatremia = Reference("Hypernatremia", code="E870")  # sodium is low, not high
    assert _verdict(hypernatremia, labs=LABS)[0] == "unsupported"


def test_negated_imaging_is_not_a_finding_but_history_is_indirect() -> None:
    fracture = Reference("FX LUMBAR VERTEBRA-CLOSE", code="8054")
    radiology = "[CT L-SPINE W/O CONTRAST] F: No acute fracture or dislocation. I: No acute fracture."
    assert _verdict(fracture, radiology=radiology) == ("unsupported", "")
    assert _verdict(fracture, radiology=radiology, chief_complaint="s/p Fall") == ("partial", "s/p Fall")
    positive = "[HIP 2 VIEWS] F: Displaced subcapital fracture of the right femoral neck."
    assert _verdict(fracture, radiology=positive)[0] == "supported"


def test_ecg_vitals_and_medications() -> None:
    af = Reference("Unspecified atrial fibrillation", code="I4891")
    assert _verdict(af, ecg="Atrial fibrillation with rapid ventricular response | HR142") == (
        "supported", "Atrial fibrillation with rapid ventricular response",
    )  # fmt: skip
    assert _verdict(af, home_meds="apixaban; metoprolol") == ("partial", "apixaban")
    urgency = Reference("Hypertensive urgency", code="I160")
    assert _verdict(urgency, triage="T98.1 HR80 RR16 SpO2 98 BP221/112 acuity 2") == (
        "supported",
        "SBP 221 (>= 180)",
    )
    assert _verdict(urgency, triage="T98.1 HR80 RR16 SpO2 98 BP150/90 acuity 2")[0] == "unsupported"


def test_pericardial_effusion_none_is_not_a_pleural_effusion() -> None:
    effusion = Reference("Pleural effusion, not elsewhere classified", code="J90")
    assert _verdict(effusion, echo="LVEF 60 %; Pericardial effusion None")[0] == "unsupported"


def test_labels_outside_the_table_use_their_title_words() -> None:
    label = Reference("Spontaneous bacterial peritonitis", code="K652")
    radiology = "[CT ABD] F: Ascites. I: Findings concerning for bacterial peritonitis, spontaneous."
    assert _verdict(label, radiology=radiology)[0] == "supported"
    assert _verdict(label, history="Prior dx: spontaneous bacterial peritonitis")[0] == "partial"
    assert _verdict(label, chief_complaint="abdominal pain")[0] == "unsupported"


def _write_truth(root: Path, rows: list[tuple[int, str, str]]) -> None:
    (root / "_truth").mkdir(parents=True)
    with gzip.open(root / "_truth" / "encounters.jsonl.gz", "wt") as f:
        for stay, code, cls in rows:
            f.write(
                json.dumps({"stay_id": stay, "conditions": [{"icd_code": code, "evidence_class": cls}]})
                + "\n"
            )


def test_agreement_confusion_and_kappa_by_hand(tmp_path: Path) -> None:
    truth = [(1, "A", "supported"), (2, "B", "supported"), (3, "C", "partial"), (4, "D", "unsupported")]
    _write_truth(tmp_path, truth)
    audited = [
        _inst(1, [Reference("a", code="A", evidence_class="supported")]),
        _inst(2, [Reference("b", code="B", evidence_class="partial")]),
        _inst(3, [Reference("c", code="C", evidence_class="partial")]),
        _inst(4, [Reference("d", code="D", evidence_class="unsupported"), Reference("x", code="X")]),
        _inst(5, [Reference("e", code="E", evidence_class=None)]),
    ]
    result = agreement(audited, tmp_path)
    assert result["compared"] == 4 and result["accuracy"] == 0.75
    assert result["confusion"]["supported"] == {"supported": 1, "partial": 1, "unsupported": 0}
    assert result["skipped"] == {"no truth record": 2}
    # kappa: p_o = 3/4; p_e = (2*1 + 1*2 + 1*1)/16 = 5/16; (0.75 - 0.3125) / (1 - 0.3125) = 0.636…
    assert result["cohen_kappa"] == pytest.approx((0.75 - 5 / 16) / (1 - 5 / 16))
    assert cohen_kappa({c: dict.fromkeys(("supported", "partial", "unsupported"), 0) for c in
                        ("supported", "partial", "unsupported")}) is None  # fmt: skip


def test_audit_dataset_writes_a_version_and_resumes(tmp_path: Path) -> None:
    refs = [
        Reference("Acute kidney failure, unspecified", code="N179"),
        Reference("Hyperlipidemia", code="E785"),
    ]
    rows = [_inst(i, refs, labs=LABS, home_meds="atorvastatin") for i in range(1, 6)]
    source = tmp_path / "ds"
    write_jsonl(source / INSTANCES_FILE, (r.to_dict() for r in rows))
    (source / "split.csv").write_text("subject_id,split\n1,train\n")
    out = tmp_path / "audited"
    first = audit_dataset(source, out, RuleAuditor())
    assert first["evidence_class"] == {"supported": 5, "partial": 5, "unsupported": 0}
    audited = load_instances(out)
    assert [[r.evidence_class for r in i.references] for i in audited] == [["supported", "partial"]] * 5
    assert audited[0].references[1].evidence_quote == "atorvastatin"
    assert (out / "split.csv").read_text() == "subject_id,split\n1,train\n"
    # a killed audit leaves a partial last line: the rerun repairs it and audits only what is missing
    lines = (out / "audit.jsonl").read_text().splitlines(keepends=True)
    (out / "audit.jsonl").write_text("".join(lines[:4]) + lines[4][:20])
    again = audit_dataset(source, out, RuleAuditor())
    assert again == first
    records = list(read_jsonl(out / "audit.jsonl"))
    assert sorted((r["instance_id"], r["ref_index"]) for r in records) == [
        (f"e{i}", j) for i in range(1, 6) for j in (0, 1)
    ]


def test_rules_agree_with_synthetic_truth(
    synthetic_dataset: Path, synthetic_root: Path, tmp_path: Path
) -> None:
    """Measured, not tuned, on the shared 300-patient root; the floor is well above chance (κ = 0)."""
    outputs = audit_dataset(synthetic_dataset, tmp_path / "audited", RuleAuditor(), truth_root=synthetic_root)
    result = json.loads((tmp_path / "audited" / "agreement.json").read_text())
    assert result["compared"] == outputs["references"] > 100
    assert result["skipped"] == {}
    assert result["accuracy"] > 0.6 and result["cohen_kappa"] > 0.45
