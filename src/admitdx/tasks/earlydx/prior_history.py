"""Prior history (§3.2 x), kept apart from the acute evidence (appendix N).

Drawn only from admissions whose admittime precedes t0 (the paper) and ED stays that began before
this one, never from the current admission or stay. Three parts, as in the authors' builder:

  * prior diagnoses — dictionary long titles of codes billed in those admissions, through the same
    label filter as the references, de-duplicated, at most ``prior_dx_max`` (8);
  * past ED diagnoses — the ED diagnosis titles of earlier ED stays, filtered alike, at most
    ``prior_ed_dx_max`` (8);
  * the "Past Medical History" section of the latest earlier discharge note that has one, at most
    ``prior_note_chars`` (400) characters.

Which 8, the paper does not say. ``prior_dx_order`` "recent_first" (default) lists the latest
admission's (or ED stay's) diagnoses first, by seq_num: under a cap of 8 they are the ones a
clinician reads first. "source" lists them as the authors' builder does: prior billed diagnoses in
the order ``hosp.diagnoses_icd`` lists its rows (their loop walks the patient's rows as the file
gives them; the admissions they sort by time only select which rows count), and past ED diagnoses
oldest stay first, each stay's rows in ``ed.diagnosis`` order. The MIMIC files are ordered by
neither time nor seq_num, so "source" is not "oldest first": on the real demo it keeps the same 8
prior diagnoses as "recent_first" in few encounters (tests/test_earlydx_authors_choices.py).
Earlier ED stays that began at the same time are ordered by stay_id, or under ``tie_order`` "pandas"
(with "source") as the authors' ``sort_values("intime")`` leaves the patient's ``ed.edstays`` rows in
file order (:mod:`~admitdx.tasks.sections.pandas_order`); ``field_format`` "pandas" prints their
titles as the file spells them, untrimmed.
"""

from __future__ import annotations

import re
from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.discharge_note import HeaderSet, NoteSplitter
from admitdx.tasks.sections.base import Section, require
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.sections.pandas_order import pandas_order
from admitdx.tasks.sections.source_order import SOURCE_ROW, numbered

PRIOR_ADMISSIONS = """
    SELECT c.stay_id, a.hadm_id, CAST(a.admittime AS TIMESTAMP) AS admittime
    FROM cohort c JOIN hosp.admissions a ON a.subject_id = c.subject_id
    WHERE CAST(a.admittime AS TIMESTAMP) < c.t0 AND a.hadm_id <> c.hadm_id
"""


def _key(p: SectionOptions, title: str) -> str:
    """What counts as one diagnosis: the title ignoring case, or exactly (``dedupe`` "exact", the
    authors' ``dict.fromkeys``, which keeps "Sepsis" and "SEPSIS" both)."""
    return title if p.dedupe == "exact" else f"lower({title})"


def _prior_dx_sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "hosp.diagnoses_icd", "hosp.d_icd_diagnoses"):
        return None
    source = p.prior_dx_order == "source"
    table = numbered("hosp.diagnoses_icd") if source else "hosp.diagnoses_icd"
    first = f"dx.{SOURCE_ROW}" if source else "pa.admittime DESC, pa.hadm_id DESC, dx.seq_num"
    order = SOURCE_ROW if source else "admittime DESC, hadm_id DESC, seq_num, title"
    row = f", dx.{SOURCE_ROW}" if source else ""
    return f"""
        WITH r AS (
            SELECT pa.stay_id, v.title, pa.admittime, pa.hadm_id, dx.seq_num{row}
            FROM ({PRIOR_ADMISSIONS}) pa
            JOIN {table} dx ON dx.hadm_id = pa.hadm_id
            JOIN dict_verdicts v ON v.icd_code = trim(dx.icd_code) AND v.icd_version = dx.icd_version
            WHERE v.verdict IS NULL AND v.title IS NOT NULL
            QUALIFY row_number() OVER (PARTITION BY pa.stay_id, {_key(p, "v.title")} ORDER BY {first}) = 1
        )
        SELECT stay_id, list_slice(list(title ORDER BY {order}), 1, {int(p.prior_dx_max)}) AS v
        FROM r GROUP BY stay_id
    """


def _prior_ed_dx_sql(p: SectionOptions, src: MimicSource) -> str | None:
    source = p.prior_dx_order == "source"
    if source and p.tie_order == "pandas":
        return _prior_ed_stays_sql(p)
    table = numbered("ed.diagnosis") if source else "ed.diagnosis"
    first = f"s.intime, s.stay_id, d.{SOURCE_ROW}" if source else "s.intime DESC, s.stay_id DESC, d.seq_num"
    order = f"intime, prior, {SOURCE_ROW}" if source else "intime DESC, prior DESC, seq_num, title"
    row = f", d.{SOURCE_ROW}" if source else ""
    return f"""
        WITH r AS (
            SELECT c.stay_id, {_ed_title(p)} AS title, CAST(s.intime AS TIMESTAMP) AS intime,
                   s.stay_id AS prior, d.seq_num{row}
            FROM cohort c
            JOIN ed.edstays s ON s.subject_id = c.subject_id
            JOIN {table} d ON d.stay_id = s.stay_id
            JOIN ed_verdicts v ON v.icd_code = trim(d.icd_code) AND v.icd_version = d.icd_version
                              AND v.title = trim(d.icd_title)
            WHERE CAST(s.intime AS TIMESTAMP) < c.ed_intime AND CAST(s.intime AS TIMESTAMP) < c.t0
              AND s.stay_id <> c.stay_id AND v.verdict IS NULL
            QUALIFY row_number() OVER (PARTITION BY c.stay_id, {_key(p, _ed_title(p))}
                                       ORDER BY {first}) = 1
        )
        SELECT stay_id, list_slice(list(title ORDER BY {order}), 1, {int(p.prior_ed_dx_max)}) AS v
        FROM r GROUP BY stay_id
    """


