"""The five ER-Reason tasks on the release, with the paper's inputs and targets.

1. acuity: chief complaint, age, sex, race and the vitals parsed from the current ED note's triage
   line → ``acuitylevel`` (ESI 1..5 by name).
2. one-liner: age, sex, chief complaint and the most recent discharge summary →
   ``One_Sentence_Extracted``. The current provider note, from which the reference was extracted,
   is never shown.
3. planning: age, sex, chief complaint, all previous notes and the ED presentation (the current note
   cut before "Assessment and Plan") → ``{rule_out, decision_factors, treatment_plan}``; only
   encounters with all three physician rationales.
4. diagnosis: age, sex, chief complaint, previous notes and the ED presentation → the encounter's
   ICD-10 rows of ``icd_10_codes.csv`` (the first is the main one; answered "CODE NAME").
5. disposition: age, sex, chief complaint and the note cut before "Final Disposition and ED Course",
   disposition names redacted → ``eddisposition``.

``primaryeddiagnosisname`` (the ED diagnosis itself) is never input.
"""

from __future__ import annotations

from typing import Any

from admitdx.sources.erreason import ACUITY_LEVELS, DISPOSITIONS, PREVIOUS_NOTE_TYPES
from admitdx.tasks.erreason.release_build import Codes, ReleaseParams, ReleaseTask
from admitdx.tasks.erreason.release_notes import (
    before_disposition,
    presentation,
    render_vitals,
    triage_vitals,
)

HEADERS = {
    "demographics": "Demographics",
    "chief_complaint": "Chief complaint",
    "triage_vitals": "Vital signs",
    "previous_discharge_summary": "PAST discharge summary",
    "previous_notes": "PAST medical notes",
    "ed_presentation": "Current ED presentation",
    "ed_note": "Current ED provider note",
}
PLAN_PARTS = {
    "rule_out": "Rule_Out",
    "decision_factors": "Decision_Factors",
    "treatment_plan": "Treatment_Plan",
}


def _demographics(row: dict[str, Any], race: bool = False) -> str:
    parts = [f"Age {row['Age'] or 'unknown'}", f"Sex {row['sex'] or 'unknown'}"]
    if race:
        parts.append(f"Race {row['firstrace'] or 'unknown'}")
    return ", ".join(parts)


def _clip(text: str | None, chars: int) -> str | None:
    if not text or not text.strip():
        return None
    text = text.strip()
    return text if len(text) <= chars else text[:chars] + " [...]"


def _previous_notes(row: dict[str, Any], p: ReleaseParams) -> str | None:
    notes = [
        f"[{kind.replace('_', ' ')}{', ' + row[f'{kind}_Year'] if row[f'{kind}_Year'] else ''}]\n{text}"
        for kind in PREVIOUS_NOTE_TYPES
        if (text := _clip(row[f"{kind}_Text"], p.note_chars))
    ]
    return "\n\n".join(notes) or None


def _acuity_sections(row: dict[str, Any], p: ReleaseParams) -> dict[str, str | None]:
    return {
        "demographics": _demographics(row, race=True),
        "chief_complaint": row["primarychiefcomplaintname"],
        "triage_vitals": render_vitals(triage_vitals(row["ED_Provider_Notes_Text"])),
    }


def _one_liner_sections(row: dict[str, Any], p: ReleaseParams) -> dict[str, str | None]:
    return {
        "demographics": _demographics(row),
        "chief_complaint": row["primarychiefcomplaintname"],
        "previous_discharge_summary": _clip(row["Discharge_Summary_Text"], p.note_chars),
    }


def _presentation_sections(row: dict[str, Any], p: ReleaseParams) -> dict[str, str | None]:
    return {
        "demographics": _demographics(row),
        "chief_complaint": row["primarychiefcomplaintname"],
        "previous_notes": _previous_notes(row, p),
        "ed_presentation": presentation(row["ED_Provider_Notes_Text"]),
    }


def _disposition_sections(row: dict[str, Any], p: ReleaseParams) -> dict[str, str | None]:
    return {
        "demographics": _demographics(row),
        "chief_complaint": row["primarychiefcomplaintname"],
        "ed_note": before_disposition(row["ED_Provider_Notes_Text"]),
    }


def _column(name: str, allowed: tuple[str, ...] | None = None) -> Any:
    def target(row: dict[str, Any], codes: Codes) -> tuple[str | None, list[dict[str, Any]]]:
        value = (row[name] or "").strip() or None
        return (value if allowed is None or value in allowed else None), []

    return target


def _plan(row: dict[str, Any], codes: Codes) -> tuple[dict[str, str] | None, list[dict[str, Any]]]:
    parts = {k: (row[c] or "").strip() for k, c in PLAN_PARTS.items()}
    return (parts if all(parts.values()) else None), []


def _codes(row: dict[str, Any], codes: Codes) -> tuple[None, list[dict[str, Any]]]:
    refs = [
        {
            "text": name or code,
            "code": code,
            "code_system": "ICD-10-CM",
            "seq_num": i,
            "ed_title": name,
        }
        for i, (code, name) in enumerate(codes, start=1)
    ]
    return None, refs


def _task(name: str, sections: Any, target: Any, names: tuple[str, ...], **kw: Any) -> ReleaseTask:
    return ReleaseTask(
        f"er-reason-release-{name}", names, sections, target, {k: HEADERS[k] for k in names}, **kw
    )


_PRESENTATION = ("demographics", "chief_complaint", "previous_notes", "ed_presentation")
ACUITY = _task(
    "acuity",
    _acuity_sections,
    _column("acuitylevel", ACUITY_LEVELS),
    ("demographics", "chief_complaint", "triage_vitals"),
)
ONE_LINER = _task(
    "one-liner",
    _one_liner_sections,
    _column("One_Sentence_Extracted"),
    ("demographics", "chief_complaint", "previous_discharge_summary"),
    required=("previous_discharge_summary",),
)
PLANNING = _task(
    "planning",
    _presentation_sections,
    _plan,
    _PRESENTATION,
    required=("ed_presentation",),
    target_parts=tuple(PLAN_PARTS),
)
DIAGNOSIS = _task(
    "diagnosis",
    _presentation_sections,
    _codes,
    _PRESENTATION,
    required=("ed_presentation",),
    text_target=False,
)
DISPOSITION = _task(
    "disposition",
    _disposition_sections,
    _column("eddisposition", DISPOSITIONS),
    ("demographics", "chief_complaint", "ed_note"),
    required=("ed_note",),
)
