"""The EarlyDx label filter (§3.3) and explicit/implicit tagging (§5.2)."""

from __future__ import annotations

import pytest

from admitdx.ontology import icd
from admitdx.tasks.earlydx.labels import (
    REMOVED_CHAPTER,
    REMOVED_GENERIC,
    is_over_generic,
    label_verdict,
)
from admitdx.tasks.explicit import InputIndex, tokens


@pytest.mark.parametrize(
    ("code", "version", "title"),
    [
        ("0389", 9, "SEPTICEMIA NOS"),
        ("5789", 9, "GASTROINTEST HEMORR NOS"),
        ("2859", 9, "ANEMIA NOS"),
        ("2724", 9, "HYPERLIPIDEMIA NEC/NOS"),
        ("N189", 10, "Chronic kidney disease, unspecified"),
        ("F419", 10, "Anxiety disorder, unspecified"),
        ("431", 9, "INTRACEREBRAL HEMORRHAGE"),
        ("436", 9, "Acute, but ill-defined, cerebrovascular disease"),
        ("C269", 10, "Malignant neoplasm of ill-defined sites within the digestive system"),
        ("I214", 10, "Non-ST elevation (NSTEMI) myocardial infarction"),
        ("S2232XA", 10, "Fracture of one rib, left side, init for clos fx"),
    ],
)
def test_genuine_diagnoses_are_kept(code: str, version: int, title: str) -> None:
    assert label_verdict(code, version, title) is None


@pytest.mark.parametrize(
    ("code", "version", "title"),
    [
        ("R079", 10, "Chest pain, unspecified"),
        ("V4352XA", 10, "Car driver injured in collision w car in traf, init"),
        ("W1830XA", 10, "Fall on same level, unspecified, initial encounter"),
        ("X991XXA", 10, "Assault by knife, initial encounter"),
        ("Y9289", 10, "Oth places as the place of occurrence of the external cause"),
        ("Z7901", 10, "Long term (current) use of anticoagulants"),
        ("E8889", 9, "UNSPECIFIED FALL"),
        ("V5861", 9, "LONG TERM USE ANTIGOAGULANT"),
        ("78060", 9, "FEVER, UNSPECIFIED"),
        ("7991", 9, "RESPIRATORY FAILURE"),
        ("780", 9, "ALTERATION OF CONSCIOUSNESS"),
    ],
)
def test_symptom_and_administrative_chapters_are_removed(code: str, version: int, title: str) -> None:
    assert label_verdict(code, version, title) == REMOVED_CHAPTER


@pytest.mark.parametrize(
    "title",
    [
        "Liver disease, unspecified",
        "Disease of digestive system, unspecified",
        "Disorder of kidney and ureter, unspecified",
        "Unspecified disorder of circulatory system",
        "Other disorders of nervous system",
        "OTHER CONDITIONS OF BRAIN",
        "INTESTINAL DISORDER NOS",
        "CIRCULATORY DISEASE NOS",
        "Heart disease, unspecified",
        "Ill-defined conditions",
        "Other ill-defined heart diseases",
        "Other and unspecified disorders of back",
        "Other specified soft tissue disorders",
        "Disease NOS",
    ],
)
def test_over_generic_titles_are_removed(title: str) -> None:
    assert is_over_generic(title)
    assert label_verdict("K929", 10, title) == REMOVED_GENERIC


def test_chapter_boundaries() -> None:
    assert (
        not icd.in_symptom_or_administrative_chapter("7799", 9)
        and icd.in_symptom_or_administrative_chapter("7800", 9)
        and icd.in_symptom_or_administrative_chapter("79999", 9)
    )
    assert not icd.in_symptom_or_administrative_chapter("8000", 9)
    assert not icd.in_symptom_or_administrative_chapter(
        "Q249", 10
    ) and not icd.in_symptom_or_administrative_chapter("U071", 10)
    assert icd.in_symptom_or_administrative_chapter("R55", 10) and icd.in_symptom_or_administrative_chapter(
        "Z992", 10
    )


def test_tokenizer_splits_on_punctuation_and_lowercases() -> None:
    assert tokens("PNEUMONIA,ORGANISM UNSPECIFIED; T5-T6") == [
        "pneumonia",
        "organism",
        "unspecified",
        "t5",
        "t6",
    ]


def test_explicit_by_full_title_or_every_content_word() -> None:
    index = InputIndex(
        "Chief complaint: SAH\nRadiology: CT consistent with subarachnoid hemorrhage. Pneumonia."
    )
    assert index.is_explicit("SUBARACHNOID HEMORRHAGE")  # full title
    assert index.is_explicit("Pneumonia, unspecified organism") is False  # "organism" is content, absent
    assert index.is_explicit("Nontraumatic subarachnoid hemorrhage, unspecified") is False  # "nontraumatic"
    assert InputIndex("pneumonia was seen").is_explicit("PNEUMONIA NOS")  # NOS is boilerplate
    assert not InputIndex("asepsis technique").is_explicit("Sepsis")  # whole words only
    assert InputIndex("sepsis due to E. coli; urinary tract infection").is_explicit(
        "Urinary tract infection, site not specified"
    )