def _ed_title(p: SectionOptions) -> str:
    """An ED title as shown: trimmed, or as the file spells it (``field_format`` "pandas")."""
    return "d.icd_title" if p.field_format == "pandas" else "trim(d.icd_title)"


def _prior_ed_stays_sql(p: SectionOptions) -> str:
    """The earlier ED stays in ``ed.edstays`` order, each with its kept titles in ``ed.diagnosis``
    order, for :func:`_ed_titles` to order as the authors' pandas sort does."""
    return f"""
        WITH s AS (
            SELECT c.stay_id, s.stay_id AS prior, CAST(s.intime AS TIMESTAMP) AS intime, s.{SOURCE_ROW}
            FROM cohort c JOIN {numbered("ed.edstays")} s ON s.subject_id = c.subject_id
            WHERE CAST(s.intime AS TIMESTAMP) < c.ed_intime AND CAST(s.intime AS TIMESTAMP) < c.t0
              AND s.stay_id <> c.stay_id
        ), t AS (
            SELECT d.stay_id, list({_ed_title(p)} ORDER BY d.{SOURCE_ROW}) AS titles
            FROM {numbered("ed.diagnosis")} d
            JOIN ed_verdicts v ON v.icd_code = trim(d.icd_code) AND v.icd_version = d.icd_version
                              AND v.title = trim(d.icd_title)
            WHERE v.verdict IS NULL AND d.stay_id IN (SELECT prior FROM s)
            GROUP BY d.stay_id
        )
        SELECT s.stay_id, list(struct_pack(t := s.intime, titles := coalesce(t.titles, []))
                               ORDER BY s.{SOURCE_ROW}) AS v
        FROM s LEFT JOIN t ON t.stay_id = s.prior
        GROUP BY s.stay_id
    """


def _ed_titles(v: list[Any] | None, p: SectionOptions) -> str | None:
    """Past ED diagnoses; from :func:`_prior_ed_stays_sql`, the stays ordered as pandas sorts them
    by intime, their titles de-duplicated (first kept) and cut at ``prior_ed_dx_max``."""
    if v and isinstance(v[0], dict):
        titles: dict[str, str] = {}
        for i in pandas_order([s["t"] for s in v]):
            for t in v[i]["titles"]:
                titles.setdefault(t if p.dedupe == "exact" else t.lower(), t)
        v = list(titles.values())[: p.prior_ed_dx_max]
    return _titles(v, p)


def _prior_note_sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "note.discharge"):
        return None
    return f"""
        SELECT pa.stay_id, CAST(n.text AS VARCHAR) AS v
        FROM ({PRIOR_ADMISSIONS}) pa JOIN note.discharge n ON n.hadm_id = pa.hadm_id
        WHERE regexp_matches(n.text, '(?i)past medical history:')
        QUALIFY row_number() OVER (PARTITION BY pa.stay_id
                                   ORDER BY pa.admittime DESC, n.charttime DESC, n.note_id DESC) = 1
    """


#: EarlyDx's reader, as the authors wrote it: the "past medical history:" header anywhere (spelled
#: exactly, any case), ended by one of these headers at a line start or by a blank line followed by
#: any capitalised "Words:" line. It is stricter about spelling and looser about where a section
#: ends than CliniBench's van Aken splitter; both run on :class:`~admitdx.tasks.discharge_note.NoteSplitter`.
_EARLYDX_ENDS = HeaderSet(
    {
        name: (name,)
        for name in (
            "social history",
            "family history",
            "physical exam",
            "past surgical history",
            "medications on admission",
            "allergies",
            "brief hospital course",
        )
    },
    flexible=False,
)
_SPLITTER = NoteSplitter(_EARLYDX_ENDS, extra_end=r"\n\s*\n\s*[A-Z][A-Za-z /&()-]{2,40}:")


def extract_past_medical_history(note: str, max_chars: int) -> str | None:
    """The body of a discharge note's "Past Medical History:" section, whitespace collapsed."""
    body = _SPLITTER.section(note, "past medical history", anywhere=True)
    if body is None:
        return None
    body = re.sub(r"\s+", " ", body).strip()
    return body[:max_chars] or None


def _titles(v: list[str] | None, p: SectionOptions) -> str | None:
    return "; ".join(v) if v else None


PRIOR_DX = Section("prior_dx", "Past medical history (prior dx)", _prior_dx_sql, _titles)
PRIOR_ED_DX = Section("prior_ed_dx", "Past ED diagnoses", _prior_ed_dx_sql, _ed_titles)
PRIOR_NOTE = Section(
    "prior_note",
    "Past medical history (from prior discharge note)",
    _prior_note_sql,
    lambda v, p: extract_past_medical_history(v, p.prior_note_chars) if v else None,
)
PARTS = (PRIOR_DX, PRIOR_ED_DX, PRIOR_NOTE)
