"""Subgroup labels from instance metadata and per-group scores."""

from __future__ import annotations

import pytest

from admitdx.metrics.ratios import Ratio, column_matrix
from admitdx.metrics.subgroups import age_band, race_group, subgroup_labels, subgroup_scores


@pytest.mark.parametrize(
    ("age", "band"),
    [(17, "<18"), (18, "18–44"), (44, "18–44"), (45, "45–64"), (79, "65–79"), (80, "80+"), (None, "unknown")],
)
def test_age_bands(age, band) -> None:  # type: ignore[no-untyped-def]
    assert age_band(age) == band


def test_labels_from_mimic_values() -> None:
    labels = subgroup_labels(
        {
            "age": 71,
            "gender": "F",
            "race": "BLACK/CAPE VERDEAN",
            "language": "?",
            "acuity": 2.0,
            "arrival_transport": "AMBULANCE",
            "insurance": "Medicare",
        }
    )
    assert labels == {
        "age": "65–79",
        "sex": "F",
        "race": "Black",
        "language": "unknown",
        "acuity": "ESI 2",
        "arrival": "AMBULANCE",
        "insurance": "Medicare",
    }
    assert (
        race_group("HISPANIC OR LATINO") == "Hispanic"
        and race_group("PATIENT DECLINED TO ANSWER") == "unknown"
    )
    assert subgroup_labels({"language": "Spanish"})["language"] == "non-English"


def test_scores_per_group_and_small_groups_withheld() -> None:
    ratio = Ratio("f1", {"tp": 2.0}, {"n_pred": 1.0, "n_ref": 1.0})
    rows = [
        {"scored": 1, "tp": 1, "n_pred": 1, "n_ref": 1},
        {"scored": 1, "tp": 0, "n_pred": 2, "n_ref": 1},
        {"scored": 1, "tp": 1, "n_pred": 3, "n_ref": 1},
        {"tp": 0},
    ]
    labels = [{"sex": "F"}, {"sex": "F"}, {"sex": "M"}, {"sex": "M"}]
    names, matrix = column_matrix(rows, ["scored", "tp", "n_pred", "n_ref"])
    out = subgroup_scores(names, matrix, labels, ratio, count_column="scored", min_group_size=2)
    assert out["sex"]["F"] == {"n": 2, "value": pytest.approx(2 * 1 / (3 + 2))}
    assert out["sex"]["M"] == {"n": 1, "value": None}  # the unscored row does not count
