"""Reference labels of an encounter (§3.3): its ED diagnoses, filtered and de-duplicated.

The ED ``diagnosis`` rows of the stay, ordered by ``seq_num`` (rows sharing one by ICD code, or
under ``tie_order`` "pandas" as the EarlyDx authors' ``sort_values("seq_num")`` leaves the stay's
rows in file order: pandas' unstable quicksort, :mod:`~admitdx.tasks.sections.pandas_order`);
removed when the label filter (:mod:`.labels`) says so; de-duplicated case-insensitively on the
scored text, first occurrence kept. Each reference carries both spellings (ED title, dictionary long
title), its code and code system, seq_num and whether it is explicit in the input (:mod:`.explicit`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from admitdx.contracts import Reference
from admitdx.sources.mimic import MimicSource
from admitdx.tasks.earlydx.labels import LabelFilter, register_label_verdicts
from admitdx.tasks.earlydx.params import EarlyDxParams
from admitdx.tasks.explicit import InputIndex
from admitdx.tasks.sections.pandas_order import pandas_order
from admitdx.tasks.sections.source_order import SOURCE_ROW, numbered

CODE_SYSTEMS = {9: "ICD-9-CM", 10: "ICD-10-CM"}


def register_verdicts(src: MimicSource, mode: LabelFilter) -> dict[str, int]:
    """Judge every distinct title the build can meet (ED titles of the cohort's subjects, and the
    dictionary titles of their billed codes) under label filter ``mode`` and store the verdicts as
    ``ed_verdicts`` and ``dict_verdicts``. Returns how many distinct titles were judged."""
    counts = {
        "ed_titles_judged": register_label_verdicts(
            src.con,
            """SELECT DISTINCT trim(icd_code), CAST(icd_version AS BIGINT), trim(icd_title)
               FROM ed.diagnosis WHERE subject_id IN (SELECT subject_id FROM cohort)""",
            "ed_verdicts",
            mode,
        )
    }
    if src.has("hosp.diagnoses_icd") and src.has("hosp.d_icd_diagnoses"):
        counts["dictionary_titles_judged"] = register_label_verdicts(
            src.con,
            """SELECT DISTINCT trim(dx.icd_code), CAST(dx.icd_version AS BIGINT), dd.long_title
               FROM hosp.diagnoses_icd dx
               JOIN hosp.d_icd_diagnoses dd ON dd.icd_code = trim(dx.icd_code)
                                           AND CAST(dd.icd_version AS BIGINT) = CAST(dx.icd_version AS BIGINT)
               WHERE dx.subject_id IN (SELECT subject_id FROM cohort)""",
            "dict_verdicts",
            mode,
        )
    return counts


def labels_sql(src: MimicSource, tie_order: str = "admitdx") -> str:
    """One row per cohort stay with its ED diagnoses (all of them, with their filter verdict); under
    ``tie_order`` "pandas" in file order, for :func:`build_references` to sort as pandas does."""
    has_dict = src.has("hosp.d_icd_diagnoses")
    dictionary = "dd.long_title" if has_dict else "CAST(NULL AS VARCHAR)"
    join_dict = (
        """LEFT JOIN hosp.d_icd_diagnoses dd
             ON dd.icd_code = trim(d.icd_code)
            AND CAST(dd.icd_version AS BIGINT) = CAST(d.icd_version AS BIGINT)"""
        if has_dict
        else ""
    )
    pandas = tie_order == "pandas"
    order = f"d.{SOURCE_ROW}" if pandas else "TRY_CAST(d.seq_num AS INTEGER), trim(d.icd_code)"
    table = numbered("ed.diagnosis") if pandas else "ed.diagnosis"
    return f"""
        SELECT c.stay_id,
               list(struct_pack(seq_num := TRY_CAST(d.seq_num AS INTEGER), code := trim(d.icd_code),
                                version := CAST(d.icd_version AS INTEGER), ed_title := trim(d.icd_title),
                                dictionary_title := {dictionary}, verdict := v.verdict)
                    ORDER BY {order}) AS v
        FROM cohort c
        JOIN {table} d ON d.stay_id = c.stay_id
        {join_dict}
        JOIN ed_verdicts v ON v.icd_code = trim(d.icd_code) AND v.icd_version = CAST(d.icd_version AS BIGINT)
                          AND v.title IS NOT DISTINCT FROM trim(d.icd_title)
        GROUP BY c.stay_id
    """


def build_references(
    rows: list[dict[str, Any]] | None, index: InputIndex, p: EarlyDxParams, tally: Counter[str]
) -> list[Reference]:
    """Filter, de-duplicate and tag one stay's ED diagnoses; count every decision in ``tally``."""
    refs: list[Reference] = []
    seen: set[str] = set()
    rows = rows or []
    if p.tie_order == "pandas":
        rows = [rows[i] for i in pandas_order([r["seq_num"] for r in rows])]
    for r in rows:
        tally["labels_raw"] += 1
        if r["verdict"] is not None:
            tally[f"labels_removed: {r['verdict']}"] += 1
            continue
        text = r["ed_title"]
        if p.label_text == "dictionary":
            if r["dictionary_title"]:
                text = r["dictionary_title"]
            else:
                tally["labels_without_dictionary_title"] += 1
        if not text:
            tally["labels_removed: empty title"] += 1
            continue
        if text.lower() in seen:
            tally["labels_removed: duplicate"] += 1
            continue
        seen.add(text.lower())
        explicit = index.is_explicit(text)
        tally["labels_explicit" if explicit else "labels_implicit"] += 1
        refs.append(
            Reference(
                text=text,
                code=r["code"],
                code_system=CODE_SYSTEMS.get(r["version"]),
                seq_num=r["seq_num"],
                ed_title=r["ed_title"],
                dictionary_title=r["dictionary_title"],
                explicit=explicit,
            )
        )
    tally["labels_kept"] += len(refs)
    return refs
