"""Scoring systems in forked workers writes what scoring them in one process writes, byte for byte,
and raises the error the serial order meets first, whole (class, message, hint, file and line)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.scoring_data import ref, write_dataset, write_system

from admitdx.contracts import Instance, Reference
from admitdx.errors import AdmitdxError, InputError, UsageError
from admitdx.metrics import bootstrap
from admitdx.runs import read_manifest, write_manifest
from admitdx.scoring import parallel
from admitdx.scoring.run import PER_INSTANCE_FILE, RESULTS_FILE, ScoreParams, score_run

CLASSES = ["supported", "partial", "unsupported"]
TITLES = ["NSTEMI", "Sepsis", "Pneumonia", "Pulmonary embolism", "COPD", "Hip fracture", "Syncope", "UTI"]
CODES = ["I214", "A419", "J189", "I269", "J449", "S72001A", "R55", "N390"]


def _instances(n: int = 240) -> list[Instance]:
    rng = random.Random(3)
    out = []
    for k in range(n):
        chosen = rng.sample(range(len(TITLES)), rng.randint(1, 3))
        refs = [
            ref(TITLES[j], rng.choice(CLASSES), CODES[j], rng.random() < 0.4, s + 1)
            for s, j in enumerate(chosen)
        ]
        meta = {"age": rng.randint(18, 95), "sex": rng.choice("MF"), "acuity": rng.randint(1, 5)}
        out.append(Instance(f"e{k}", k // 2, "earlydx", "test", {"triage": "x"}, "x", refs, meta))
    return out


def _systems(root: Path, insts: list[Instance], n: int = 3) -> list[Path]:
    dirs = []
    for s in range(n):
        rng = random.Random(s)

        def choose(inst: Instance, rng: random.Random = rng) -> list[tuple[str, int | None]]:
            hits = [(r.text, j) for j, r in enumerate(inst.references) if rng.random() < 0.6]
            return hits + [("Fall", None)] * rng.randint(0, 2)

        dirs.append(write_system(root, f"sys{s}", insts, choose, suspected=lambda i, k: k == 1))
    return dirs


@pytest.fixture(scope="module")
def run_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("parallel")
    insts = _instances()
    return write_dataset(root / "ds", insts), _systems(root, insts)


def _files(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in (RESULTS_FILE, PER_INSTANCE_FILE)}


@pytest.mark.parametrize(
    "options", [{}, {"budget": 2}, {"bootstrap_universe": "split"}, {"common": True}, {"baseline": "sys1"}]
)
def test_forked_scoring_writes_the_serial_bytes(
    run_inputs: tuple[Path, list[Path]], tmp_path: Path, options: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset, dirs = run_inputs
    forks: list[int] = []
    fork_map = parallel.fork_map
    monkeypatch.setattr(
        parallel, "fork_map", lambda fn, n, workers: forks.append(workers) or fork_map(fn, n, workers)
    )
    serial = score_run(
        dataset, dirs, tmp_path / "one", ScoreParams(matcher="exact", n_bootstrap=200, jobs=1, **options)
    )
    forked = score_run(
        dataset, dirs, tmp_path / "two", ScoreParams(matcher="exact", n_bootstrap=200, jobs=2, **options)
    )
    assert forks == ([] if options.get("common") else [2])  # --common is scored in one process
    assert _files(tmp_path / "one") == _files(tmp_path / "two")
    assert serial == forked
    assert "jobs" not in serial["params"]  # an execution setting: not recorded
    manifests = [json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("one", "two")]
    assert manifests[0]["inputs"] == manifests[1]["inputs"] and "jobs" not in manifests[0]["inputs"]["params"]
    lines = (tmp_path / "two" / PER_INSTANCE_FILE).read_text().splitlines()
    n = serial["n_instances"]  # those with a label the audit supports (at least one)
    assert 100 < n < 240 and [json.loads(x)["system"] for x in lines] == [
        f"sys{s}" for s in range(3) for _ in range(n)
    ]


def test_progress_is_counted_in_the_parent(run_inputs: tuple[Path, list[Path]], tmp_path: Path) -> None:
    dataset, dirs = run_inputs
    calls: list[tuple[int, int]] = []
    results = score_run(
        dataset,
        dirs,
        tmp_path / "r",
        ScoreParams(matcher="exact", n_bootstrap=50, jobs=2),
        advance=lambda d, t: calls.append((d, t)),
    )
    n = results["n_instances"]
    assert calls == [(0, 3 * n), (n, 0), (n, 0), (n, 0)]


def _error(dataset: Path, dirs: list[Path], out: Path, jobs: int) -> AdmitdxError:
    with pytest.raises(AdmitdxError) as caught:
        score_run(dataset, dirs, out, ScoreParams(matcher="exact", n_bootstrap=50, jobs=jobs))
    return caught.value


def _same_error(dataset: Path, dirs: list[Path], tmp_path: Path) -> AdmitdxError:
    one, two = (_error(dataset, dirs, tmp_path / f"r{j}", j) for j in (1, 2))
    assert type(one) is type(two) and str(one) == str(two) and vars(one) == vars(two)
    return two


def test_a_damaged_line_is_named_whole_and_before_a_later_check(tmp_path: Path) -> None:
    insts = _instances(40)
    dataset = write_dataset(tmp_path / "ds", insts)
    dirs = _systems(tmp_path, insts, 4)
    # system 0 fails a check (predictions of another split); system 2's line 5 is damaged: reading
    # every system comes before checking any, so the damaged line is what both orders report
    made_on = read_manifest(dirs[0])["inputs"]["dataset"]
    write_manifest(dirs[0], stage="predict", inputs={"dataset": made_on, "split": "val"}, outputs={})
    path = dirs[2] / "predictions.jsonl"
    lines = path.read_text().splitlines()
    lines[4] = lines[4].replace('"instance_id"', '"instance"')
    path.write_text("\n".join(lines) + "\n")
    error = _same_error(dataset, dirs, tmp_path)
    assert isinstance(error, InputError) and error.table == str(path) and error.row == 5
    assert error.hint and "rerun `admitdx predict`" in error.hint
    path.write_text("\n".join(lines[:4] + lines[5:]) + "\n")  # repaired: now the check speaks
    error = _same_error(dataset, dirs, tmp_path)
    assert isinstance(error, UsageError) and "the 'val' split" in str(error)


def test_names_are_checked_before_scoring_errors(tmp_path: Path) -> None:
    insts = _instances(40)
    dataset = write_dataset(tmp_path / "ds", insts)
    dirs = _systems(tmp_path, insts, 3)
    (dirs[1] / "matches" / "exact.jsonl").write_text("")  # unfinished matching: a scoring error
    error = _same_error(dataset, dirs, tmp_path)
    assert "predictions have no match" in str(error)
    error = _error(dataset, [*dirs, dirs[0]], tmp_path / "dup", 2)
    assert "same system name" in str(error)


def test_a_failure_carries_the_whole_error() -> None:
    error = InputError("not a prediction", table="p.jsonl", row=7, hint="restore it")
    back = parallel.Failure.of("load", error).error()
    assert type(back) is InputError and str(back) == str(error) and (back.table, back.row) == ("p.jsonl", 7)


def test_worker_count() -> None:
    assert parallel.worker_count(None, 1) == 1
    assert parallel.worker_count(8, 3) == 3
    assert parallel.worker_count(1, 5) == 1
    with pytest.raises(UsageError, match="jobs must be at least 1"):
        ScoreParams(jobs=0)


def test_instances_read_by_the_fast_path_are_those_init_builds() -> None:
    inst = _instances(3)[1]
    record = inst.to_dict()
    back = Instance.from_dict(record)
    assert back == inst and list(vars(back)) == list(vars(inst))  # same attributes, same order
    assert vars(back.references[0]) == vars(inst.references[0])
    assert type(back.references[0]) is Reference and back.target is None
    # the generic reader takes the rest: an unknown key is ignored, a missing meta is a fresh dict,
    # a missing field is refused as before
    odd = Instance.from_dict({**record, "new_field": 1, "references": [{"text": "x", "later": 2}]})
    assert odd.references == [Reference(text="x")] and not hasattr(odd, "new_field")
    bare = {k: v for k, v in record.items() if k != "meta"}
    one, two = Instance.from_dict(bare), Instance.from_dict(bare)
    assert one.meta == {} and one.meta is not two.meta
    with pytest.raises(TypeError, match="text"):
        Instance.from_dict({k: v for k, v in record.items() if k != "text"})


def test_matrices_drawn_side_by_side_are_those_drawn_alone() -> None:
    run = bootstrap.resample_weights(40, 30, 5)
    drawn = bootstrap.resample_weights_for([40, 25, 33, 25], 30, 5, run)
    assert sorted(drawn) == [25, 33, 40] and drawn[40] is run
    for n, matrix in drawn.items():
        assert np.array_equal(matrix, bootstrap.resample_weights(n, 30, 5))


def test_products_after_the_blas_threads_rest_are_unchanged() -> None:
    rng = np.random.default_rng(0)
    weights = bootstrap.resample_weights(3000, 400, 1)
    per_subject = rng.random((3000, 12))
    before = weights @ per_subject
    for _ in range(3):  # each call ends OpenBLAS's idle threads; the next product starts them again
        bootstrap._rest_blas_threads()
        assert np.array_equal(weights @ per_subject, before)


def test_workers_take_sigterm_as_the_default_whatever_the_parent_set() -> None:
    """The pool ends its workers with SIGTERM: a worker that inherited a handler or a blocked SIGTERM
    from its parent (a Ray driver's) outlived it once in CI, and the parent joined it forever. Run in
    a child process, so the handler and mask stay out of this one."""
    script = (
        "import signal; from admitdx.scoring import parallel\n"
        "signal.signal(signal.SIGTERM, lambda *_: None)\n"
        "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})\n"
        "def state(k):\n"
        "    blocked = signal.SIGTERM in signal.pthread_sigmask(signal.SIG_BLOCK, set())\n"
        "    return (k, signal.getsignal(signal.SIGTERM) == signal.SIG_DFL, blocked)\n"
        "print(list(parallel.fork_map(state, 4, 2)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True
    )
    assert done.stdout.strip() == str([(k, True, False) for k in range(4)])
