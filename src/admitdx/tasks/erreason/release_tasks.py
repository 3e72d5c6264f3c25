"""The five ER-Reason tasks on the release, with the paper's inputs and targets.

1. acuity: chief complaint, age, sex, race and the triage vitals read from the current ED note
   (:mod:`.release_vitals`) → ``acuitylevel`` (ESI 1..5 by name).
2. one-liner: age, sex, chief complaint and the most recent discharge summary, whole (the authors
   do not cut it) → ``One_Sentence_Extracted``. The current provider note is never shown.
3. planning (tables 11–13): age, sex, chief complaint, the one-liner and the previous notes, each
   cut to ``note_chars`` (V1's ``truncate_text``, 3,000) — what the physician saw when writing the
   rule-out and decision factors — plus, for the treatment plan only, the ED presentation (the
   current note before its earliest cut heading, :mod:`.release_notes`) →
   ``{rule_out, decision_factors, treatment_plan}``; only encounters with all three rationales.
   :func:`part_records` gives each part's own record (an LLM asks the parts in three calls).
4. diagnosis: age, sex, chief complaint, previous notes and the ED presentation → the encounter's
   ICD-10 rows of ``icd_10_codes.csv``, the main one first: the row whose ``displaystring`` is the
   encounter's ``primaryeddiagnosisname`` (the paper's gold), else the file's first row; the build
   counts how often the two agree (``main_dx_*``).
5. disposition (table 15, task 5 includes past history): age, sex, chief complaint, previous notes
   and the ED presentation, each note's text with every expression of the disposition lexicon
   redacted (:mod:`.disposition_lexicon`; a previous note's ``[Discharge Summary, 2019]`` header is
   kept: it names a document of an earlier visit, not this visit's disposition) → ``eddisposition``.

Previous notes are historical (the data card: "from patient's previous hospital encounter"); one
whose ``<type>_Year`` is after the visit's ``ArrivalYearKey`` is refused (left out, counted in the
manifest as ``previous_notes_refused_after_visit``); one of the visit's year is kept, as the card's
year-only dates allow (:func:`admitdx.sources.erreason.note_dating`).

``primaryeddiagnosisname`` (the ED diagnosis itself) is never input.
"""

from __future__ import annotations

from typing import Any

from admitdx.sources.erreason import ACUITY_LEVELS, DISPOSITIONS, PREVIOUS_NOTE_TYPES, note_dating
from admitdx.tasks.erreason.disposition_lexicon import redact_disposition
from admitdx.tasks.erreason.release_build import Codes, ReleaseParams, ReleaseTask
from admitdx.tasks.erreason.release_notes import presentation
from admitdx.tasks.erreason.release_vitals import render_vitals, triage_vitals

ED_NOTE = "ED_Provider_Notes_Text"
HEADERS = {
    "demographics": "Demographics",
    "chief_complaint": "Chief complaint",
    "triage_vitals": "Vital signs",
    "one_liner": "Patient one-liner summary",
    "previous_discharge_summary": "PAST discharge summary",
    "previous_notes": "PAST medical notes",
    "ed_presentation": "Current ED presentation",
}
PLAN_PARTS = {
    "rule_out": "Rule_Out",
    "decision_factors": "Decision_Factors",
    "treatment_plan": "Treatment_Plan",
}
_BEFORE_ENCOUNTER = ("demographics", "chief_complaint", "one_liner", "previous_notes")
#: The sections each planning part's call sees (tables 11–13; V1's three payloads).
PLAN_INPUTS: dict[str, tuple[str, ...]] = {
    "rule_out": _BEFORE_ENCOUNTER,
    "decision_factors": _BEFORE_ENCOUNTER,
    "treatment_plan": (*_BEFORE_ENCOUNTER, "ed_presentation"),
}
_DEMOGRAPHICS = ("Age", "sex")
_PREVIOUS = tuple(c for kind in PREVIOUS_NOTE_TYPES for c in (f"{kind}_Text", f"{kind}_Year"))


