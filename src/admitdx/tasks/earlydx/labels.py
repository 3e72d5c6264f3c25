"""The EarlyDx label filter (§3.3): which ED diagnosis titles are genuine diagnoses.

Every mode removes administrative and symptom codes by chapter: ICD-10-CM chapters R (symptoms,
signs, abnormal findings) and V–Z (external causes, factors influencing health status); ICD-9-CM E
and V codes and 780–799 (symptoms, signs, ill-defined conditions). They differ on which titles are
"over-generic" (``--label-filter``):

``paper`` (default) — the sentence of §3.3 taken literally: "over-generic Not Otherwise Specified
  (NOS) / Not Elsewhere Classified (NEC) entries". A title is removed when it is *marked* — NOS,
  NEC, or, in ICD-10's wording, which has no NOS/NEC, "unspecified" / "other specified" — *and*
  over-generic: its head is a generic noun (disease, disorder, condition) qualified by nothing but
  anatomy. So "INTESTINAL DISORDER NOS", "Disorder of kidney and ureter, unspecified" and "Other
  specified respiratory disorders" go; "CHRONIC KIDNEY DIS NOS" and "Chronic kidney disease,
  unspecified" both stay (the disease is named, only its stage is not); "OTHER CONDITIONS OF
  BRAIN" stays (generic, but not marked NOS/NEC).
``authors`` — the public builder's seven title patterns (``keep_label`` in their ``earlydx.py``),
  reproduced in behaviour, including their inconsistency: "\bdis(ease)?s?,? nos" drops the ICD-9
  "CHRONIC KIDNEY DIS NOS" while nothing drops the ICD-10 "Chronic kidney disease, unspecified";
  "ill-defined" drops ICD-9 436 "Acute, but ill-defined, cerebrovascular disease" (a stroke).
``strict`` — the broader rule of earlier admitdx releases: every over-generic title, marked or
  not ("OTHER CONDITIONS OF BRAIN", "Other disorders of nervous system", "Ill-defined conditions").

"Over-generic" is not "contains NOS or NEC": ICD-9's abbreviated titles use NOS for plenty of
genuine diagnoses ("SEPTICEMIA NOS", "GASTROINTEST HEMORR NOS", "ANEMIA NOS"), and ICD-10 writes
"Chronic kidney disease, unspecified" for a real, specific condition. A title is over-generic only
when what is left unspecified is the *disease itself*: its head is a generic noun qualified by
nothing but anatomy ("Liver disease, unspecified", "INTESTINAL DISORDER NOS", "OTHER CONDITIONS OF
BRAIN"), or it says so outright ("Ill-defined conditions", "other and unspecified disorders of …").
An ill-defined *site* of a specific lesion ("Malignant neoplasm of ill-defined sites …") and ICD-9
436 (the code behind the ED title "CVA") are genuine diagnoses and stay in ``paper`` and ``strict``.
ED labels are judged on the ED title, as the paper and the authors' builder do, so the label set is
the same whichever spelling ``--label-text`` scores; prior-history codes are judged on the
dictionary long title they show, under the same mode (as the authors' builder does).

An older commit of the authors' builder also dropped any title containing one of 24 symptom words
("pain", "effusion", …); their current code no longer does, and no mode here does.

Each removal is named by its rule (:data:`CHAPTER_RULES`, :data:`GENERIC_RULES`, the authors'
pattern names) and the manifest counts labels removed per rule. The filter runs in Python, once per
*distinct* (code, version, title) — a few thousand even on full MIMIC-IV — and the verdicts go back
to DuckDB as a table (:func:`register_label_verdicts`), so no diagnosis table is ever loaded into
Python.
"""

from __future__ import annotations

import re
from typing import Literal

import duckdb
import pyarrow as pa

from admitdx.ontology import icd

LabelFilter = Literal["paper", "authors", "strict"]
LABEL_FILTERS: tuple[str, ...] = ("paper", "authors", "strict")

#: The chapter rules, named as the manifest counts them (every mode applies them).
CHAPTER_RULES = {
    "R": "chapter: ICD-10 R (symptoms, signs)",
    "VWXY": "chapter: ICD-10 V-Y (external causes)",
    "Z": "chapter: ICD-10 Z (health-status factors)",
    "E": "chapter: ICD-9 E (external causes)",
    "V": "chapter: ICD-9 V (health-status factors)",
    "780-799": "chapter: ICD-9 780-799 (symptoms, ill-defined)",
}
REMOVED_GENERIC = "over-generic title"
REMOVED_MARKED_GENERIC = "over-generic NOS/NEC title"
GENERIC_RULES = {"paper": REMOVED_MARKED_GENERIC, "strict": REMOVED_GENERIC}

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
_HEAD = r"(?:diseases?|disorders?|dis|conditions?|illness)"
_PREFIX = r"(?:other and unspecified |other specified |oth specified |unspecified |other |oth )"
_SUFFIX = r"(?:,? ?(?:unspecified|unsp|nos|nec|nec/nos|not elsewhere classified))"
#: Organs the ``strict`` list (frozen so that its builds stay byte-identical) lacks; ``paper`` adds them.
_MORE_ANATOMY = (
    r"pericardi\w*|pleura\w*|peritone\w*|pituitary|neurohypophysis|adrenal|prostate|uterus|ovar\w*"
)


