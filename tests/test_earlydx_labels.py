"""The EarlyDx label filter (§3.3) and explicit/implicit tagging (§5.2)."""

from __future__ import annotations

import pytest

from admitdx.ontology import icd
from admitdx.tasks.earlydx.labels import (
    CHAPTER_RULES,
    LABEL_FILTERS,
    REMOVED_GENERIC,
    REMOVED_MARKED_GENERIC,
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
    assert label_verdict(code, version, title, "paper") is None
    assert label_verdict(code, version, title, "strict") is None


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
    for mode in LABEL_FILTERS:
        assert label_verdict(code, version, title, mode) in CHAPTER_RULES.values()


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
    assert label_verdict("K929", 10, title, "strict") == REMOVED_GENERIC


def test_each_chapter_rule_is_named_for_the_manifest() -> None:
    assert label_verdict("R55", 10, "Syncope and collapse") == CHAPTER_RULES["R"]
    assert label_verdict("W19XXXA", 10, "Unspecified fall, initial encounter") == CHAPTER_RULES["VWXY"]
    assert label_verdict("Z7901", 10, "Long term (current) use of anticoagulants") == CHAPTER_RULES["Z"]
    assert label_verdict("E8889", 9, "UNSPECIFIED FALL") == CHAPTER_RULES["E"]
    assert label_verdict("V5861", 9, "LONG TERM USE ANTIGOAGULANT") == CHAPTER_RULES["V"]
    assert label_verdict("7802", 9, "SYNCOPE AND COLLAPSE") == CHAPTER_RULES["780-799"]


# (title, ICD version, verdict per mode: True = removed) — the titles that separate the modes.
SEPARATING = [
    # the paper drops a generic title only when it is marked NOS/NEC (ICD-10: unspecified / other specified)
    ("OTHER CONDITIONS OF BRAIN", 9, {"paper": False, "authors": False, "strict": True}),
    ("Other disorders of nervous system", 10, {"paper": False, "authors": False, "strict": True}),
    ("Ill-defined conditions", 10, {"paper": False, "authors": True, "strict": True}),
    ("Other specified soft tissue disorders", 10, {"paper": True, "authors": False, "strict": True}),
    ("Disorder of kidney and ureter, unspecified", 10, {"paper": True, "authors": False, "strict": True}),
    ("Other specified respiratory disorders", 10, {"paper": True, "authors": False, "strict": True}),
    ("INTESTINAL DISORDER NOS", 9, {"paper": True, "authors": True, "strict": True}),
    # the authors' inconsistency: ICD-9 CKD NOS dropped, ICD-10 CKD unspecified kept
    ("CHRONIC KIDNEY DIS NOS", 9, {"paper": False, "authors": True, "strict": False}),
    ("Chronic kidney disease, unspecified", 10, {"paper": False, "authors": False, "strict": False}),
    # "ill-defined" anywhere: the authors drop a stroke and a cancer
    ("Acute, but ill-defined, cerebrovascular disease", 9,
     {"paper": False, "authors": True, "strict": False}),
    ("Malignant neoplasm of ill-defined sites within the digestive system", 10,
     {"paper": False, "authors": True, "strict": False}),
    ("Unspecified disease of pericardium", 9, {"paper": True, "authors": True, "strict": False}),
    # a named disease whose words are all anatomy: kept by the paper reading only
    ("Peripheral vascular disease, unspecified", 10, {"paper": False, "authors": False, "strict": True}),
    ("Disease of digestive system, unspecified", 10, {"paper": True, "authors": True, "strict": True}),
]  # fmt: skip


@pytest.mark.parametrize(("title", "version", "removed"), SEPARATING)
def test_the_three_label_filters_on_the_titles_that_separate_them(
    title: str, version: int, removed: dict[str, bool]
) -> None:
    code = "K929" if version == 10 else "5699"
    observed = {mode: label_verdict(code, version, title, mode) is not None for mode in LABEL_FILTERS}
    assert observed == removed
    if removed["paper"]:
        assert label_verdict(code, version, title, "paper") == REMOVED_MARKED_GENERIC
    if removed["authors"]:
        assert label_verdict(code, version, title, "authors").startswith("authors: ")


def test_an_unknown_label_filter_is_refused() -> None:
    with pytest.raises(ValueError, match="paper, authors, strict"):
        label_verdict("K929", 10, "Liver disease, unspecified", "loose")  # type: ignore[arg-type]


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
