"""Laboratory results (§3.2 vi) — and the lab-scope trap.

Which results count (``lab_scope``):
  * "ed-stay" (default): the patient's results drawn from ED arrival up to the cutoff, whatever
    their ``hadm_id``. This is the paper's own rule ("records charted at or before t0 + W").
  * "admission": only results whose ``hadm_id`` is the admission's, charted up to the cutoff — the
    authors' public builder. Results drawn in the ED before admission carry *no* hadm_id in
    MIMIC-IV, so this scope misses the ED work-up almost entirely: on the real demo 165 of the 172
    cohort stays have results between ED arrival and t0, 148 of them include results with an empty
    hadm_id (129 have no in-window result linked to any admission), while only 36 have results
    linked to the admission. That is why the paper reports lab coverage of only 16 %.

Under storetime semantics (appendix D) the upper bound applies to ``storetime`` (when the result
became readable); the lower bound stays on ``charttime`` (drawn during this visit). The rows come
from the single labevents pass of :mod:`.lab_rows`.

Rendering (the authors' builder, plus units): one result per test — the first drawn in the
window that has a value — abnormal results (MIMIC ``flag``) first, each ``label value unit`` with
``*`` when abnormal and the reference range shown for abnormal results (where it matters for
reading them); cut at ``lab_char_budget`` characters at a result boundary, never mid-result, the
header giving how many were shown. Units and ranges make each result longer than the authors'
``label value*``, so the default 700-character budget shows fewer results than theirs (~20 vs ~45).
``lab_format`` "authors" prints their line instead (:mod:`.authors_labs`).
"""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.authors_labs import authors_render, authors_sql
from admitdx.tasks.sections.base import Section, num, require
from admitdx.tasks.sections.lab_rows import SCOPE_COLUMN
from admitdx.tasks.sections.lab_rows import TABLE as LAB_ROWS
from admitdx.tasks.sections.options import SectionOptions


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "hosp.labevents"):
        return None
    label = (
        "coalesce(d.label, CAST(f.itemid AS VARCHAR))"
        if src.has("hosp.d_labitems")
        else "CAST(f.itemid AS VARCHAR)"
    )
    join_items = "LEFT JOIN hosp.d_labitems d ON d.itemid = f.itemid" if src.has("hosp.d_labitems") else ""
    if p.lab_format == "authors":
        return authors_sql(p, src, label, join_items)
    return f"""
        WITH w AS (
            SELECT * FROM {LAB_ROWS} WHERE {SCOPE_COLUMN[p.lab_scope]}
            QUALIFY row_number() OVER (PARTITION BY stay_id, itemid ORDER BY charttime, labevent_id) = 1
        )
        SELECT f.stay_id,
               list(struct_pack(label := {label}, value, valuenum, unit, lo, hi, abnormal)
                    ORDER BY NOT f.abnormal, f.charttime, {label}, f.labevent_id) AS v
        FROM w f {join_items}
        GROUP BY f.stay_id
    """


def format_result(r: dict[str, Any]) -> str:
    value = r["value"]
    if value is None or "___" in value:
        value = num(r["valuenum"]) if r["valuenum"] is not None else "?"
    unit = f" {r['unit']}" if r["unit"] else ""
    text = f"{r['label']} {value}{unit}"
    if r["abnormal"]:
        if r["lo"] is not None or r["hi"] is not None:
            lo = num(r["lo"]) if r["lo"] is not None else ""
            hi = num(r["hi"]) if r["hi"] is not None else ""
            text += f" [{lo}-{hi}]"
        text += "*"
    return text


def _render(v: Any, p: SectionOptions) -> str | None:
    if p.lab_format == "authors":
        return authors_render(v, p)
    if not v:
        return None
    shown: list[str] = []
    used = 0
    for r in v:
        item = format_result(r)
        cost = len(item) + (2 if shown else 0)
        if used + cost > p.lab_char_budget:
            break
        shown.append(item)
        used += cost
    n_abnormal = sum(1 for r in v if r["abnormal"])
    head = f"{len(v)} results, {n_abnormal} abnormal"
    if len(shown) < len(v):
        head += f", first {len(shown)} shown"
    return f"({head}) " + "; ".join(shown)


SECTION = Section("labs", "Initial labs", _sql, _render)
