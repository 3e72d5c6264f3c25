"""Building one ER-Reason task from the release (``--erreason DIR``): every encounter rendered
into the task's sections, given its target, split by patient and written.

The release is small (3,984 encounters), so it is read whole (:func:`admitdx.sources.erreason.load_release`)
rather than streamed. ER-Reason itself is zero-shot; the patient split (hash of the durable key,
namespace ``er-reason-release-split``) gives the baselines a training set.
"""

from __future__ import annotations

import dataclasses
import hashlib
import typing
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from admitdx.contracts import INSTANCES_FILE
from admitdx.errors import UsageError, output_errors, writable_dir
from admitdx.runs import fingerprint_files, finished_outputs, write_manifest
from admitdx.sources.erreason import (
    CODES_FILE,
    ENCOUNTERS_FILE,
    PREVIOUS_NOTE_TYPES,
    VISIT_YEAR,
    Release,
    load_release,
    note_dating,
)
from admitdx.tasks.dataset_writer import PARQUET_FILE, InstanceWriter, instance_schema
from admitdx.tasks.erreason.release_notes import UNCUT_NOTES, verdict
from admitdx.tasks.erreason.release_vitals import VITALS, triage_vitals
from admitdx.tasks.spec import Progress, param
from admitdx.tasks.split import SPLIT_FILE, Splitter, read_split_file, write_split_file

SPLIT_NAMESPACE = "er-reason-release-split"
_S, _I, _D = pa.string(), pa.int64(), pa.float64()
META: tuple[tuple[str, pa.DataType], ...] = (
    ("age", _I),
    ("sex", _S),
    ("race", _S),
    ("language", _S),
    ("encounterkey", _S),
    *((f"triage_{v}", _D) for v in VITALS),
)
#: Columns the instances' meta shows when the release has them (no task requires them).
META_COLUMNS = ("Age", "sex", "firstrace", "preferredlanguage", "ED_Provider_Notes_Text")
#: Read when present: the visit's year, against which previous notes are dated.
OPTIONAL_COLUMNS = (*META_COLUMNS, VISIT_YEAR)
Codes = list[tuple[str, str | None]]
#: (target, references) of one encounter; (None, []) leaves it out of this task.
TargetFn = Callable[[dict[str, Any], Codes], tuple[str | dict[str, str] | None, list[dict[str, Any]]]]
SectionsFn = Callable[[dict[str, Any], "ReleaseParams"], dict[str, str | None]]


@dataclass(frozen=True)
class ReleaseParams:
    test_fraction: float = param(
        0.5,
        "Share of patients in the test split (the rest train the baselines); 1.0 evaluates every "
        "encounter, as the zero-shot paper does (then no trained baseline can run).",
    )
    seed: int = param(0, "Seed of the patient split.")
    note_chars: int = param(
        3000, "Each previous note is cut to this many characters (the authors' truncate_text, 3,000)."
    )
    one_liner_note_chars: int | None = param(
        None,
        "One-liner: cut the previous discharge summary to this many characters (default: whole, as "
        "the authors).",
    )
    uncut_notes: typing.Literal["exclude", "whole"] = param(
        "exclude",
        "An ED note without any MDM / Assessment and Plan / ED Course / Final Disposition heading: "
        "exclude (left out, counted) or whole (shown uncut, where the answer may be).",
    )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def __post_init__(self) -> None:
        if self.uncut_notes not in UNCUT_NOTES:
            raise UsageError(f"uncut_notes must be one of {', '.join(UNCUT_NOTES)}, got {self.uncut_notes!r}")


@dataclass(frozen=True)
class ReleaseTask:
    """One task on the release: its section names (in input order), how to render them, its
    target, and the sections an encounter must have to be an instance of it."""

    task: str
    section_names: tuple[str, ...]
    sections: SectionsFn
    target: TargetFn
    headers: dict[str, str]
    required: tuple[str, ...] = ()
    text_target: bool = True
    target_parts: tuple[str, ...] = ()  # a multi-part text target ({part: text}), stored as a struct
    columns: tuple[str, ...] = ()  # the er_reason.csv columns the task reads (the loader requires these)
    cuts_note: bool = False  # the input holds the current ED note cut: count which heading cut it
    count: Callable[[dict[str, Any], Codes], str | None] | None = None  # a per-encounter tally key

    @property
    def schema(self) -> pa.Schema:
        schema = instance_schema(self.section_names, META, target=self.text_target)
        if not self.target_parts:
            return schema
        i = schema.get_field_index("target")
        return schema.set(i, pa.field("target", pa.struct([(p, pa.string()) for p in self.target_parts])))


def subject_id(durable_key: str) -> int:
    """The release's durable key as the integer patient id admitdx splits and bootstraps on."""
    key = durable_key.strip()
    if key.isdigit() and len(key) < 19:
        return int(key)
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:7], "big")


