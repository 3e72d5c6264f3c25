"""Same seed → byte-identical files, whatever the number of worker processes."""

from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from admitdx.errors import UsageError
from admitdx.synthetic import generate_synthetic
from admitdx.synthetic.generate import CHUNK_SIZE


def _digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_same_seed_same_bytes_different_seed_different(tmp_path: Path) -> None:
    a = _digests(generate_synthetic(tmp_path / "a", patients=40, seed=11).root)
    b = _digests(generate_synthetic(tmp_path / "b", patients=40, seed=11).root)
    c = _digests(generate_synthetic(tmp_path / "c", patients=40, seed=12).root)
    assert a == b
    # 24 tables (with icu/icustays) + _truth/encounters.jsonl.gz, discharge_sections.jsonl.gz, meta.json
    assert len(a) == 27
    assert a["hosp/patients.csv.gz"] != c["hosp/patients.csv.gz"]
    assert (
        a["hosp/d_labitems.csv.gz"] == c["hosp/d_labitems.csv.gz"]
    )  # dictionaries do not depend on the seed


def test_workers_do_not_change_the_output(tmp_path: Path) -> None:
    n = CHUNK_SIZE + 30  # two chunks, so two processes really share the work
    one = _digests(generate_synthetic(tmp_path / "one", patients=n, seed=5, workers=1).root)
    two = _digests(generate_synthetic(tmp_path / "two", patients=n, seed=5, workers=2).root)
    assert one == two


def test_a_patient_does_not_depend_on_the_cohort_size(tmp_path: Path) -> None:
    """Per-patient RNG: the first patients of a bigger run are the same people."""
    small = generate_synthetic(tmp_path / "s", patients=5, seed=3).root
    large = generate_synthetic(tmp_path / "l", patients=9, seed=3).root
    with gzip.open(small / "hosp/patients.csv.gz", "rt") as f:
        rows_small = f.read().splitlines()
    with gzip.open(large / "hosp/patients.csv.gz", "rt") as f:
        rows_large = f.read().splitlines()
    assert rows_large[: len(rows_small)] == rows_small


def test_refuses_bad_requests(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        generate_synthetic(tmp_path / "x", patients=0, seed=1)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    with pytest.raises(UsageError, match="not empty"):
        generate_synthetic(tmp_path / "full", patients=3, seed=1)
    assert not (tmp_path / "full" / "hosp").exists()


def test_bytes_do_not_depend_on_string_hashing(tmp_path: Path) -> None:
    """Two fresh interpreters with different PYTHONHASHSEED write the same files (no set-order leaks)."""
    code = (
        "import sys; from admitdx.synthetic import generate_synthetic; generate_synthetic(sys.argv[1], 30, 9)"
    )
    for name, hash_seed in (("h1", "1"), ("h2", "2")):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([sys.executable, "-c", code, str(tmp_path / name)], check=True, env=env, timeout=300)
    assert _digests(tmp_path / "h1") == _digests(tmp_path / "h2")
