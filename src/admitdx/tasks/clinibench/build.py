"""``build_clinibench``: MIMIC-IV (+ MIMIC-IV-Note) root → one dataset per (module, ICD version).

Two passes over the notes, memory bounded by one batch of notes plus one small record per patient
and stratum:

1. DuckDB joins each admission's discharge note (the latest ``note_seq`` when there are several)
   to its admission, its billed codes and whether ``icu/icustays`` has a row for it. Python cuts
   each note into the admission note (:mod:`.note`) and rolls the codes up (:mod:`.labels`), and
   spools the result to a temporary JSON-lines file once for all datasets.
2. Patients are split once for all datasets, by grouped iterative stratification (:mod:`.stratify`)
   of one stratum (ICU stay or not × ICD version) after another, a patient placed by an earlier
   stratum keeping its split (:func:`_split`); so every dataset is stratified and no patient is in
   train of one dataset and test of another.
3. Per dataset: the labels present in all three splits are the evaluated vocabulary, and the spool
   is read again to write the instances with their evaluated labels
   (:mod:`admitdx.tasks.dataset_writer`).

Modules (``hosp_icu``): icu holds the admissions with an ICU stay; hosp, by default, the others,
so the two are disjoint as the paper's table 1 implies (its four datasets sum to 99.0 % of
MIMIC-IV-Note); ``hosp_icu="include"`` puts every admission in hosp.

Labels absent from any split (appendix A.2) are removed from ``Instance.references`` — what every
system is trained on and scored against is the evaluated vocabulary — and kept per instance in the
leaky meta field ``excluded_codes`` and per dataset in ``labels.csv`` (``evaluated`` = 0) and the
manifest, so nothing is lost.
"""

from __future__ import annotations

import csv
import json
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from admitdx.contracts import INSTANCES_FILE
from admitdx.errors import InputError, UsageError, output_errors, writable_dir
from admitdx.runs import fingerprint_files, finished_outputs, write_manifest
from admitdx.sources.files import discover_tables
from admitdx.sources.mimic import MimicSource, Needs, open_mimic
from admitdx.tasks.clinibench.labels import CODE_SYSTEMS, Titles, roll_up_codes
from admitdx.tasks.clinibench.note import admission_note
from admitdx.tasks.clinibench.params import MODULES, SECTION_NAMES, CliniBenchParams, variant_name
from admitdx.tasks.clinibench.stats import dataset_counts, table_one, tokens
from admitdx.tasks.clinibench.stratify import iterative_stratification
from admitdx.tasks.dataset_writer import (
    CARD_FILE,
    PARQUET_FILE,
    InstanceWriter,
    configs_card,
    instance_schema,
)
from admitdx.tasks.spec import Progress
from admitdx.tasks.split import SPLIT_FILE, read_split_file, write_split_file

TASK = "clinibench"
STAGE = "build clinibench"
LABELS_FILE = "labels.csv"
SPLITS = ("train", "val", "test")
FETCH_ROWS = 2000
NOTE_MODULE_HINT = (
    "CliniBench needs MIMIC-IV-Note: download note/discharge.csv.gz from PhysioNet "
    "(mimic-iv-note) and place its note/ folder beside hosp/"
)

_S, _I = pa.string(), pa.int64()
META = (("note_id", _S), ("icd_version", _I), ("excluded_codes", _S), ("main_scored_as_miss", pa.bool_()))
SCHEMA = instance_schema(SECTION_NAMES, META)

_NOTES_SQL = """
    WITH dx AS (
        SELECT hadm_id, mode(icd_version) AS version, count(DISTINCT icd_version) AS versions,
               list(struct_pack(seq := seq_num, code := trim(icd_code)) ORDER BY seq_num) AS codes
        FROM hosp.diagnoses_icd WHERE icd_code IS NOT NULL AND trim(icd_code) <> ''
        GROUP BY hadm_id
    ), n AS (
        SELECT note_id, subject_id, hadm_id, text FROM note.discharge WHERE hadm_id IS NOT NULL
        QUALIFY row_number() OVER (PARTITION BY hadm_id
                                   ORDER BY note_seq DESC, charttime DESC, note_id DESC) = 1
    )
    SELECT n.note_id, n.subject_id, n.hadm_id, CAST(a.admittime AS VARCHAR) AS admittime,
           dx.version, dx.versions, dx.codes, {icu} AS icu, CAST(n.text AS VARCHAR) AS text
    FROM n JOIN hosp.admissions a ON a.hadm_id = n.hadm_id
    LEFT JOIN dx ON dx.hadm_id = n.hadm_id
    ORDER BY n.hadm_id
"""