def _demographics(row: dict[str, Any], race: bool = False) -> str:
    parts = [f"Age {row['Age'] or 'unknown'}", f"Sex {row['sex'] or 'unknown'}"]
    if race:
        parts.append(f"Race {row['firstrace'] or 'unknown'}")
    return ", ".join(parts)


def _clip(text: str | None, chars: int | None) -> str | None:
    if not text or not text.strip():
        return None
    text = text.strip()
    return text if chars is None or len(text) <= chars else text[:chars] + " [...]"


def _year(value: str | None) -> str:
    """A year as written, less the ``.0`` pandas adds to a column with gaps (``2019.0``)."""
    return value[:-2] if value and value.endswith(".0") else (value or "")


def _historical(row: dict[str, Any], kind: str, chars: int | None) -> str | None:
    """A previous note's text, clipped; None when it is dated after the visit (refused)."""
    return None if note_dating(row, kind) == "after_visit" else _clip(row[f"{kind}_Text"], chars)


def note_header(kind: str, year: str | None) -> str:
    """``[Discharge Summary, 2019]``: the line that introduces a previous note."""
    return f"[{kind.replace('_', ' ')}{', ' + y if (y := _year(year)) else ''}]"


def _previous_notes(row: dict[str, Any], p: ReleaseParams, redact: bool = False) -> str | None:
    notes = [
        f"{note_header(kind, row[f'{kind}_Year'])}\n{redact_disposition(text) if redact else text}"
        for kind in PREVIOUS_NOTE_TYPES
        if (text := _historical(row, kind, p.note_chars))
    ]
    return "\n\n".join(notes) or None


def _acuity_sections(row: dict[str, Any], p: ReleaseParams) -> dict[str, str | None]:
    return {
        "demographics": _demographics(row, race=True),
        "chief_complaint": row["primarychiefcomplaintname"],
        "triage_vitals": render_vitals(triage_vitals(row[ED_NOTE])),
    }


def _one_liner_sections(row: dict[str, Any], p: ReleaseParams) -> dict[str, str | None]:
    return {
        "demographics": _demographics(row),
        "chief_complaint": row["primarychiefcomplaintname"],
        "previous_discharge_summary": _historical(row, "Discharge_Summary", p.one_liner_note_chars),
    }


def _planning_sections(row: dict[str, Any], p: ReleaseParams) -> dict[str, str | None]:
    return {
        "demographics": _demographics(row),
        "chief_complaint": row["primarychiefcomplaintname"],
        "one_liner": _clip(row["One_Sentence_Extracted"], None),
        "previous_notes": _previous_notes(row, p),
        "ed_presentation": presentation(row[ED_NOTE], p.uncut_notes),
    }


def _diagnosis_sections(row: dict[str, Any], p: ReleaseParams) -> dict[str, str | None]:
    return {
        "demographics": _demographics(row),
        "chief_complaint": row["primarychiefcomplaintname"],
        "previous_notes": _previous_notes(row, p),
        "ed_presentation": presentation(row[ED_NOTE], p.uncut_notes),
    }


def _disposition_sections(row: dict[str, Any], p: ReleaseParams) -> dict[str, str | None]:
    return {
        **_diagnosis_sections(row, p),
        "previous_notes": _previous_notes(row, p, redact=True),
        "ed_presentation": redact_disposition(presentation(row[ED_NOTE], p.uncut_notes)),
    }


def render(sections: dict[str, str | None], names: tuple[str, ...] | None = None) -> str:
    """The record a system reads: ``Header: text`` for each shown section (all, or ``names``)."""
    return "\n".join(
        f"{HEADERS[k]}: {v}" for k, v in sections.items() if v is not None and (names is None or k in names)
    )


def part_records(sections: dict[str, str | None]) -> dict[str, str]:
    """Each planning part's own record (its call's input), from an instance's sections."""
    return {part: render(sections, names) for part, names in PLAN_INPUTS.items()}