def build_release_task(
    task: ReleaseTask,
    release_dir: Path,
    out_dir: Path,
    params: ReleaseParams,
    *,
    split_file: Path | None = None,
    progress: Progress | None = None,
    memory_limit: str = "3GB",
    force: bool = False,
) -> dict[str, Any]:
    """Build ``task`` from the release at ``release_dir`` into ``out_dir``. (``memory_limit``
    belongs to the common build signature; this build reads no DuckDB.) A build of the same inputs
    already in ``out_dir`` is kept and its outputs returned with ``"skipped": True``, unless ``force``."""
    release_dir, out_dir = Path(release_dir), Path(out_dir)
    writable_dir(out_dir)
    fixed = read_split_file(split_file) if split_file else None
    report = progress or (lambda stage, done, total: None)
    release = load_release(release_dir, task.columns, optional=OPTIONAL_COLUMNS)  # names a missing file
    inputs = {
        "erreason_dir": str(release_dir.resolve()),
        "source_files": fingerprint_files([release_dir / ENCOUNTERS_FILE, release_dir / CODES_FILE]),
        "params": params.to_dict(),
        "split_file": fingerprint_files([split_file]) if split_file else None,
    }
    previous = finished_outputs(out_dir, f"build {task.task}", inputs)
    if previous is not None and not force:
        return {**previous, "skipped": True}
    splitter = Splitter(
        {"test": params.test_fraction, "train": 1 - params.test_fraction}, params.seed, SPLIT_NAMESPACE, fixed
    )
    with output_errors(out_dir):
        writer = InstanceWriter(out_dir, task.schema)
        try:
            outputs = _write(task, release, params, writer, splitter, report)
            write_manifest(writer.staging, stage=f"build {task.task}", inputs=inputs, outputs=outputs)
            writer.commit()
        except BaseException:
            writer.abort()
            raise
    return outputs


def _write(
    task: ReleaseTask,
    release: Release,
    params: ReleaseParams,
    writer: InstanceWriter,
    splitter: Splitter,
    report: Progress,
) -> dict[str, Any]:
    tally: Counter[str] = Counter()
    subjects: dict[str, set[int]] = {}
    total = len(release.encounters)
    for n, row in enumerate(release.encounters, start=1):
        record = _instance(task, row, release.codes.get(row["encounterkey"], []), params, splitter, tally)
        if record is not None:
            tally[f"{record['split']}_instances"] += 1
            subjects.setdefault(record["split"], set()).add(record["subject_id"])
            writer.write(record)
        if n % 500 == 0 or n == total:
            report("encounters", n, total)
    write_split_file(writer.staged(SPLIT_FILE), splitter.assigned)
    return {
        "task": task.task,
        "files": [INSTANCES_FILE, PARQUET_FILE, SPLIT_FILE],
        "counts": {
            "encounters": total,
            "instances": writer.written,
            **dict(sorted(tally.items())),
            **{f"{split}_subjects": len(ids) for split, ids in sorted(subjects.items())},
        },
    }


def _age(value: str | None) -> int | None:
    try:
        return int(float(value)) if value is not None else None
    except ValueError:
        return None


_DATING_COUNTS = {
    "after_visit": "previous_notes_refused_after_visit",
    "unknown": "previous_notes_year_unknown",
}


def _count_datings(task: ReleaseTask, row: dict[str, Any], tally: Counter[str]) -> None:
    """Count the previous notes the task reads that are refused (dated after the visit) or whose
    year cannot be compared (kept: ``previous_notes_year_unknown``)."""
    for kind in PREVIOUS_NOTE_TYPES:
        if f"{kind}_Year" in task.columns and (row.get(f"{kind}_Text") or "").strip():
            dating = note_dating(row, kind)
            if dating != "kept":
                tally[_DATING_COUNTS[dating]] += 1


def _instance(
    task: ReleaseTask,
    row: dict[str, Any],
    codes: Codes,
    params: ReleaseParams,
    splitter: Splitter,
    tally: Counter[str],
) -> dict[str, Any] | None:
    note = row.get("ED_Provider_Notes_Text")
    if task.cuts_note:
        why = verdict(note, params.uncut_notes)[1]
        # the pre-issue-29 names stay (cut_at_no_heading, cut_at_empty_note); new reasons: left_out_…
        if why in ("no_hpi", "no_exam"):
            tally[f"left_out_{why}"] += 1
        else:
            tally[why if why.startswith("cut_at_") else f"cut_at_{why}"] += 1
    _count_datings(task, row, tally)
    sections = task.sections(row, params)
    missing = [name for name in task.required if not sections.get(name)]
    if missing:
        tally[f"excluded_no_{missing[0]}"] += 1
        return None
    target, references = task.target(row, codes)
    if target is None and not references:
        tally["excluded_no_target"] += 1
        return None
    if task.count and (key := task.count(row, codes)):
        tally[key] += 1
    text = "\n".join(f"{task.headers[k]}: {v}" for k, v in sections.items() if v is not None)
    vitals = triage_vitals(note)
    if note:
        tally.update(f"triage_vitals_unread_{k}" for k, v in vitals.items() if v is None)
    subject = subject_id(row["patientdurablekey"] or row["encounterkey"])
    record: dict[str, Any] = {
        "id": f"{task.task}-{row['encounterkey']}",
        "subject_id": subject,
        "task": task.task,
        "split": splitter(subject),
        "sections": sections,
        "text": text,
        "references": references,
        "meta": {
            "age": _age(row.get("Age")),
            "sex": row.get("sex"),
            "race": row.get("firstrace"),
            "language": row.get("preferredlanguage"),
            "encounterkey": row["encounterkey"],
            **{f"triage_{k}": v for k, v in vitals.items()},
        },
        "history": None,
        "hadm_id": None,
        "stay_id": None,
        "t0": None,
    }
    if task.text_target:
        record["target"] = target
    return record