def build_clinibench(
    mimic_dir: Path,
    out_dir: Path,
    params: CliniBenchParams,
    *,
    split_file: Path | None = None,
    progress: Progress | None = None,
    memory_limit: str = "3GB",
    force: bool = False,
) -> dict[str, Any]:
    """Build the CliniBench dataset(s) of ``mimic_dir`` into ``out_dir``; return the outputs.

    One (module, version) writes its dataset into ``out_dir``; several write one subfolder each
    (:func:`~admitdx.tasks.clinibench.params.variant_name`) and a top-level manifest listing them.
    """
    mimic_dir, out_dir = Path(mimic_dir), Path(out_dir)
    variants = params.variants()
    needs = _needs(mimic_dir, variants, params)
    if split_file and not params.group_by_patient:
        raise UsageError("--split-file assigns patients; it needs group_by_patient (the default)")
    fixed = read_split_file(split_file, SPLITS) if split_file else None
    writable_dir(out_dir)
    report = progress or (lambda stage, done, total: None)
    single = len(variants) == 1
    targets = {v: out_dir if single else out_dir / variant_name(*v) for v in variants}
    with open_mimic(mimic_dir, memory_limit=memory_limit, needs=needs) as src, output_errors(out_dir):
        inputs = {
            "mimic_dir": str(mimic_dir.resolve()),
            "source_files": src.fingerprints(),
            "split_file": fingerprint_files([split_file]) if split_file else None,
        }
        per_variant = {
            v: {**inputs, "params": {**params.to_dict(), "module": v[0], "icd_version": v[1]}}
            for v in variants
        }
        previous = {v: finished_outputs(targets[v], STAGE, per_variant[v]) for v in variants}
        if not force and all(p is not None for p in previous.values()):
            outputs = {variant_name(*v): previous[v] for v in variants}
            return {
                **(outputs[variant_name(*variants[0])] if single else {"datasets": outputs}),
                "skipped": True,
            }
        titles = Titles(_dictionary(src))
        with tempfile.TemporaryDirectory(dir=out_dir, prefix=".clinibench-") as tmp:
            spool = Path(tmp) / "notes.jsonl"
            src.con.execute(
                f"SET temp_directory = '{str(Path(tmp) / 'duckdb').replace(chr(39), chr(39) * 2)}'"
            )
            with src.translate_errors():
                scanned = _spool(src, params, spool, src.has("icu.icustays"), report)
            split = _split(spool, params, fixed)
            datasets = {}
            for v in variants:
                datasets[variant_name(*v)] = _write_dataset(
                    spool, targets[v], v, params, titles, scanned, split, per_variant[v], report
                )
    if single:
        return datasets[variant_name(*variants[0])]
    (out_dir / CARD_FILE).write_text(
        configs_card({name: out["counts"]["notes_per_split"] for name, out in datasets.items()}),
        encoding="utf-8",
    )
    outputs = {
        "datasets": datasets,
        "table_1": {name: table_one(out["counts"]) for name, out in datasets.items()},
        "files": [CARD_FILE, *(f"{name}/{INSTANCES_FILE}" for name in datasets)],
    }
    write_manifest(out_dir, stage=STAGE, inputs={**inputs, "params": params.to_dict()}, outputs=outputs)
    return outputs


#: The tables every CliniBench dataset reads (icu/icustays besides for --module icu).
REQUIRED = ("hosp.admissions", "hosp.diagnoses_icd", "note.discharge")


def _needs(mimic_dir: Path, variants: list[tuple[str, int]], p: CliniBenchParams) -> Needs:
    """The tables read; a missing note module or ICU table is refused here, naming what is missing.

    ``icu/icustays`` is read whenever the root has it (the split strata are per module), and
    required by an icu dataset and by a hosp dataset that excludes the ICU admissions."""
    found = discover_tables(mimic_dir)
    if "note.discharge" not in found:
        raise InputError(
            f"{mimic_dir} has no note/discharge table", table="note.discharge", hint=NOTE_MODULE_HINT
        )
    requires = list(REQUIRED)
    modules = {m for m, _ in variants}
    if "icu.icustays" in found:
        requires.append("icu.icustays")
    elif "icu" in modules:
        raise InputError(
            f"{mimic_dir} has no icu/icustays table, which --module icu needs to tell ICU admissions",
            table="icu.icustays",
            hint="add MIMIC-IV's icu/ module, or build --module hosp --hosp-icu include",
        )
    elif p.hosp_icu == "exclude":
        raise InputError(
            f"{mimic_dir} has no icu/icustays table, which --module hosp needs to leave out the ICU "
            "admissions (hosp and icu are disjoint by default)",
            table="icu.icustays",
            hint="add MIMIC-IV's icu/ module, or build --module hosp --hosp-icu include "
            "(hosp then holds every admission)",
        )
    return Needs(requires=tuple(requires), reads=("hosp.d_icd_diagnoses",))


