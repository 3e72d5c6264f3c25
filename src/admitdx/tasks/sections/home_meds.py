"""Home medications (§3.2 iv): distinct ``ed.medrecon`` names reconciled at or before the cutoff,
at most ``home_meds_max`` (12, the authors'); the count of all names is shown when the list is cut.

Which 12, and in what order, the paper does not say. ``home_meds_order`` "alphabetical" (default)
sorts the names, so the cap keeps the same names however the reconciliation was entered;
"source" keeps them in the order ``ed.medrecon`` first lists them, as the authors' builder does
(``name.dropna().unique()[:12]``) — a medication reconciled early can then push a later one past
the cap. The charttime filter (§3.2) stays unless ``home_meds_cutoff`` is False (the authors apply
none); ``home_meds_more`` False leaves out the count of names past the cap, as they do, and
``field_format`` "pandas" keeps a name as medrecon spells it, untrimmed, and reads it as their
pandas does: a name it takes for missing ("None", "NA", …, ``pandas_print.PANDAS_NA``) is dropped, a
blank one (spaces) is a name.
"""

from __future__ import annotations

from typing import Any

from admitdx.sources.mimic import MimicSource
from admitdx.tasks.sections.base import Section, require
from admitdx.tasks.sections.options import SectionOptions
from admitdx.tasks.sections.pandas_print import NA_SQL
from admitdx.tasks.sections.source_order import SOURCE_ROW, numbered


def _sql(p: SectionOptions, src: MimicSource) -> str | None:
    if not require(src, "ed.medrecon"):
        return None
    source = p.home_meds_order == "source"
    table = numbered("ed.medrecon") if source else "ed.medrecon"
    first = f"min(m.{SOURCE_ROW})" if source else "NULL"
    # field_format "pandas" keeps a name as medrecon spells it ("*iron liquid " with its space)
    pandas = p.field_format == "pandas"
    name = "m.name" if pandas else "trim(m.name)"
    named = f"m.name NOT IN ('', {NA_SQL})" if pandas else "nullif(trim(m.name), '') IS NOT NULL"
    cutoff = (
        "coalesce(CAST(m.charttime AS TIMESTAMP), c.ed_intime) <= c.cutoff" if p.home_meds_cutoff else "TRUE"
    )
    return f"""
        WITH names AS (
            SELECT c.stay_id, {name} AS name, {first} AS first_row
            FROM cohort c JOIN {table} m ON m.stay_id = c.stay_id
            WHERE {cutoff} AND {named}
            GROUP BY c.stay_id, {name}
        )
        SELECT stay_id,
               struct_pack(n := count(*),
                           names := list_slice(list(name ORDER BY {"first_row" if source else "name"}),
                                               1, {int(p.home_meds_max)})) AS v
        FROM names GROUP BY stay_id
    """


def _render(v: dict[str, Any] | None, p: SectionOptions) -> str | None:
    if not v or not v["names"]:
        return None
    more = f" (+{v['n'] - len(v['names'])} more)" if v["n"] > len(v["names"]) and p.home_meds_more else ""
    return "; ".join(v["names"]) + more


SECTION = Section("home_meds", "Home meds", _sql, _render)
