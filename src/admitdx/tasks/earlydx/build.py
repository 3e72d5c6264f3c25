"""``build_earlydx``: MIMIC-IV root → EarlyDx dataset directory.

Steps, all in DuckDB until the last: (1) the cohort table; (2) label-filter verdicts for the
distinct titles; (3) one temporary table per evidence section and for the labels; (4) one query
joining them to the cohort, streamed in stay_id order a batch at a time, each encounter rendered,
labelled, split and written as soon as it arrives. Python never holds more than one batch.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from admitdx.contracts import INSTANCES_FILE
from admitdx.errors import output_errors, writable_dir
from admitdx.runs import fingerprint_files, finished_outputs, write_manifest
from admitdx.sources.mimic import MimicSource, Needs, open_mimic
from admitdx.tasks.dataset_writer import (
    COVERAGE_FILE,
    PARQUET_FILE,
    InstanceWriter,
    instance_schema,
    write_coverage,
)
from admitdx.tasks.earlydx.cohort import create_cohort
from admitdx.tasks.earlydx.params import HISTORY, SECTION_NAMES, EarlyDxParams
from admitdx.tasks.earlydx.references import build_references, labels_sql, register_verdicts
from admitdx.tasks.earlydx.serialize import ACUTE, HISTORY_PARTS, serialize, serialize_history
from admitdx.tasks.explicit import InputIndex
from admitdx.tasks.sections.lab_rows import lab_coverage, prepare_lab_rows
from admitdx.tasks.sections.omr import cutoff_day_tally
from admitdx.tasks.spec import Progress
from admitdx.tasks.split import SPLIT_FILE, Splitter, read_split_file, write_split_file

TASK = "earlydx"
STAGE = "build earlydx"
FETCH_ROWS = 2000
#: Verified before the build reads them (gzip CRC, columns, keys, row rules); ``requires`` must
#: exist with rows, since without them every label or encounter would change instead of failing.
NEEDS = Needs(
    requires=tuple(
        ["ed.edstays", "ed.diagnosis", "hosp.admissions", "hosp.patients", "hosp.d_icd_diagnoses"]
    ),
    reads=tuple(
        [
            "hosp.diagnoses_icd",
            "hosp.labevents",
            "hosp.d_labitems",
            "hosp.omr",
            "ed.triage",
            "ed.vitalsign",
            "ed.medrecon",
            "note.discharge",
            "note.radiology",
            "ecg.machine_measurements",
            "echo.structured_measurement",
        ]
    ),
)
#: The split's hash namespace (``tasks.split``): unchanged since the first release, so every
#: earlier EarlyDx build keeps its split.
SPLIT_NAMESPACE = "earlydx-split"

_S, _I = pa.string(), pa.int64()
META = (
    ("age", _I),
    ("sex", _S),
    ("race", _S),
    ("insurance", _S),
    ("language", _S),
    ("acuity", _I),
    ("arrival", _S),
    ("anchor_year_group", _S),
    ("ed_disposition", _S),
)
SCHEMA = instance_schema(SECTION_NAMES, META)


def build_earlydx(
    mimic_dir: Path,
    out_dir: Path,
    params: EarlyDxParams,
    *,
    split_file: Path | None = None,
    progress: Progress | None = None,
    memory_limit: str = "3GB",
    force: bool = False,
) -> dict[str, Any]:
    """Build the EarlyDx dataset of ``mimic_dir`` into ``out_dir``; return the manifest's outputs.

    When ``out_dir`` already holds a build of the same inputs (source-file fingerprints, parameters,
    split file) it is kept and its outputs returned with ``"skipped": True``, unless ``force``.
    ``memory_limit`` caps DuckDB's memory; beyond it DuckDB spills to a folder inside ``out_dir``.
    """
    mimic_dir, out_dir = Path(mimic_dir), Path(out_dir)
    writable_dir(out_dir)
    fixed_split = read_split_file(split_file) if split_file else None
    spill = out_dir / ".duckdb_tmp"
    report = progress or (lambda stage, done, total: None)
    try:
        with (
            open_mimic(mimic_dir, memory_limit=memory_limit, needs=NEEDS) as src,
            _interruptible(),
            output_errors(out_dir),
        ):
            inputs = {
                "mimic_dir": str(mimic_dir.resolve()),
                "source_files": src.fingerprints(),
                "params": params.to_dict(),
                "split_file": fingerprint_files([split_file]) if split_file else None,
            }
            previous = finished_outputs(out_dir, STAGE, inputs)
            if previous is not None and not force:
                return {**previous, "skipped": True}
            src.con.execute(f"SET temp_directory = '{str(spill).replace(chr(39), chr(39) * 2)}'")
            src.con.execute("SET preserve_insertion_order = false")
            writer = InstanceWriter(out_dir, SCHEMA)
            try:
                with src.translate_errors():
                    counts = create_cohort(src, params)
                    counts.update(register_verdicts(src, params.label_filter))
                    prepare_lab_rows(src, params.section_options())
                    tables = _materialize(src, params, report)
                    fractions = {"test": params.test_fraction, "train": 1 - params.test_fraction}
                    splitter = Splitter(fractions, params.seed, SPLIT_NAMESPACE, fixed_split)
                    outputs = _write(src, params, tables, writer, counts, splitter, report)
                    outputs["lab_coverage_by_scope"] = lab_coverage(src, counts["cohort_stays"])
                # the manifest moves in with the files it describes, never before or after them
                write_manifest(writer.staging, stage=STAGE, inputs=inputs, outputs=outputs)
                writer.commit()
            except BaseException:
                writer.abort()
                raise
    finally:
        shutil.rmtree(spill, ignore_errors=True)
    return outputs


@contextmanager
def _interruptible() -> Iterator[None]:
    """DuckDB answers Ctrl-C by aborting the running query with RuntimeError("Query interrupted")
    (InterruptException when interrupted through the API); turn either back into the
    KeyboardInterrupt it was, so callers see an interruption, not a crash."""
    try:
        yield
    except duckdb.InterruptException as e:
        raise KeyboardInterrupt from e
    except RuntimeError as e:
        if "interrupted" in str(e).lower():
            raise KeyboardInterrupt from e
        raise


def _materialize(src: MimicSource, p: EarlyDxParams, report: Progress) -> dict[str, str | None]:
    """One temp table per section (and for the labels); None for a section whose source is absent."""
    opts = p.section_options()
    queries = {s.name: s.sql(opts, src) for s in (*ACUTE, *HISTORY_PARTS)}
    queries["labels"] = labels_sql(src, p.tie_order)
    tables: dict[str, str | None] = {}
    for i, (name, sql) in enumerate(queries.items()):
        report("sections", i, len(queries))
        if sql is None:
            tables[name] = None
            continue
        tables[name] = f"sec_{name}"
        src.con.execute(f"CREATE OR REPLACE TEMP TABLE sec_{name} AS {sql}")
    report("sections", len(queries), len(queries))
    return tables


def _final_sql(tables: dict[str, str | None]) -> str:
    cols = ", ".join(f"{t}.v AS {name}" if t else f"NULL AS {name}" for name, t in tables.items())
    joins = " ".join(f"LEFT JOIN {t} ON {t}.stay_id = c.stay_id" for t in tables.values() if t)
    return f"SELECT c.*, {cols} FROM cohort c {joins} ORDER BY c.stay_id"


def _write(
    src: MimicSource,
    p: EarlyDxParams,
    tables: dict[str, str | None],
    writer: InstanceWriter,
    counts: dict[str, Any],
    splitter: Splitter,
    report: Progress,
) -> dict[str, Any]:
    """Stream the joined encounters, render and stage them; return the outputs for the manifest."""
    total = counts["cohort_stays"]
    opts = p.section_options()
    tally: Counter[str] = Counter()
    present_cohort: Counter[str] = Counter()
    present_dataset: Counter[str] = Counter()
    result = src.con.execute(_final_sql(tables))
    names = [d[0] for d in result.description]
    done = 0
    while batch := result.fetchmany(FETCH_ROWS):
        for values in batch:
            row = dict(zip(names, values, strict=True))
            record, present = _encounter(row, p, tally, splitter)
            present_cohort.update(present)
            if record is not None:
                present_dataset.update(present)
                tally[f"{record['split']}_encounters"] += 1
                omr = None if "omr" in p.drop_sections else row["omr"]  # values shown on t0's day (issue 29)
                tally.update(cutoff_day_tally(omr, row["cutoff"], row["t0"], opts))
                writer.write(record)
        done += len(batch)
        report("encounters", done, total)
    write_split_file(writer.staged(SPLIT_FILE), splitter.assigned)
    coverage = _coverage(present_cohort, present_dataset, total, writer.written)
    write_coverage(writer.staged(COVERAGE_FILE), coverage)
    subjects = Counter(splitter.assigned.values())
    return {
        "files": [INSTANCES_FILE, PARQUET_FILE, COVERAGE_FILE, SPLIT_FILE],
        "counts": {
            **counts,
            "encounters_with_labels": writer.written,
            "encounters_excluded_no_label": total - writer.written,
            "labels_per_encounter": round(tally["labels_kept"] / writer.written, 3)
            if writer.written
            else 0.0,
            "explicit_fraction": round(tally["labels_explicit"] / tally["labels_kept"], 4)
            if tally["labels_kept"]
            else 0.0,
            **dict(sorted(tally.items())),
            "train_subjects": subjects["train"],
            "test_subjects": subjects["test"],
            "split_subjects_not_in_file": splitter.not_in_file,
        },
        "sections_absent_source": [name for name, t in tables.items() if t is None],
        "coverage": coverage,
    }


def _encounter(
    row: dict[str, Any], p: EarlyDxParams, tally: Counter[str], splitter: Splitter
) -> tuple[dict[str, Any] | None, list[str]]:
    """Render one encounter; None when no label survives. Also the sections present before ablation."""
    opts = p.section_options()
    sections = {s.name: s.render(row[s.name], opts) for s in ACUTE}
    history = serialize_history({s.name: s.render(row[s.name], opts) for s in HISTORY_PARTS})
    present = [name for name, text in sections.items() if text is not None]
    if history is not None:
        present.append(HISTORY)
    for name in p.drop_sections:
        if name == HISTORY:
            history = None
        else:
            sections[name] = None
    text = serialize(sections, history, p.layout, p.field_format)
    refs = build_references(row["labels"], InputIndex(text), p, tally)
    if not refs:
        return None, present
    record = {
        "id": f"{TASK}-{row['stay_id']}",
        "subject_id": row["subject_id"],
        "task": TASK,
        "split": splitter(row["subject_id"]),
        "sections": sections,
        "text": text,
        "references": [dict(vars(r)) for r in refs],
        "meta": {
            "age": row["age"],
            "sex": row["sex"],
            "race": row["race"],
            "insurance": row["insurance"],
            "language": row["language"],
            "acuity": row["acuity"],
            "arrival": row["arrival"],
            "anchor_year_group": row["anchor_year_group"],
            "ed_disposition": row["ed_disposition"],
        },
        "history": history,
        "hadm_id": row["hadm_id"],
        "stay_id": row["stay_id"],
        "t0": row["t0"].isoformat(sep=" ") if row["t0"] is not None else None,
    }
    return record, present


def _coverage(
    cohort: Counter[str], dataset: Counter[str], n_cohort: int, n_dataset: int
) -> dict[str, dict[str, Any]]:
    names = [s.name for s in ACUTE] + [HISTORY]
    return {
        name: {
            "cohort_present": cohort[name],
            "cohort_fraction": round(cohort[name] / n_cohort, 4) if n_cohort else 0.0,
            "dataset_present": dataset[name],
            "dataset_fraction": round(dataset[name] / n_dataset, 4) if n_dataset else 0.0,
        }
        for name in names
    }