def _patterns(anatomy: str) -> tuple[re.Pattern[str], ...]:
    """The over-generic title patterns over an anatomy vocabulary, matched against the
    lower-cased, space-normalised title."""
    run = rf"(?:(?:{anatomy})(?:[ ,/&-]+(?:and |the |of )?)?)+"
    return tuple(
        re.compile(p)
        for p in (
            # "Disease of digestive system, unspecified", "Other disorders of nervous system",
            # "OTHER CONDITIONS OF BRAIN", "Unspecified disorder of kidney and ureter"
            rf"^{_PREFIX}?{_HEAD} of (?:the )?{run}{_SUFFIX}?$",
            # "Liver disease, unspecified", "INTESTINAL DISORDER NOS", "CIRCULATORY DISEASE NOS"
            rf"^{run}{_HEAD}{_SUFFIX}$",
            # "Other specified soft tissue disorders", "Unspecified circulatory system disorder"
            rf"^{_PREFIX}{run}{_HEAD}{_SUFFIX}?$",
            # a bare "Disease NOS", "Unspecified illness"
            rf"^{_PREFIX}?{_HEAD}{_SUFFIX}?$",
            # said outright: "Ill-defined conditions", "Other ill-defined heart diseases"
            rf"(?:^|other |and )ill[- ]defined (?:[\w-]+ )?{_HEAD}",
            rf"\bother and unspecified {_HEAD} of\b",
        )
    )


#: The over-generic title patterns of ``strict``.
OVER_GENERIC_PATTERNS: tuple[re.Pattern[str], ...] = _patterns(_ANATOMY)
_PAPER_PATTERNS = _patterns(f"{_ANATOMY}|{_MORE_ANATOMY}")
#: Diseases whose every word is anatomy yet which name one condition ("peripheral vascular
#: disease" is arterial disease of the limbs); ``paper`` keeps them.
_NAMED = re.compile(r"^peripheral vascular disease\b")

#: §3.3's markers: ICD-9's NOS / NEC and their ICD-10 wordings ("unspecified", "other specified").
_MARKED = re.compile(
    r"\b(?:nos|nec|unspecified|unsp|not elsewhere classified|not otherwise specified|"
    r"other specified|oth specified|oth spec)\b"
)

#: The authors' public builder's over-generic rule, in behaviour: a title (lower-cased, as they
#: match it) is dropped when any of these seven searches finds it. Named for the manifest.
AUTHORS_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (f"authors: {name}", re.compile(rx))
    for name, rx in (
        ("circulatory disease", r"\bcirculatory disease"),
        (
            "disease of … tract/system/organ, unspecified",
            r"disease of (?:the )?[\w ]+?(?:tract|system|organ)s?,? unspecified",
        ),
        ("unspecified disease", r"\bunspecified disease\b"),
        ("ill-defined", r"ill[- ]defined"),
        ("other and unspecified disorders of", r"other and unspecified disorders? of"),
        ("disorder of … system/tract, unspecified", r"disorder of [\w ]+?(?:system|tract), unspecified"),
        ("condition/disease/disorder NOS/NEC", r"\b(?:condition|dis|disorder|disease)s?,? (?:nec|nos)\b"),
    )
)


def _normalise(title: str) -> str:
    return re.sub(r"\s+", " ", title.strip().lower())


def is_over_generic(title: str | None, mode: LabelFilter = "strict") -> bool:
    """True when the title names no specific disease (see the module docstring), by the anatomy
    vocabulary of ``mode`` ("strict", or "paper" with a few more organs and named diseases)."""
    if not title:
        return False
    t = _normalise(title)
    if mode == "paper":
        return not _NAMED.search(t) and any(p.search(t) for p in _PAPER_PATTERNS)
    return any(p.search(t) for p in OVER_GENERIC_PATTERNS)


def is_marked(title: str | None) -> bool:
    """True when the title says NOS / NEC, or "unspecified" / "other specified" (ICD-10's wording)."""
    return bool(title) and bool(_MARKED.search(_normalise(title or "")))


def chapter_rule(code: str, version: int) -> str | None:
    """The name of the chapter rule that removes ``code`` (MIMIC's form, no dot), or None."""
    if not icd.in_symptom_or_administrative_chapter(code, version):
        return None
    c = code.strip().upper()
    if int(version) == 10:
        return CHAPTER_RULES[c[0] if c[0] in "RZ" else "VWXY"]
    return CHAPTER_RULES[c[0] if c[0] in "EV" else "780-799"]


def generic_rule(title: str | None, mode: LabelFilter) -> str | None:
    """The over-generic rule of ``mode`` that removes ``title``, or None."""
    if not title:
        return None
    if mode == "authors":
        lowered = title.lower()
        return next((name for name, p in AUTHORS_PATTERNS if p.search(lowered)), None)
    if mode == "strict":
        return REMOVED_GENERIC if is_over_generic(title) else None
    return REMOVED_MARKED_GENERIC if is_marked(title) and is_over_generic(title, "paper") else None


def label_verdict(code: str, version: int, title: str | None, mode: LabelFilter = "paper") -> str | None:
    """None to keep the label, else the name of the rule that removes it."""
    if mode not in LABEL_FILTERS:
        raise ValueError(f"label filter must be one of {', '.join(LABEL_FILTERS)}, got {mode!r}")
    return chapter_rule(code, version) or generic_rule(title, mode)


def register_label_verdicts(
    con: duckdb.DuckDBPyConnection, distinct_sql: str, table: str, mode: LabelFilter = "paper"
) -> int:
    """Judge the distinct (icd_code, icd_version, title) rows of ``distinct_sql`` under ``mode``
    and store them with their verdict (NULL = keep) as temp table ``table``; return how many rows
    were judged."""
    rows = con.execute(distinct_sql).fetchall()
    verdicts = pa.table(
        {
            "icd_code": [r[0] for r in rows],
            "icd_version": [int(r[1]) for r in rows],
            "title": [r[2] for r in rows],
            "verdict": [label_verdict(r[0], int(r[1]), r[2], mode) for r in rows],
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
