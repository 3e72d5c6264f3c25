"""``admitdx data check``'s last lines: per task, whether this root can build it, or which tables
it lacks (issue 23: the check listed tables but never said what a user could do with them).

The tables are the ones each builder requires before it reads anything (its ``Needs``), so the
verdict and the build's own refusal cannot disagree. A table with an error counts as missing.
"""

from __future__ import annotations

from admitdx.sources.check import ERROR, CheckReport
from admitdx.sources.verify import missing_hint
from admitdx.tasks.clinibench.build import REQUIRED as CLINIBENCH
from admitdx.tasks.earlydx.build import NEEDS as EARLYDX
from admitdx.tasks.erreason.mimic_tasks import ACUITY, DIAGNOSIS, DISPOSITION, ONE_LINER

#: Task (as `admitdx build` names it) → the tables its build cannot do without.
REQUIREMENTS: dict[str, tuple[str, ...]] = {
    "earlydx": tuple(EARLYDX.requires),
    "clinibench": CLINIBENCH,
    **{v.task: tuple(v.needs.requires) for v in (ACUITY, DISPOSITION, DIAGNOSIS, ONE_LINER)},
}


def usable_tables(report: CheckReport) -> set[str]:
    """``module.table`` of every table found with rows and without an error."""
    return {
        t.qualified
        for m in report.modules
        for t in m.tables
        if t.status == "found" and t.rows and not any(p.severity == ERROR for p in t.problems)
    }


def verdicts(report: CheckReport) -> list[tuple[str, list[str]]]:
    """(task, the required tables this root lacks) per task; an empty list means buildable."""
    usable = usable_tables(report)
    return [(task, [t for t in tables if t not in usable]) for task, tables in REQUIREMENTS.items()]


def verdict_lines(report: CheckReport) -> list[str]:
    """One line per task: ``buildable``, or what is missing and where it comes from."""
    lines = []
    for task, missing in verdicts(report):
        if missing:
            lines.append(f"{task}: not buildable, lacks {', '.join(missing)} — {missing_hint(missing)}")
        else:
            lines.append(f"{task}: buildable")
    return lines
