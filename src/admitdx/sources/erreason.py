"""The ER-Reason release (Mehandru et al. 2025; credentialed, 3,984 UCSF ER encounters): reading
and validating ``er_reason.csv`` and ``icd_10_codes.csv`` as the release's data card spells them.

The data card is ``ER-Reason_Column_Descriptions.md`` in the authors' repository
(github.com/AlaaLab/ER-Reason); :data:`DATA_CARD_COLUMNS` lists its 46 columns in its order and
spelling (e.g. ``ArrivalYearKey``, ``DepartureYearKeyValue``). ``icd_10_codes.csv`` has the four
columns the repository's README lists. A build requires only the columns its task reads
(``load_release(root, columns)``), so a release lacking a column no task reads still builds.

Validation is ``data check``'s: a missing file or column, or an acuity or disposition outside the
documented values, is an :class:`~admitdx.errors.InputError` (exit 2) naming the file, the column
and the record (1 is the first after the header), and saying what to do — never a traceback.
Empty strings read as missing. Files are read with pyarrow's multithreaded CSV reader, every
column as text (keys are kept as written; numbers are converted where a task uses them).
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv

from admitdx.errors import InputError

ENCOUNTERS_FILE = "er_reason.csv"
CODES_FILE = "icd_10_codes.csv"

#: ESI 1..5 in order, most urgent first (the release's ``acuitylevel`` values).
ACUITY_LEVELS: tuple[str, ...] = ("Immediate", "Emergent", "Urgent", "Less Urgent", "Non-Urgent")
#: The release's ``eddisposition`` values (the paper's table 15 options, less its 'None').
DISPOSITIONS: tuple[str, ...] = (
    "Discharge",
    "Admit",
    "Observation",
    "Transfer to Another Facility",
    "AMA",
    "OR Admit",
    "LWBS after Triage",
    "Send to L&D",
    "Expired",
    "Eloped",
    "Dismissed - Never Arrived",
)
#: Note types; all are from the previous encounter except ED_Provider_Notes (the current visit).
NOTE_TYPES: tuple[str, ...] = (
    "Discharge_Summary",
    "Progress_Note",
    "HP_Note",
    "Echo",
    "Imaging",
    "Consult",
    "ECG",
    "ED_Provider_Notes",
)
PREVIOUS_NOTE_TYPES = NOTE_TYPES[:-1]
#: The visit's year (the data card's ``ArrivalYearKey``), against which each previous note's
#: ``<type>_Year`` is held: the card calls those notes historical, so one dated after the visit is
#: not what the card describes and is refused (:func:`note_dating`).
VISIT_YEAR = "ArrivalYearKey"
#: The note types in the data card's order (its key, text and year blocks each follow it).
_CARD_NOTE_ORDER: tuple[str, ...] = (
    "Discharge_Summary",
    "Progress_Note",
    "HP_Note",
    "Echo",
    "Imaging",
    "Consult",
    "ED_Provider_Notes",
    "ECG",
)
RATIONALES: tuple[str, ...] = ("One_Sentence_Extracted", "Rule_Out", "Decision_Factors", "Treatment_Plan")


def note_key_column(note_type: str) -> str:
    return "Discharge_Summary_Note_Key" if note_type == "Discharge_Summary" else f"{note_type}_Key"


#: The data card's columns of ``er_reason.csv``, in its order and spelling.
DATA_CARD_COLUMNS: tuple[str, ...] = (
    "patientdurablekey",
    "encounterkey",
    "primarychiefcomplaintname",
    "primaryeddiagnosisname",
    "sex",
    "firstrace",
    "preferredlanguage",
    "highestlevelofeducation",
    "maritalstatus",
    "Age",
    *(note_key_column(t) for t in _CARD_NOTE_ORDER),
    *(f"{t}_Text" for t in NOTE_TYPES),  # the card lists ECG_Text before ED_Provider_Notes_Text
    "One_Sentence_Extracted",
    "note_count",
    "acuitylevel",
    "eddisposition",
    "ArrivalYearKey",
    "DepartureYearKeyValue",
    "DepartureYearKey",
    "DispositionYearKeyValue",
    "birthYear",
    *(f"{t}_Year" for t in _CARD_NOTE_ORDER),
    *RATIONALES[1:],
)
#: Every column the loader validates whatever the task: the keys, and the two targets with a
#: closed set of values when present.
KEY_COLUMNS: tuple[str, ...] = ("patientdurablekey", "encounterkey")
#: The columns some ER-Reason task reads (``data check`` requires these; a build only its task's).
ENCOUNTER_COLUMNS: tuple[str, ...] = (
    *KEY_COLUMNS,
    "primarychiefcomplaintname",
    "primaryeddiagnosisname",
    "sex",
    "firstrace",
    "preferredlanguage",
    "Age",
    "acuitylevel",
    "eddisposition",
    *(c for t in NOTE_TYPES for c in (f"{t}_Text", f"{t}_Year")),
    *RATIONALES,
)
CODE_COLUMNS: tuple[str, ...] = ("patientdurablekey", "encounterkey", "value", "displaystring")
_ALLOWED = {"acuitylevel": ACUITY_LEVELS, "eddisposition": DISPOSITIONS}
_NEXT = "check the file against the ER-Reason data card (columns and values in admitdx.sources.erreason)"


@dataclass(frozen=True)
class Release:
    """The release, validated: one dict per encounter (column → text or None) and, per
    encounter key, its ICD-10 rows ``(code, display string)`` in file order."""

    root: Path
    encounters: list[dict[str, Any]]
    codes: dict[str, list[tuple[str, str | None]]]


def _read(path: Path, columns: tuple[str, ...], optional: tuple[str, ...] = ()) -> pa.Table:
    if not path.is_file():
        raise InputError(
            f"the ER-Reason release lacks {path.name}",
            table=str(path),
            hint="point --erreason at the release folder",
        )
    with path.open(newline="", encoding="utf-8-sig", errors="replace") as f:
        header = next(csv.reader(f), [])
    missing = [c for c in columns if c not in header]
    if missing:
        raise InputError(
            f"{path.name} lacks the column(s) {', '.join(missing)}",
            table=str(path),
            column=missing[0],
            hint=_NEXT,
        )
    try:
        return pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(block_size=1 << 24),
            parse_options=pacsv.ParseOptions(newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(
                column_types={c: pa.string() for c in header},
                include_columns=list(dict.fromkeys((*columns, *(c for c in optional if c in header)))),
                strings_can_be_null=True,
                null_values=[""],
            ),
        )
    except pa.ArrowInvalid as e:
        raise InputError(f"{path.name} cannot be read as CSV: {e}", table=str(path), hint=_NEXT) from None


def _check_values(table: pa.Table, path: Path) -> None:
    for column, allowed in _ALLOWED.items():
        if column not in table.column_names:
            continue
        values = table.column(column).to_pylist()
        for i, value in enumerate(values):
            if value is not None and value not in allowed:
                raise InputError(
                    f"{column} {value!r} is not one of {', '.join(allowed)}",
                    table=str(path),
                    column=column,
                    row=i + 1,  # the record's number, header excluded (notes hold newlines)
                    hint=_NEXT,
                )
    keys = table.column("encounterkey").to_pylist()
    for i, key in enumerate(keys):
        if key is None:
            raise InputError("encounterkey is empty", table=str(path), column="encounterkey", row=i + 1)


def load_release(
    root: Path, columns: tuple[str, ...] = ENCOUNTER_COLUMNS, optional: tuple[str, ...] = ()
) -> Release:
    """Read and validate the release at ``root`` (``er_reason.csv`` + ``icd_10_codes.csv``),
    requiring ``columns`` of ``er_reason.csv`` (plus the keys) and no other: a task passes the
    columns it reads, so a missing column stops only the tasks that need it (exit 2 naming it).
    ``optional`` columns are read when present and are None in every row when not."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root} is not a folder", hint="point --erreason at the ER-Reason release folder")
    enc_path, codes_path = root / ENCOUNTERS_FILE, root / CODES_FILE
    wanted = tuple(dict.fromkeys((*KEY_COLUMNS, *columns)))
    encounters = _read(enc_path, wanted, optional)
    _check_values(encounters, enc_path)
    codes_table = _read(codes_path, CODE_COLUMNS)
    codes: dict[str, list[tuple[str, str | None]]] = {}
    for key, code, name in zip(
        codes_table.column("encounterkey").to_pylist(),
        codes_table.column("value").to_pylist(),
        codes_table.column("displaystring").to_pylist(),
        strict=True,
    ):
        if key is not None and code is not None:
            codes.setdefault(key, []).append((code.strip(), name))
    rows = encounters.to_pylist()
    absent = [c for c in optional if c not in encounters.column_names]
    for r in rows if absent else ():
        r.update(dict.fromkeys(absent))
    return Release(root, rows, codes)


