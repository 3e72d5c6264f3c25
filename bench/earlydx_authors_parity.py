"""Run the EarlyDx authors' builder and ``admitdx build earlydx --reproduce authors`` on the same
roots and count the encounters whose input text or label list differ, for every setting asked.

Usage:
    python bench/earlydx_authors_parity.py --authors ~/src/EarlyDx --python ~/venv-authors/bin/python \\
        --windows 0,6,24 --timestamps charttime,storetime ../shared/data/mimic-iv-demo data/synth-7301
    … --time            # also wall time and peak memory of both builders, per root and setting
    … --save-theirs tests/data/earlydx_ties_authors.json tests/data/earlydx_ties   # the fixture's bytes

``--authors`` is a checkout of github.com/jimmylihui/EarlyDx at b79ac61 (their code is run from it,
never copied here); ``--python`` an interpreter with their pandas (the README names the versions).
Each root is laid out as their code reads it (``mimic-iv/3.1/hosp``, ``mimic-iv-ed/2.2/ed``,
``mimic-iv-note/2.2/note``, ``mimic-iv-ecg/1.0/machine_measurements.csv``,
``mimic-iv-echo/structured-measurement.csv.gz``) by :func:`their_layout`: links to the root's files,
and a file with the documented header and no rows for each module the root lacks (their builder
reads every one unconditionally). Their encounters whose label list is empty ("<answer></answer>")
are left out, as admitdx leaves them out; the script prints, per root and setting, the encounters
compared, those whose input text differs, those whose label list differs, and encounters only one
side has. It exits 1 when anything differs. ``--save-theirs FILE`` (one root) keeps their input
text and answer of every encounter with a label, per setting ("W0-charttime", …), as JSON.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from admitdx.sources.files import discover_tables
from admitdx.sources.schema import schema_for

QUESTION = "\n\nBased on this presentation, what are the patient's diagnoses?"

#: module.table → where their builder reads it (under the data root).
THEIR_PATHS = {
    **{
        f"hosp.{t}": f"mimic-iv/3.1/hosp/{t}.csv.gz"
        for t in (
            "admissions",
            "patients",
            "labevents",
            "d_labitems",
            "diagnoses_icd",
            "d_icd_diagnoses",
            "omr",
        )
    },
    **{
        f"ed.{t}": f"mimic-iv-ed/2.2/ed/{t}.csv.gz"
        for t in ("edstays", "diagnosis", "triage", "vitalsign", "medrecon")
    },
    "note.discharge": "mimic-iv-note/2.2/note/discharge.csv.gz",
    "note.radiology": "mimic-iv-note/2.2/note/radiology.csv.gz",
    "ecg.machine_measurements": "mimic-iv-ecg/1.0/machine_measurements.csv",
    "echo.structured_measurement": "mimic-iv-echo/structured-measurement.csv.gz",
}


def their_layout(root: Path, dest: Path) -> Path:
    """``dest`` laid out as their builder reads a data root, from the tables of ``root``."""
    tables = discover_tables(root)
    for key, relative in THEIR_PATHS.items():
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        tf = tables.get(key)
        gz = relative.endswith(".gz")
        if tf is None:
            schema = schema_for(*key.split("."))
            assert schema is not None
            line = ",".join(c.name for c in schema.columns) + "\n"
            target.write_bytes(gzip.compress(line.encode()) if gz else line.encode())
        elif tf.format != "csv":
            raise SystemExit(f"{tf.path}: their builder reads CSV only; give the CSV root")
        elif tf.gzipped == gz:
            target.symlink_to(tf.path.resolve())
        else:
            data = tf.path.read_bytes()
            target.write_bytes(gzip.compress(data) if gz else gzip.decompress(data))
    return dest


def _run(cmd: list[str], log: Path) -> dict[str, float]:
    """Run ``cmd`` (output to ``log``); its wall and CPU seconds (user + system, all threads) and
    peak resident memory in MB. On a shared machine the CPU seconds move less with the load."""
    started = time.perf_counter()
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed ({log}): {' '.join(cmd)}\n{log.read_text()[-2000:]}")
    return {
        "seconds": time.perf_counter() - started,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
    }


def theirs(path: Path) -> dict[str, tuple[str, str]]:
    """stay → (input text, answer) of their output, encounters with a label only."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        answer = row["messages"][1]["content"]
        if answer != "<answer></answer>":
            out[str(row["stay_id"])] = (row["messages"][0]["content"].split(QUESTION)[0], answer)
    return out


