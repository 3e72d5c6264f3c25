"""The scenario and comorbidity libraries: breadth, real codes, and texts that do what they claim."""

from __future__ import annotations

from admitdx.ontology import icd
from admitdx.ontology.codesets import TIME_CRITICAL
from admitdx.synthetic.comorbidities import COMORBIDITIES, HOME_MEDS
from admitdx.synthetic.condition import ed_title
from admitdx.synthetic.generate import library_codes
from admitdx.synthetic.naming import names
from admitdx.synthetic.notes import EXAMS
from admitdx.synthetic.scenarios import SCENARIOS
from admitdx.synthetic.scenarios.base import CONFIRMING
from admitdx.synthetic.vocab import LABS


def test_at_least_forty_presentations_covering_the_time_critical_six() -> None:
    assert len(SCENARIOS) >= 40
    assert len({s.key for s in SCENARIOS}) == len(SCENARIOS)
    covered = set()
    for s in SCENARIOS:
        for dx in (s.primary, *s.secondary):
            for cond in TIME_CRITICAL:
                if cond.matches_code(dx.icd10, "ICD-10-CM") and cond.matches_code(dx.icd9, "ICD-9-CM"):
                    covered.add(cond.name)
    assert covered == set(TIME_CRITICAL.names), covered
    keys = {s.key for s in SCENARIOS}
    for needed in (
        "hip_fracture",
        "pneumonia",
        "aki",
        "afib_rvr",
        "chf_exacerbation",
        "copd_exacerbation",
        "dka",
        "uti",
        "cellulitis",
        "pancreatitis",
    ):
        assert needed in keys


def test_every_code_is_billable_in_the_real_dictionaries() -> None:
    codes = library_codes()
    assert len(codes) > 150
    for code, version in codes:
        assert icd.is_billable(code, version), (code, version)
        assert ed_title(code, version)


def test_scenarios_are_internally_consistent() -> None:
    for s in SCENARIOS:
        assert s.cc and all(c.strip() for c in s.cc), s.key
        assert 0.0 < sum(s.esi) <= 1.0 + 1e-9, s.key
        assert not s.exam or s.exam in EXAMS, s.key
        assert all(key in LABS or key.startswith("ua_") for key in s.labs), s.key
        for dx in (s.primary, *s.secondary):
            assert dx.confirm in CONFIRMING, (s.key, dx.key)
            if dx.confirm == "radiology":
                assert dx.exam in EXAMS and dx.named and dx.implied, (s.key, dx.key)
            if dx.confirm == "labs":
                assert dx.labs, (s.key, dx.key)
            for key, lo, hi in dx.labs:
                assert key in LABS and lo < hi
                ref = LABS[key].ref
                assert ref is None or not (ref[0] <= lo and hi <= ref[1]), (dx.key, key)  # abnormal by design


def test_named_texts_name_and_implied_texts_do_not() -> None:
    """A report's 'named' wording names the ICD-10 title; the 'implied' wording never does."""
    for s in SCENARIOS:
        for dx in (s.primary, *s.secondary):
            if dx.confirm in ("radiology", "ecg") and dx.implied:
                title = ed_title(dx.icd10, 10)
                assert names(dx.named, title), (dx.key, dx.named, title)
                assert not names(dx.implied, title), (dx.key, dx.implied, title)


def test_comorbidities_have_real_medications_and_codes() -> None:
    for c in COMORBIDITIES:
        assert c.meds and all(m in HOME_MEDS for m in c.meds), c.key
        assert icd.is_billable(c.icd10, 10) and icd.is_billable(c.icd9, 9), c.key
