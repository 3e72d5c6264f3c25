"""The EarlyDx label filter (§3.3): which ED diagnosis titles are genuine diagnoses.

Removed are
  1. administrative and symptom codes by chapter: ICD-10-CM chapters R (symptoms, signs,
     abnormal findings) and V–Z (external causes, factors influencing health status); ICD-9-CM
     E and V codes and 780–799 (symptoms, signs, ill-defined conditions);
  2. *over-generic* titles: a whole organ system or "disease" left unspecified.

"Over-generic" is not "contains NOS or NEC": ICD-9's abbreviated titles use NOS for plenty of
genuine diagnoses ("SEPTICEMIA NOS", "GASTROINTEST HEMORR NOS", "ANEMIA NOS"), and ICD-10 writes
"Chronic kidney disease, unspecified" for a real, specific condition. A title is over-generic only
when what is left unspecified is the *disease itself*: its head is a generic noun (disease,
disorder, condition) qualified by nothing but anatomy ("Liver disease, unspecified", "Disorder of
kidney and ureter, unspecified", "INTESTINAL DISORDER NOS", "OTHER CONDITIONS OF BRAIN"), or it
says so outright ("Ill-defined conditions", "other and unspecified disorders of …"). An ill-defined
*site* of a specific lesion ("Malignant neoplasm of ill-defined sites …", "… ill-defined
fractures of lower limb") and ICD-9 436 "Acute, but ill-defined, cerebrovascular disease" (the
code behind the ED title "CVA") are genuine diagnoses and stay. ED labels are judged on the ED
title, as the paper and the authors' builder do, so the label set is the same whichever spelling
``--label-text`` scores; prior-history codes are judged on the dictionary long title they show.

The authors' public builder also drops any title containing one of 24 symptom words ("pain",
"effusion", "fever", …). The paper does not describe that rule and it removes genuine diagnoses
outside chapter R (pleural and pericardial effusion), so it is not applied here.

:data:`OVER_GENERIC_PATTERNS` is the one place the patterns live. The filter runs in Python, once
per *distinct* (code, version, title) — a few thousand even on full MIMIC-IV — and the verdicts go
back to DuckDB as a table (:func:`register_label_verdicts`), so no diagnosis table is ever loaded
into Python.
"""

from __future__ import annotations

import re

import duckdb
import pyarrow as pa

from admitdx.ontology import icd

REMOVED_CHAPTER = "symptom or administrative chapter"
REMOVED_GENERIC = "over-generic title"

# Words (and MIMIC's ICD-9 abbreviations of them) that name only a body part or organ system.
_ANATOMY = (
    r"heart|cardiac|cardiovasc\w*|circulatory|circ|vascular|vasc|blood|lymph\w*|liver|hepatic|"
    r"biliary|gallbladder|pancrea\w*|kidney|renal|ureter\w*|urinary|urin|genitourinary|gu|bladder|"
    r"lung|pulmonary|respiratory|resp|digestive|gastrointest\w*|gi|intestin\w*|intest|bowel|stomach|"
    r"duoden\w*|esophag\w*|oesophag\w*|colon|rectum|anus|brain|cerebral|nervous|nerve|neuro\w*|"
    r"central|peripheral|periph|spinal|cord|skin|subcutaneous|soft|tissue|connective|bone|joint|"
    r"musculoskeletal|musculoskel|muscle|back|spine|eye|ear|nose|throat|thyroid|endocrine|breast|"
    r"spleen|immune|female|male|genital|organs?|systems?|tracts?|site"
)
_ANAT_RUN = rf"(?:(?:{_ANATOMY})(?:[ ,/&-]+(?:and |the |of )?)?)+"
_HEAD = r"(?:diseases?|disorders?|dis|conditions?|illness)"
_PREFIX = r"(?:other and unspecified |other specified |oth specified |unspecified |other |oth )"
_SUFFIX = r"(?:,? ?(?:unspecified|unsp|nos|nec|nec/nos|not elsewhere classified))"

#: The over-generic title patterns, matched against the lower-cased, space-normalised title.
OVER_GENERIC_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        # "Disease of digestive system, unspecified", "Other disorders of nervous system",
        # "OTHER CONDITIONS OF BRAIN", "Unspecified disorder of kidney and ureter"
        rf"^{_PREFIX}?{_HEAD} of (?:the )?{_ANAT_RUN}{_SUFFIX}?$",
        # "Liver disease, unspecified", "INTESTINAL DISORDER NOS", "CIRCULATORY DISEASE NOS"
        rf"^{_ANAT_RUN}{_HEAD}{_SUFFIX}$",
        # "Other specified soft tissue disorders", "Unspecified circulatory system disorder"
        rf"^{_PREFIX}{_ANAT_RUN}{_HEAD}{_SUFFIX}?$",
        # a bare "Disease NOS", "Unspecified illness"
        rf"^{_PREFIX}?{_HEAD}{_SUFFIX}?$",
        # said outright: "Ill-defined conditions", "Other ill-defined heart diseases"
        rf"(?:^|other |and )ill[- ]defined (?:[\w-]+ )?{_HEAD}",
        rf"\bother and unspecified {_HEAD} of\b",
    )
)


def _normalise(title: str) -> str:
    return re.sub(r"\s+", " ", title.strip().lower())


def is_over_generic(title: str | None) -> bool:
    """True when the title names no specific disease (see the module docstring)."""
    if not title:
        return False
    t = _normalise(title)
    return any(p.search(t) for p in OVER_GENERIC_PATTERNS)


def label_verdict(code: str, version: int, title: str | None) -> str | None:
    """None to keep the label, else the reason it is removed."""
    if icd.in_symptom_or_administrative_chapter(code, version):
        return REMOVED_CHAPTER
    if is_over_generic(title):
        return REMOVED_GENERIC
    return None


def register_label_verdicts(con: duckdb.DuckDBPyConnection, distinct_sql: str, table: str) -> int:
    """Judge the distinct (icd_code, icd_version, title) rows of ``distinct_sql`` and store them
    with their verdict (NULL = keep) as temp table ``table``; return how many rows were judged."""
    rows = con.execute(distinct_sql).fetchall()
    verdicts = pa.table(
        {
            "icd_code": [r[0] for r in rows],
            "icd_version": [int(r[1]) for r in rows],
            "title": [r[2] for r in rows],
            "verdict": [label_verdict(r[0], int(r[1]), r[2]) for r in rows],
        },
        schema=pa.schema(
            [
                ("icd_code", pa.string()),
                ("icd_version", pa.int64()),
                ("title", pa.string()),
                ("verdict", pa.string()),
            ]
        ),
    )
    con.register(f"{table}_arrow", verdicts)
    con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT * FROM {table}_arrow")
    con.unregister(f"{table}_arrow")
    return len(rows)
