"""Helpers for the data-layer tests: the CLI run in-process or as a process (for permission and
full-disk cases), demo copies, and the damage a download or a disk can do to a ``.csv.gz``."""

from __future__ import annotations

import csv
import gzip
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from admitdx.cli import main
from earlydx_roots import ED_IN, HADM, STAY, SUBJECT, T0, base_tables, lab

Edit = Callable[[list[str], list[list[str]]], tuple[list[str], list[list[str]]]]


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """Run ``admitdx ARGS`` through the real entry point; returns (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["admitdx", *args])
    monkeypatch.setenv("COLUMNS", "250")  # keep rich from wrapping the messages asserted on
    with pytest.raises(SystemExit) as exit_info:
        main()
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def run_process(args: list[str], *, prefix: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """``admitdx ARGS`` as its own process (``python -m admitdx.cli``), behind ``prefix`` if given."""
    env = {**os.environ, "COLUMNS": "250"}
    cmd = [*(prefix or []), sys.executable, "-m", "admitdx.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=False)


def unprivileged() -> list[str]:
    """A command prefix under which file permissions apply: as root, ``setpriv`` drops the
    capabilities that let root read and write anything (uid stays 0, so the pytest folders owned
    by root stay reachable); as another user, nothing."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: permission bits cannot be made to apply")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]


def full_disk(mountpoint: Path, size: str) -> list[str]:
    """A command prefix that runs the command with a ``size`` tmpfs mounted at ``mountpoint`` (in a
    private mount namespace, so nothing outlives it): a real full disk, not a simulated error."""
    mountpoint.mkdir(parents=True, exist_ok=True)
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs '{mountpoint}'"],
        capture_output=True,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip(
            f"cannot mount a small tmpfs here (needs root and unshare): {probe.stderr.decode()[:200]}"
        )
    return [
        "unshare",
        "-m",
        "sh",
        "-c",
        f"mount -t tmpfs -o size={size} tmpfs '{mountpoint}' && exec \"$@\"",
        "sh",
    ]


def copy_tables(source: Path, root: Path, tables: list[str]) -> Path:
    """Copy ``module.table`` files (any suffix) from ``source`` into a new root (never linked: the
    tests damage them)."""
    for key in tables:
        module, table = key.split(".")
        (src,) = [p for p in (source / module).iterdir() if p.name.split(".")[0] == table]
        (root / module).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, root / module / src.name)
    return root


def rewrite_csv_gz(path: Path, edit: Edit) -> None:
    """Replace a ``.csv.gz`` table by an edited copy: ``edit(header, rows) -> (header, rows)``."""
    with gzip.open(path, "rt", newline="") as f:
        reader = csv.reader(f)
        header, rows = next(reader), list(reader)
    header, rows = edit(header, rows)
    path.unlink()
    with gzip.open(path, "wt", newline="") as f:
        csv.writer(f).writerows([header, *rows])


def gzip_stored(csv_path: Path) -> Path:
    """Replace ``x.csv`` by ``x.csv.gz`` written without compression (deflate "stored" blocks), so
    the file's bytes hold the CSV text verbatim and one flipped bit changes one character."""
    target = csv_path.with_name(csv_path.name + ".gz")
    target.write_bytes(gzip.compress(csv_path.read_bytes(), compresslevel=0))
    csv_path.unlink()
    return target


def flip_bit(path: Path, text: bytes, bit: int = 0) -> None:
    """Flip one bit of the first occurrence of ``text`` in the file, keeping its modification time
    (what bit rot or a bad copy does; the CSV inside still parses)."""
    data = bytearray(path.read_bytes())
    at = data.index(text)
    data[at] ^= 1 << bit
    stat = path.stat()
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def complete_tables() -> dict[str, list[dict[str, Any]]]:
    """``base_tables`` plus one row in each table ``data check`` requires that it leaves empty."""
    ids = {"subject_id": SUBJECT, "stay_id": STAY}
    return {
        **base_tables(),
        "hosp.transfers": [
            {**ids, "hadm_id": HADM, "transfer_id": 1, "eventtype": "ED", "intime": ED_IN, "outtime": T0}
        ],
        "hosp.diagnoses_icd": [
            {"subject_id": SUBJECT, "hadm_id": HADM, "seq_num": 1, "icd_code": "J189", "icd_version": 10}
        ],
        "hosp.labevents": [lab(50912, "2150-01-01 09:00:00", 1.1)],
        "hosp.omr": [
            {
                "subject_id": SUBJECT,
                "chartdate": "2149-12-01",
                "seq_num": 1,
                "result_name": "BMI",
                "result_value": "24.1",
            }
        ],
        "ed.vitalsign": [
            {**ids, "charttime": "2150-01-01 09:00:00", "heartrate": 104, "sbp": 110, "dbp": 70}
        ],
        "ed.medrecon": [{**ids, "charttime": "2150-01-01 08:30:00", "name": "Lisinopril", "etc_rn": 1}],
        "ed.pyxis": [
            {**ids, "charttime": "2150-01-01 09:30:00", "med_rn": 1, "name": "Acetaminophen", "gsn_rn": 1}
        ],
    }


def pad_triage(root: Path, rows: int = 20_000) -> None:
    """Append ``rows`` triage rows of stays that are not in ``edstays`` (no build reads them), so
    the table is large enough for verdicts about it to be remembered (MIN_REMEMBERED_BYTES)."""
    with (root / "ed" / "triage.csv").open("a", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        for i in range(rows):
            w.writerow(
                [SUBJECT, 40_000_000 + i, 98.6, 80, 16, 98, 120, 80, "0", 3, "Padding row, not a stay"]
            )