def _dictionary(src: MimicSource) -> dict[tuple[str, int], str]:
    """MIMIC's titles of category-length codes (3 characters, 4 for ICD-9 E codes)."""
    if not src.has("hosp.d_icd_diagnoses"):
        return {}
    rows = src.con.execute(
        "SELECT upper(trim(icd_code)), icd_version, long_title FROM hosp.d_icd_diagnoses "
        "WHERE length(trim(icd_code)) <= 4"
    ).fetchall()
    return {(code, int(version)): title for code, version, title in rows if title}


def _spool(src: MimicSource, p: CliniBenchParams, spool: Path, icu: bool, report: Progress) -> dict[str, Any]:
    """Pass 1: every admission note with its labels, once for all datasets; returns what was dropped."""
    icu_sql = "EXISTS (SELECT 1 FROM icu.icustays i WHERE i.hadm_id = n.hadm_id)" if icu else "false"
    total = src.con.execute("SELECT count(DISTINCT hadm_id) FROM note.discharge").fetchone()[0]
    dropped: Counter[tuple[str, str, int]] = Counter()  # (reason, module, version)
    result = src.con.execute(_NOTES_SQL.format(icu=icu_sql))
    names = [d[0] for d in result.description]
    done = 0
    with spool.open("w", encoding="utf-8") as out:
        while batch := result.fetchmany(FETCH_ROWS):
            for values in batch:
                row = dict(zip(names, values, strict=True))
                record, reason = _note_record(row, p)
                modules = tuple(m for m in MODULES if _member(bool(row["icu"]), m, p))
                if reason:
                    for m in modules:
                        dropped[(reason, m, row["version"] or 0)] += 1
                    continue
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                if row["icu"] and p.hosp_icu == "exclude":
                    dropped[("icu_stay_in_icu_dataset", "hosp", record["version"])] += 1
                if row["versions"] and row["versions"] > 1:
                    for m in modules:
                        dropped[("mixed_icd_versions_kept_majority", m, row["version"])] += 1
            done += len(batch)
            report("notes", done, total)
    return {"dropped": dropped}


def _note_record(row: dict[str, Any], p: CliniBenchParams) -> tuple[dict[str, Any] | None, str | None]:
    text = row["text"] or ""
    note = admission_note(text, p.kept_sections(), p.physical_exam, p.allowed_headings())
    if note.headers_found == 0:
        raise InputError(
            f"discharge note {row['note_id']} (hadm_id {row['hadm_id']}) has no recognisable section header",
            table="note.discharge",
            column="text",
            hint="CliniBench reads MIMIC-IV-Note discharge summaries (headers such as 'Chief Complaint:' at "
            "a line start); remove or fix this note",
        )
    if not row["codes"]:
        return None, "no_diagnoses"
    if p.drop_empty_core and note.core_empty:
        return None, "empty_core_sections"
    version = int(row["version"])
    labels = roll_up_codes([(c["seq"], c["code"]) for c in row["codes"]], version)
    return {
        "note_id": row["note_id"],
        "subject_id": row["subject_id"],
        "hadm_id": row["hadm_id"],
        "admittime": row["admittime"],
        "version": version,
        "icu": bool(row["icu"]),
        "sections": note.sections,
        "text": note.text,
        "exam_cut": note.discharge_exam_cut,
        "withheld": [list(w) for w in note.withheld],
        "labels": [[lab.code, lab.seq_num, list(lab.full_codes)] for lab in labels],
    }, None


def _member(icu: bool, module: str, p: CliniBenchParams) -> bool:
    """Whether an admission (with an ICU stay or not) belongs to ``module``'s datasets."""
    return icu if module == "icu" else (p.hosp_icu == "include" or not icu)