def year_of(value: str | None) -> int | None:
    """A year as the release writes it: ``2019``, ``2019.0`` (pandas' float of a column with gaps)
    or a date key ``20190314``; None for anything else."""
    text = (value or "").strip().removesuffix(".0")
    return int(text[:4]) if text.isdigit() and len(text) in (4, 8) else None


def note_dating(row: dict[str, Any], note_type: str) -> str:
    """How a previous note's year stands to the visit's: ``after_visit`` (refused), ``unknown``
    (either year missing or unreadable: kept, counted) or ``kept`` (the visit's year or before;
    the card's years have no month, so a note of the visit's year may be from earlier that year)."""
    visit, note = year_of(row.get(VISIT_YEAR)), year_of(row.get(f"{note_type}_Year"))
    if visit is None or note is None:
        return "unknown"
    return "after_visit" if note > visit else "kept"


def previous_note_datings(rows: list[dict[str, Any]]) -> Counter[str]:
    """``note_dating`` of every previous note that has text, over ``rows``."""
    return Counter(
        note_dating(r, t) for r in rows for t in PREVIOUS_NOTE_TYPES if (r.get(f"{t}_Text") or "").strip()
    )


def _filled(rows: list[dict[str, Any]], *columns: str) -> int:
    return sum(1 for r in rows if all((r[c] or "").strip() for c in columns))