def _column(name: str, allowed: tuple[str, ...] | None = None) -> Any:
    def target(row: dict[str, Any], codes: Codes) -> tuple[str | None, list[dict[str, Any]]]:
        value = (row[name] or "").strip() or None
        return (value if allowed is None or value in allowed else None), []

    return target


def _plan(row: dict[str, Any], codes: Codes) -> tuple[dict[str, str] | None, list[dict[str, Any]]]:
    parts = {k: (row[c] or "").strip() for k, c in PLAN_PARTS.items()}
    return (parts if all(parts.values()) else None), []


def _fold(text: str | None) -> str:
    return " ".join((text or "").casefold().split())


def main_row(row: dict[str, Any], codes: Codes) -> tuple[int, str]:
    """(index of the main diagnosis among ``codes``, how it was found): the row whose display
    string is ``primaryeddiagnosisname`` — ``first_row`` when that is the file's first row too,
    ``other_row`` when a later one — else the first row (``no_match``)."""
    wanted = _fold(row["primaryeddiagnosisname"])
    i = next((i for i, (_, name) in enumerate(codes) if wanted and _fold(name) == wanted), None)
    if i is None:
        return 0, "no_match"
    return i, "first_row" if i == 0 else "other_row"


def _codes(row: dict[str, Any], codes: Codes) -> tuple[None, list[dict[str, Any]]]:
    main, _ = main_row(row, codes) if codes else (0, "")
    ordered = [codes[main], *codes[:main], *codes[main + 1 :]]
    refs = [
        {"text": name or code, "code": code, "code_system": "ICD-10-CM", "seq_num": i, "ed_title": name}
        for i, (code, name) in enumerate(ordered, start=1)
    ]
    return None, refs


def _main_dx_count(row: dict[str, Any], codes: Codes) -> str | None:
    return f"main_dx_{main_row(row, codes)[1]}" if codes else None


def _task(name: str, sections: Any, target: Any, names: tuple[str, ...], **kw: Any) -> ReleaseTask:
    return ReleaseTask(
        f"er-reason-release-{name}", names, sections, target, {k: HEADERS[k] for k in names}, **kw
    )


_PRESENTATION = ("demographics", "chief_complaint", "previous_notes", "ed_presentation")
_BASE = (*_DEMOGRAPHICS, "primarychiefcomplaintname")
ACUITY = _task(
    "acuity",
    _acuity_sections,
    _column("acuitylevel", ACUITY_LEVELS),
    ("demographics", "chief_complaint", "triage_vitals"),
    columns=(*_BASE, "firstrace", ED_NOTE, "acuitylevel"),
)
ONE_LINER = _task(
    "one-liner",
    _one_liner_sections,
    _column("One_Sentence_Extracted"),
    ("demographics", "chief_complaint", "previous_discharge_summary"),
    required=("previous_discharge_summary",),
    columns=(*_BASE, "Discharge_Summary_Text", "Discharge_Summary_Year", "One_Sentence_Extracted"),
)
PLANNING = _task(
    "planning",
    _planning_sections,
    _plan,
    ("demographics", "chief_complaint", "one_liner", "previous_notes", "ed_presentation"),
    required=("ed_presentation",),
    target_parts=tuple(PLAN_PARTS),
    columns=(*_BASE, "One_Sentence_Extracted", *_PREVIOUS, ED_NOTE, *PLAN_PARTS.values()),
    cuts_note=True,
)
DIAGNOSIS = _task(
    "diagnosis",
    _diagnosis_sections,
    _codes,
    _PRESENTATION,
    required=("ed_presentation",),
    text_target=False,
    columns=(*_BASE, *_PREVIOUS, ED_NOTE, "primaryeddiagnosisname"),
    cuts_note=True,
    count=_main_dx_count,
)
DISPOSITION = _task(
    "disposition",
    _disposition_sections,
    _column("eddisposition", DISPOSITIONS),
    _PRESENTATION,
    required=("ed_presentation",),
    columns=(*_BASE, *_PREVIOUS, ED_NOTE, "eddisposition"),
    cuts_note=True,
)