def _records(
    spool: Path, p: CliniBenchParams, variant: tuple[str, int] | None = None
) -> Iterator[dict[str, Any]]:
    """The spooled notes of one (module, version) dataset, or every note (``variant`` None)."""
    with spool.open(encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if variant is None or (rec["version"] == variant[1] and _member(rec["icu"], variant[0], p)):
                yield rec


def _stratum(rec: dict[str, Any]) -> str:
    """The dataset a note is stratified in: its module (icu when it has an ICU stay) and version."""
    return variant_name("icu" if rec["icu"] else "hosp", rec["version"])


def _split(spool: Path, p: CliniBenchParams, fixed: dict[int, str] | None) -> tuple[dict[Any, str], set[Any]]:
    """Group (patient, or note when ungrouped) → split for every note of the root, once for all
    datasets; and the groups a split file did not assign (none without a split file).

    The strata (module by ICU stay, and ICD version) are stratified one after another, smallest
    first, each by its own notes and labels; a group placed by an earlier stratum (or the split
    file) keeps its split there and counts against the later stratum's wants. So the small icu
    datasets get the closest balance and every dataset lands near 70/10/20."""
    strata: dict[str, dict[Any, tuple[int, Counter[str]]]] = {}
    for rec in _records(spool, p):
        key = rec["subject_id"] if p.group_by_patient else rec["hadm_id"]
        groups = strata.setdefault(_stratum(rec), {})
        n, counts = groups.get(key, (0, Counter()))
        counts.update(lab[0] for lab in rec["labels"])
        groups[key] = (n + 1, counts)
    placed: dict[Any, str] = dict(fixed or {})
    for name in sorted(strata, key=lambda s: (sum(n for n, _ in strata[s].values()), s)):
        placed |= iterative_stratification(strata[name], p.fractions(), p.seed, placed)
    every = set().union(*strata.values()) if strata else set()
    return placed, (every - fixed.keys()) if fixed else set()


def _write_dataset(
    spool: Path,
    out_dir: Path,
    variant: tuple[str, int],
    p: CliniBenchParams,
    titles: Titles,
    scanned: dict[str, Any],
    split: tuple[dict[Any, str], set[Any]],
    inputs: dict[str, Any],
    report: Progress,
) -> dict[str, Any]:
    module, version = variant
    name = variant_name(module, version)
    writable_dir(out_dir)
    key = "subject_id" if p.group_by_patient else "hadm_id"
    every_group, free = split
    assignment: dict[Any, str] = {}
    per_split: dict[str, Counter[str]] = {s: Counter() for s in SPLITS}
    total = 0
    for rec in _records(spool, p, variant):
        assignment[rec[key]] = every_group[rec[key]]
        per_split[assignment[rec[key]]].update(lab[0] for lab in rec["labels"])
        total += 1
    every = set().union(*per_split.values())
    evaluated = (
        {lab for lab in every if all(per_split[s][lab] for s in SPLITS)} if p.exclude_absent_labels else every
    )
    writer = InstanceWriter(out_dir, SCHEMA)
    try:
        notes = Counter[str]()
        token_counts: list[int] = []
        full_codes: set[str] = set()
        codes_per_note: list[int] = []
        test_subjects: set[int] = set()
        main_excluded = exam_cut = 0
        withheld = Withheld()
        for i, rec in enumerate(_records(spool, p, variant)):
            split = assignment[rec[key]]
            kept = [lab for lab in rec["labels"] if lab[0] in evaluated]
            excluded = [lab[0] for lab in rec["labels"] if lab[0] not in evaluated]
            main_out = bool(rec["labels"]) and rec["labels"][0][0] not in evaluated
            main_excluded += main_out
            exam_cut += rec["exam_cut"]
            withheld.add(rec["withheld"])
            miss = main_out if p.main_diagnosis == "miss" else None
            writer.write(_instance(rec, split, kept, excluded, version, titles, miss))
            notes[split] += 1
            if split == "test":
                test_subjects.add(rec["subject_id"])
            token_counts.append(len(tokens(rec["text"])))
            codes_per_note.append(len(rec["labels"]))
            full_codes.update(c for lab in rec["labels"] for c in lab[2])
            if i % FETCH_ROWS == 0:
                report(f"write {name}", i, total)
        report(f"write {name}", total, total)
        _write_labels(writer.staged(LABELS_FILE), per_split, evaluated, version, titles)
        if p.group_by_patient:
            write_split_file(writer.staged(SPLIT_FILE), assignment)
        counts = dataset_counts(
            notes=notes,
            tokens_per_note=token_counts,
            codes_per_note=codes_per_note,
            full_codes=len(full_codes),
            per_split=per_split,
            evaluated=evaluated,
            dropped={r: n for (r, m, v), n in scanned["dropped"].items() if m == module and v == version},
        )
        counts["main_diagnosis_excluded"] = main_excluded
        counts["discharge_exam_cut"] = exam_cut
        counts["split_subjects_not_in_file"] = len(free & assignment.keys())
        counts["test_subjects"] = len(test_subjects)  # for the small-split warning, grouped or not
        if p.group_by_patient:
            counts["subjects"] = dict(sorted(Counter(assignment.values()).items()))
        files = [INSTANCES_FILE, PARQUET_FILE, LABELS_FILE] + ([SPLIT_FILE] if p.group_by_patient else [])
        outputs = {
            "dataset": name,
            "module": module,
            "icd_version": version,
            "files": files,
            "counts": counts,
            "excluded_labels": sorted(every - evaluated),
            "withheld_headings": withheld.summary(),
            "tokenizer": TOKENIZER_NOTE,
        }
        write_manifest(writer.staging, stage=STAGE, inputs=inputs, outputs=outputs)
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    return outputs


class Withheld:
    """What the fail-closed reader withheld from a dataset's notes (issue 29): sections and
    characters by section name, and the spellings of the headings it did not recognise."""

    def __init__(self) -> None:
        self.sections: Counter[str] = Counter()
        self.characters = 0
        self.unrecognised: Counter[str] = Counter()

    def add(self, withheld: list[list[Any]]) -> None:
        for name, heading, chars in withheld:
            self.sections[name] += 1
            self.characters += chars
            if name == "unrecognised":
                self.unrecognised[" ".join(heading.split())] += 1

    def summary(self) -> dict[str, Any]:
        return {
            "sections": sum(self.sections.values()),
            "characters": self.characters,
            "by_section": dict(sorted(self.sections.items())),
            "unrecognised": sum(self.unrecognised.values()),
            "unrecognised_spellings": dict(self.unrecognised.most_common(UNRECOGNISED_LISTED)),
        }


#: How many unrecognised heading spellings a manifest lists (the most frequent).
UNRECOGNISED_LISTED = 50

TOKENIZER_NOTE = (
    "words and single punctuation marks (BERT's basic pre-WordPiece split, regex \\w+|[^\\w\\s]); "
    "the paper counts BioMedBERT WordPiece tokens, which are at least as many"
)


def _instance(
    rec: dict[str, Any],
    split: str,
    kept: list[list[Any]],
    excluded: list[str],
    version: int,
    titles: Titles,
    main_miss: bool | None,
) -> dict[str, Any]:
    system = CODE_SYSTEMS[version]
    return {
        "id": f"{TASK}-{rec['hadm_id']}",
        "subject_id": rec["subject_id"],
        "task": TASK,
        "split": split,
        "sections": rec["sections"],
        "text": rec["text"],
        "references": [
            {"text": titles(code, version), "code": code, "code_system": system, "seq_num": seq}
            for code, seq, _ in kept
        ],
        "meta": {
            "note_id": rec["note_id"],
            "icd_version": version,
            "excluded_codes": ",".join(excluded) or None,
            "main_scored_as_miss": main_miss,
        },
        "history": None,
        "hadm_id": rec["hadm_id"],
        "stay_id": None,
        "t0": rec["admittime"],
    }


def _write_labels(
    path: Path, per_split: dict[str, Counter[str]], evaluated: set[str], version: int, titles: Titles
) -> None:
    """``code, title, train, val, test, evaluated``: notes carrying each label, per split."""
    every = sorted(set().union(*per_split.values()))
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["code", "title", *SPLITS, "evaluated"])
        for code in every:
            w.writerow(
                [code, titles(code, version), *(per_split[s][code] for s in SPLITS), int(code in evaluated)]
            )


def read_vocabulary(dataset_dir: Path) -> list[str]:
    """The evaluated labels of a built dataset (``labels.csv`` rows with ``evaluated`` = 1)."""
    path = Path(dataset_dir) / LABELS_FILE
    if not path.is_file():
        raise UsageError(
            f"{dataset_dir} has no {LABELS_FILE}", hint="build it with `admitdx build clinibench`"
        )
    with path.open(newline="", encoding="utf-8") as f:
        return [row["code"] for row in csv.DictReader(f) if row["evaluated"] == "1"]


__all__ = ["LABELS_FILE", "SCHEMA", "build_clinibench", "read_vocabulary"]
