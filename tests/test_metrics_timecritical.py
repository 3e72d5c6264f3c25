"""Time-critical operating points, per-condition F1 and the condition code sets, by hand."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from admitdx.contracts import PredictionItem, Reference
from admitdx.metrics.ratios import point_estimates
from admitdx.metrics.timecritical import (
    condition_columns,
    condition_ratios,
    per_condition_columns,
    per_condition_delta,
    per_condition_f1,
)
from admitdx.ontology.codesets import ABLATION_CONDITIONS, TIME_CRITICAL

COND = {c.name: c for c in ABLATION_CONDITIONS}


def items(*texts: str) -> list[PredictionItem]:
    return [PredictionItem(text=t) for t in texts]


def ref(code: str, text: str = "label", cls: str = "supported") -> Reference:
    system = "ICD-10-CM" if code[0].isalpha() else "ICD-9-CM"
    return Reference(text=text, code=code, code_system=system, evidence_class=cls)


ENCOUNTERS = [
    # MI recorded and named (paired); sepsis named but not recorded: one hit, one false alarm
    (items("Sepsis", "Acute myocardial infarction"), [ref("I214")], [(1, 0)]),
    # sepsis recorded, nothing predicted: a miss
    (items(), [ref("A419")], []),
    # history and "aseptic" do not name an acute condition
    (items("history of MI", "aseptic meningitis"), [ref("J189")], []),
]


def test_operating_point_by_hand() -> None:
    rows = [condition_columns(i, r, p) for i, r, p in ENCOUNTERS]
    s = point_estimates(condition_ratios(), rows)
    assert (s["tc.recall"], s["tc.precision"]) == pytest.approx((0.5, 0.5))
    assert (s["tc.myocardial infarction.recall"], s["tc.myocardial infarction.precision"]) == (1.0, 1.0)
    assert (s["tc.sepsis.recall"], s["tc.sepsis.precision"]) == (0.0, 0.0)
    assert s["tc.stroke.recall"] is None  # never recorded
    assert s["tc.alert_rate"] == pytest.approx(1 / 3) and s["tc.recorded_rate"] == pytest.approx(2 / 3)


def test_a_paired_synonym_counts_as_flagged() -> None:
    cols = condition_columns(items("troponin-positive ACS"), [ref("I214")], [(0, 0)])
    assert cols["tc.myocardial infarction.tp"] == 1.0
    unpaired = condition_columns(items("troponin-positive ACS"), [ref("I214")], [])
    assert unpaired["tc.myocardial infarction.tp"] == 0.0


def test_supported_only_track_ignores_partial_labels() -> None:
    cols = condition_columns(items("PE"), [ref("I269", cls="partial")], [(0, 0)], track="supported")
    assert cols["tc.pulmonary embolism.recorded"] == 0.0 and cols["tc.pulmonary embolism.flagged"] == 1.0


@pytest.mark.parametrize(
    ("code", "condition", "expected"),
    [
        ("I21.4", "myocardial infarction", True),
        ("41071", "myocardial infarction", True),
        ("I252", "myocardial infarction", False),  # old MI
        ("R6521", "sepsis", True),
        ("99591", "sepsis", True),
        ("I609", "intracranial haemorrhage", True),
        ("S065X0A", "intracranial haemorrhage", True),
        ("I2699", "pulmonary embolism", True),
        ("41519", "pulmonary embolism", True),
        ("I63511", "stroke", True),
        ("43491", "stroke", True),
        ("43490", "stroke", False),  # occlusion without infarction
        ("G459", "stroke", False),  # TIA
        ("K922", "gastrointestinal bleeding", True),
        ("K254", "gastrointestinal bleeding", True),
        ("K253", "gastrointestinal bleeding", False),  # ulcer without haemorrhage
        ("53140", "gastrointestinal bleeding", True),
        ("I4891", "atrial fibrillation", True),
        ("S72001A", "fracture", True),
    ],
)
def test_code_sets(code: str, condition: str, expected: bool) -> None:
    assert COND[condition].matches_code(code) is expected


@pytest.mark.parametrize(
    ("text", "condition", "expected"),
    [
        ("NSTEMI", "myocardial infarction", True),
        ("Urosepsis", "sepsis", True),
        ("Subdural hematoma", "intracranial haemorrhage", True),
        ("Hemorrhagic stroke", "stroke", False),
        ("Hemorrhagic stroke", "intracranial haemorrhage", True),
        ("Acute ischemic stroke", "stroke", True),
        ("Upper GI bleed", "gastrointestinal bleeding", True),
        ("Melena", "gastrointestinal bleeding", True),
        ("Pulmonary embolism", "pulmonary embolism", True),
        ("Old myocardial infarction", "myocardial infarction", False),
    ],
)
def test_text_patterns(text: str, condition: str, expected: bool) -> None:
    assert COND[condition].matches_text(text) is expected


def test_per_condition_f1_and_change_between_runs() -> None:
    full = [
        per_condition_columns(
            items("Pneumonia", "Atrial fibrillation"), [ref("J189"), ref("I4891")], [(0, 0), (1, 1)]
        )
    ]
    ablated = [per_condition_columns(items("Pneumonia"), [ref("J189"), ref("I4891")], [(0, 0)])]
    ratios = condition_ratios(ABLATION_CONDITIONS, "cond")
    before = per_condition_f1(point_estimates(ratios, full))
    after = per_condition_f1(point_estimates(ratios, ablated))
    assert before["pneumonia"] == 1.0 and before["atrial fibrillation"] == 1.0
    assert after["atrial fibrillation"] == 0.0
    delta = per_condition_delta(before, after)
    assert delta["atrial fibrillation"] == -1.0 and delta["pneumonia"] == 0.0 and delta["sepsis"] is None
    assert len(TIME_CRITICAL) == 6


TEXTS = ["Sepsis", "NSTEMI", "Pulmonary embolism", "Stroke", "Melena", "Gout", "Subdural hematoma", "Asthma"]
CODES = ["A419", "I214", "I269", "I639", "K922", "M109", "I620", "J459"]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(st.integers(0, 7), max_size=3), st.lists(st.integers(0, 7), max_size=3)),
        min_size=1,
        max_size=5,
    ),
    st.integers(0, 7),
    st.data(),
)
def test_a_false_alarm_never_raises_precision(encs, extra, data) -> None:  # type: ignore[no-untyped-def]
    def rows(extra_at: int | None) -> list[dict]:
        out = []
        for e, (pred_idx, ref_idx) in enumerate(encs):
            texts = [TEXTS[i] for i in pred_idx]
            refs = [ref(CODES[i]) for i in ref_idx]
            recorded = {i for i in ref_idx}
            if e == extra_at and extra not in recorded:
                texts.append(TEXTS[extra])
            out.append(condition_columns(items(*texts), refs, []))
        return out

    at = data.draw(st.integers(0, len(encs) - 1))
    before, after = (point_estimates(condition_ratios(), rows(x)) for x in (None, at))
    for name in ("tc.recall", "tc.precision", "tc.f1"):
        for v in (before[name], after[name]):
            assert v is None or 0.0 <= v <= 1.0
    if before["tc.precision"] is not None and after["tc.precision"] is not None:
        assert after["tc.precision"] <= before["tc.precision"] + 1e-12
    assert after["tc.recall"] == before["tc.recall"]
