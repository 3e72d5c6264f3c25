"""Building one MIMIC-IV-ED ER-Reason task: cohort → section tables → target table → one streamed
join, each stay rendered, split by patient and written (the same pipeline as EarlyDx's builder,
with the task's sections and target from :mod:`admitdx.tasks.erreason.mimic_tasks`)."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from admitdx.contracts import INSTANCES_FILE
from admitdx.errors import output_errors, writable_dir
from admitdx.runs import fingerprint_files, finished_outputs, write_manifest
from admitdx.sources.mimic import MimicSource, Needs, open_mimic
from admitdx.tasks.dataset_writer import PARQUET_FILE, InstanceWriter, instance_schema
from admitdx.tasks.erreason.mimic_cohort import Cutoff, create_cohort
from admitdx.tasks.erreason.params import ErReasonMimicParams
from admitdx.tasks.sections.base import Section
from admitdx.tasks.spec import Progress
from admitdx.tasks.split import SPLIT_FILE, Splitter, read_split_file, write_split_file

FETCH_ROWS = 2000
#: The split's hash namespace, shared by the four MIMIC tasks so a patient is a test patient in
#: all of them, and drawn independently of EarlyDx's split.
SPLIT_NAMESPACE = "er-reason-mimic-split"
VITALS = ("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp")

_S, _I, _D = pa.string(), pa.int64(), pa.float64()
BASE_META: tuple[tuple[str, pa.DataType], ...] = (
    ("age", _I),
    ("sex", _S),
    ("race", _S),
    ("arrival", _S),
    *((f"triage_{v}", _D) for v in VITALS),
)
#: (target, references) of one stay from its target-table value; target None drops the stay.
TargetFn = Callable[[Any], tuple[str | dict[str, str] | None, list[dict[str, Any]]]]


@dataclass(frozen=True)
class Variant:
    """One task of the family. ``target_sql`` returns ``SELECT stay_id, <value> AS v`` over the
    cohort; ``required`` names sections without which a stay is not an instance of this task."""

    task: str
    cutoff: Cutoff
    sections: tuple[Section, ...]
    triage_fields: tuple[str, ...]
    target_sql: Callable[[MimicSource], str]
    target: TargetFn
    needs: Needs
    required: tuple[str, ...] = ()
    text_target: bool = True  # category/text tasks write a target column; diagnosis tasks don't
    acuity_in_meta: bool = True

    @property
    def meta_fields(self) -> tuple[tuple[str, pa.DataType], ...]:
        return BASE_META + ((("acuity", _I),) if self.acuity_in_meta else ())

    @property
    def schema(self) -> pa.Schema:
        return instance_schema(
            tuple(s.name for s in self.sections), self.meta_fields, target=self.text_target
        )


def build_variant(
    variant: Variant,
    mimic_dir: Path,
    out_dir: Path,
    params: ErReasonMimicParams,
    *,
    split_file: Path | None = None,
    progress: Progress | None = None,
    memory_limit: str = "3GB",
    force: bool = False,
) -> dict[str, Any]:
    """Build ``variant`` from ``mimic_dir`` into ``out_dir``; return the manifest's outputs.

    When ``out_dir`` already holds a build of the same inputs (source-file fingerprints, parameters,
    split file) it is kept and its outputs returned with ``"skipped": True``, unless ``force``, as
    the other builders do: a study or the demo rerun does not rebuild it."""
    mimic_dir, out_dir = Path(mimic_dir), Path(out_dir)
    writable_dir(out_dir)
    fixed = read_split_file(split_file) if split_file else None
    report = progress or (lambda stage, done, total: None)
    spill = out_dir / ".duckdb_tmp"
    try:
        with (
            open_mimic(mimic_dir, memory_limit=memory_limit, needs=variant.needs) as src,
            output_errors(out_dir),
        ):
            src.con.execute(f"SET temp_directory = '{str(spill).replace(chr(39), chr(39) * 2)}'")
            inputs = {
                "mimic_dir": str(mimic_dir.resolve()),
                "source_files": src.fingerprints(),
                "params": params.to_dict(),
                "split_file": fingerprint_files([split_file]) if split_file else None,
            }
            previous = finished_outputs(out_dir, f"build {variant.task}", inputs)
            if previous is not None and not force:
                return {**previous, "skipped": True}
            writer = InstanceWriter(out_dir, variant.schema)
            try:
                with src.translate_errors():
                    counts = create_cohort(src, variant.cutoff)
                    tables = _materialize(src, variant, params, report)
                    splitter = Splitter(
                        {"test": params.test_fraction, "train": 1 - params.test_fraction},
                        params.seed,
                        SPLIT_NAMESPACE,
                        fixed,
                    )
                    outputs = _write(src, variant, params, tables, writer, counts, splitter, report)
                write_manifest(writer.staging, stage=f"build {variant.task}", inputs=inputs, outputs=outputs)
                writer.commit()
            except BaseException:
                writer.abort()
                raise
    finally:
        shutil.rmtree(spill, ignore_errors=True)
    return outputs


def _materialize(
    src: MimicSource, v: Variant, p: ErReasonMimicParams, report: Progress
) -> dict[str, str | None]:
    opts = p.section_options(v.triage_fields)
    queries: dict[str, str | None] = {s.name: s.sql(opts, src) for s in v.sections}
    queries["triage_values"] = _triage_values_sql(src)
    queries["target"] = v.target_sql(src)
    tables: dict[str, str | None] = {}
    for i, (name, sql) in enumerate(queries.items()):
        report("sections", i, len(queries))
        tables[name] = None if sql is None else f"sec_{name}"
        if sql is not None:
            src.con.execute(f"CREATE OR REPLACE TEMP TABLE sec_{name} AS {sql}")
    report("sections", len(queries), len(queries))
    return tables


def _triage_values_sql(src: MimicSource) -> str:
    """The triage vitals as numbers (meta for the vitals classifier), never the acuity."""
    cols = ", ".join(f"triage_{f} := TRY_CAST(any_value(t.{f}) AS DOUBLE)" for f in VITALS)
    return f"SELECT t.stay_id, struct_pack({cols}) AS v FROM ed.triage t GROUP BY t.stay_id"


def _write(
    src: MimicSource,
    v: Variant,
    p: ErReasonMimicParams,
    tables: dict[str, str | None],
    writer: InstanceWriter,
    counts: dict[str, Any],
    splitter: Splitter,
    report: Progress,
) -> dict[str, Any]:
    cols = ", ".join(f"{t}.v AS {name}" if t else f"NULL AS {name}" for name, t in tables.items())
    joins = " ".join(f"LEFT JOIN {t} ON {t}.stay_id = c.stay_id" for t in tables.values() if t)
    result = src.con.execute(f"SELECT c.*, {cols} FROM cohort c {joins} ORDER BY c.stay_id")
    names = [d[0] for d in result.description]
    opts = p.section_options(v.triage_fields)
    tally: Counter[str] = Counter()
    subjects: dict[str, set[int]] = {}
    done = 0
    while batch := result.fetchmany(FETCH_ROWS):
        for values in batch:
            record = _instance(dict(zip(names, values, strict=True)), v, opts, splitter, tally)
            if record is not None:
                tally[f"{record['split']}_instances"] += 1
                subjects.setdefault(record["split"], set()).add(record["subject_id"])
                writer.write(record)
        done += len(batch)
        report("stays", done, counts["ed_stays"])
    write_split_file(writer.staged(SPLIT_FILE), splitter.assigned)
    return {
        "files": [INSTANCES_FILE, PARQUET_FILE, SPLIT_FILE],
        "task": v.task,
        "counts": {
            **counts,
            "instances": writer.written,
            **dict(sorted(tally.items())),
            **{f"{split}_subjects": len(ids) for split, ids in sorted(subjects.items())},
        },
        "sections_absent_source": [name for name, t in tables.items() if t is None],
    }


def _instance(
    row: dict[str, Any], v: Variant, opts: Any, splitter: Splitter, tally: Counter[str]
) -> dict[str, Any] | None:
    sections = {s.name: s.render(row[s.name], opts) for s in v.sections}
    missing = [name for name in v.required if sections[name] is None]
    if missing:
        tally[f"excluded_no_{missing[0]}"] += 1
        return None
    target, references = v.target(row["target"])
    if target is None and not references:
        tally["excluded_no_target"] += 1
        return None
    headers = {s.name: s.header for s in v.sections}
    text = "\n".join(f"{headers[name]}: {value}" for name, value in sections.items() if value is not None)
    vitals = row["triage_values"] or {}
    meta: dict[str, Any] = {
        "age": row["age"],
        "sex": row["sex"],
        "race": row["race"],
        "arrival": row["arrival"],
        **{f"triage_{f}": vitals.get(f"triage_{f}") for f in VITALS},
    }
    if v.acuity_in_meta:
        meta["acuity"] = row["acuity"]
    record: dict[str, Any] = {
        "id": f"{v.task}-{row['stay_id']}",
        "subject_id": row["subject_id"],
        "task": v.task,
        "split": splitter(row["subject_id"]),
        "sections": sections,
        "text": text,
        "references": references,
        "meta": meta,
        "history": None,
        "hadm_id": None,  # whether an admission exists is the disposition itself
        "stay_id": row["stay_id"],
        "t0": row["t0"].isoformat(sep=" ") if row["t0"] is not None else None,
    }
    if v.text_target:
        record["target"] = target
    return record
