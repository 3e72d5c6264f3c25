"""``generate_synthetic``: write a synthetic MIMIC-IV root (gzip CSV, PhysioNet layout) plus ``_truth/``.

Patients are generated in fixed-size chunks by up to ``workers`` processes; each chunk becomes one
gzip member per table, appended in chunk order. Memory stays bounded by a few chunks in flight,
and because every patient draws from its own RNG and chunk boundaries do not depend on the number
of workers, the same seed gives byte-identical files on any machine and with any ``workers``.
Files are written as ``*.part`` and renamed at the end, so an interrupted run never leaves a root
that looks complete.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from admitdx import __version__
from admitdx.concurrency import default_sigterm
from admitdx.errors import UsageError
from admitdx.synthetic import ids
from admitdx.synthetic.calibration import Knobs
from admitdx.synthetic.chunk import compress, csv_bytes, run_chunk
from admitdx.synthetic.condition import ed_title, long_title
from admitdx.synthetic.library import library_codes
from admitdx.synthetic.tables import FILES, PER_PATIENT, header
from admitdx.synthetic.truth import META_FILE, TRUTH_DIR, TRUTH_FILES
from admitdx.synthetic.vocab import LABS, TEXT_LABS

CHUNK_SIZE = 250  # patients per gzip member; part of the output's identity (recorded in meta.json)
# 2: icu/icustays, CliniBench codes per admission, discharge-note section truth; 3 (issue 21): ED
# stays that end in every disposition, the demo's triage/vitals gaps, real OMR and heading spellings
GENERATOR_VERSION = 3


@dataclass
class SynthSummary:
    root: Path
    patients: int
    seed: int
    seconds: float
    rows: dict[str, int] = field(default_factory=dict)

    @property
    def total_rows(self) -> int:
        return sum(v for k, v in self.rows.items() if not k.startswith("_"))


def _dictionary_rows() -> dict[str, list[tuple[object, ...]]]:
    codes = library_codes()
    for code, version in codes:
        ed_title(code, version)  # warm the per-process title caches before workers fork
    labs = [(i.itemid, i.label, i.fluid, i.category) for i in LABS.values()]
    labs += [(v[0], v[1], v[2], v[3]) for v in TEXT_LABS.values()]
    return {
        "hosp.d_icd_diagnoses": [(code, version, long_title(code, version)) for code, version in codes],
        "hosp.d_labitems": sorted(labs),
    }


def _chunks(patients: int, seed: int, knobs: Knobs, level: int) -> list[tuple[int, int, int, Knobs, int]]:
    return [(s, min(CHUNK_SIZE, patients - s), seed, knobs, level) for s in range(0, patients, CHUNK_SIZE)]


def _results(tasks: list, workers: int) -> Iterator[tuple[dict[str, bytes], bytes, dict[str, int]]]:
    if workers <= 1:
        yield from map(run_chunk, tasks)
        return
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with multiprocessing.get_context(method).Pool(workers, initializer=default_sigterm) as pool:
        yield from pool.imap(run_chunk, tasks)


def generate_synthetic(
    out_dir: Path,
    patients: int,
    seed: int,
    *,
    workers: int | None = None,
    compresslevel: int = 3,
    knobs: Knobs | None = None,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> SynthSummary:
    """Write ``patients`` synthetic patients under ``out_dir``; same seed → byte-identical files.

    ``workers`` defaults to up to two processes for large runs (one below 2,000 patients, where
    process start-up costs more than it saves). ``progress(done, total)`` is called per chunk.
    """
    if patients < 1 or patients > ids.MAX_PATIENTS:
        raise UsageError(f"--patients must be between 1 and {ids.MAX_PATIENTS:,}, not {patients}")
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise UsageError(f"{out} exists and is not empty", hint="choose a new --out folder or pass --force")
    knobs = knobs or Knobs()
    if workers is None:
        workers = 1 if patients < 2000 else min(2, os.cpu_count() or 1)
    started = time.perf_counter()
    tmp = {t: out / (FILES[t] + ".part") for t in FILES}
    truth_paths = {name: out / TRUTH_DIR / name for name in TRUTH_FILES}
    for path in [*tmp.values(), *truth_paths.values()]:
        path.parent.mkdir(parents=True, exist_ok=True)
    rows: dict[str, int] = {}
    for table, table_rows in _dictionary_rows().items():
        tmp[table].write_bytes(compress(csv_bytes(table_rows, header(table)), compresslevel))
        rows[table] = len(table_rows)
    handles = {t: tmp[t].open("wb") for t in PER_PATIENT}
    truth_tmp = {name: path.with_name(path.name + ".part") for name, path in truth_paths.items()}
    truth_handles = {name: path.open("wb") for name, path in truth_tmp.items()}
    try:
        for t in PER_PATIENT:
            handles[t].write(compress(csv_bytes([], header(t)), compresslevel))
        done = 0
        for members, truth_members, counts in _results(
            _chunks(patients, seed, knobs, compresslevel), workers
        ):
            for t in PER_PATIENT:
                handles[t].write(members[t])
            for name, member in truth_members.items():
                truth_handles[name].write(member)
            for name, n in counts.items():
                rows[name] = rows.get(name, 0) + n
            done = min(patients, done + CHUNK_SIZE)
            if progress:
                progress(done, patients)
    finally:
        for h in [*handles.values(), *truth_handles.values()]:
            h.close()
    # An overwritten root loses every old table before the new ones move in: a kill between the
    # renames leaves tables missing (which `data check` and `build` refuse), never a root that mixes
    # two seeds; meta.json, written last, marks a complete root.
    for old in [out / TRUTH_DIR / META_FILE, *(out / f for f in FILES.values()), *truth_paths.values()]:
        old.unlink(missing_ok=True)
    for t, path in tmp.items():
        path.replace(out / FILES[t])
    for name, path in truth_tmp.items():
        path.replace(truth_paths[name])
    meta = {
        "generator": "admitdx.synthetic",
        "generator_version": GENERATOR_VERSION,
        "admitdx_version": __version__,
        "seed": seed,
        "patients": patients,
        "chunk_size": CHUNK_SIZE,
        "compresslevel": compresslevel,
        "knobs": knobs._asdict(),
        "rows": dict(sorted(rows.items())),
    }
    (out / TRUTH_DIR / META_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return SynthSummary(out, patients, seed, time.perf_counter() - started, dict(sorted(rows.items())))