def ours(dataset: Path) -> dict[str, tuple[str, str]]:
    out = {}
    with (dataset / "instances.jsonl").open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            labels = "; ".join(r["text"] for r in row["references"])
            out[str(row["stay_id"])] = (row["text"], f"<answer>{labels}</answer>")
    return out


def compare(a: dict[str, tuple[str, str]], b: dict[str, tuple[str, str]]) -> dict[str, object]:
    both = sorted(set(a) & set(b), key=int)
    text = [s for s in both if a[s][0] != b[s][0]]
    labels = [s for s in both if a[s][1] != b[s][1]]
    return {
        "compared": len(both),
        "text_differs": len(text),
        "labels_differ": len(labels),
        "only_theirs": len(set(a) - set(b)),
        "only_ours": len(set(b) - set(a)),
        "first_text_differs": text[:5],
        "first_labels_differ": labels[:5],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+", type=Path)
    ap.add_argument("--authors", type=Path, required=True, help="their checkout at b79ac61")
    ap.add_argument("--python", default=sys.executable, help="interpreter with their pandas")
    ap.add_argument("--windows", default="0", help="comma-separated W (their builder: 0, 6, 24)")
    ap.add_argument("--timestamps", default="charttime", help="charttime,storetime")
    ap.add_argument("--work", type=Path, default=Path("out/authors-parity"))
    ap.add_argument("--time", action="store_true", help="print wall time and peak memory of both")
    ap.add_argument("--save-theirs", type=Path, help="write their text and answer per setting (one root)")
    a = ap.parse_args()
    if a.save_theirs and len(a.roots) != 1:
        ap.error("--save-theirs takes one root")
    saved: dict[str, dict[str, dict[str, str]]] = {}
    admitdx = [sys.executable, "-m", "admitdx.launcher"]
    differs = False
    for root in a.roots:
        work = a.work / root.resolve().name
        laid = their_layout(root, work / "their-root")
        index = work / "cohort_index.json"
        index.unlink(missing_ok=True)
        _run(
            [
                a.python,
                str(a.authors / "pipeline/make_cohort_index.py"),
                "--data-root",
                str(laid),
                "--out",
                str(index),
            ],
            work / "index.log",
        )
        for w in a.windows.split(","):
            for ts in a.timestamps.split(","):
                tag = f"w{w}-{ts}"
                out = work / f"theirs-{tag}.jsonl"
                for stale in (out, Path(f"{out}.meta.json")):
                    stale.unlink(missing_ok=True)
                t_theirs = _run(
                    [
                        a.python,
                        str(a.authors / "pipeline/build_planA.py"),
                        "--data-root",
                        str(laid),
                        "--cohort-index",
                        str(index),
                        "--out",
                        str(out),
                        "--window-hours",
                        w,
                        "--timestamp",
                        ts,
                    ],
                    work / f"theirs-{tag}.log",
                )
                ds = work / f"ours-{tag}"
                shutil.rmtree(ds, ignore_errors=True)
                t_ours = _run(
                    [
                        *admitdx,
                        "build",
                        "earlydx",
                        "--mimic",
                        str(root),
                        "--out",
                        str(ds),
                        "--reproduce",
                        "authors",
                        "--window-hours",
                        w,
                        "--timestamps",
                        ts,
                    ],
                    work / f"ours-{tag}.log",
                )
                their_rows = theirs(out)
                saved[f"W{w}-{ts}"] = {s: {"text": t, "answer": x} for s, (t, x) in their_rows.items()}
                result = compare(their_rows, ours(ds))
                differs |= any(
                    result[k] for k in ("text_differs", "labels_differ", "only_theirs", "only_ours")
                )
                if a.time:
                    result |= {
                        "theirs_s": round(t_theirs["seconds"], 1),
                        "theirs_cpu_s": round(t_theirs["cpu_s"], 1),
                        "theirs_mb": round(t_theirs["peak_mb"]),
                        "ours_s": round(t_ours["seconds"], 1),
                        "ours_cpu_s": round(t_ours["cpu_s"], 1),
                        "ours_mb": round(t_ours["peak_mb"]),
                        "ratio": round(t_theirs["seconds"] / t_ours["seconds"], 1),
                        "cpu_ratio": round(t_theirs["cpu_s"] / t_ours["cpu_s"], 1),
                    }
                print(json.dumps({"root": str(root), "W": int(w), "timestamps": ts, **result}), flush=True)
    if a.save_theirs:
        a.save_theirs.write_text(json.dumps(saved, indent=0, sort_keys=True, ensure_ascii=False) + "\n")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