def _value_counts(rows: list[dict[str, Any]], column: str, order: tuple[str, ...]) -> dict[str, int]:
    counts = Counter(r[column] or "(empty)" for r in rows)
    return {v: counts[v] for v in (*order, "(empty)") if counts[v]}


def absent_card_columns(root: Path) -> list[str]:
    """The data card's columns that ``er_reason.csv`` lacks (none a task reads, once it loaded)."""
    with (Path(root) / ENCOUNTERS_FILE).open(newline="", encoding="utf-8-sig", errors="replace") as f:
        header = set(next(csv.reader(f), []))
    return [c for c in DATA_CARD_COLUMNS if c not in header]


def release_summary(release: Release) -> dict[str, Any]:
    """What ``data check --erreason`` reports about a release that loaded: counts to hold against
    the data card (3,984 encounters, 72 physician rationales), the targets' value counts, and the
    card's columns the file lacks that no task reads (``absent_card_columns``)."""
    rows = release.encounters
    datings = previous_note_datings(rows)
    return {
        "root": str(release.root),
        "absent_card_columns": len(absent_card_columns(release.root)),
        "encounters": len(rows),
        "patients": len({r["patientdurablekey"] for r in rows}),
        "encounters_with_codes": sum(1 for r in rows if r["encounterkey"] in release.codes),
        "code_rows": sum(len(c) for c in release.codes.values()),
        "ed_provider_notes": _filled(rows, "ED_Provider_Notes_Text"),
        "previous_discharge_summaries": _filled(rows, "Discharge_Summary_Text"),
        "one_liners": _filled(rows, "One_Sentence_Extracted"),
        "full_rationales": _filled(rows, *RATIONALES[1:]),
        "previous_notes_after_visit": datings["after_visit"],
        "previous_notes_year_unknown": datings["unknown"],
        "acuitylevel": _value_counts(rows, "acuitylevel", ACUITY_LEVELS),
        "eddisposition": _value_counts(rows, "eddisposition", DISPOSITIONS),
    }
