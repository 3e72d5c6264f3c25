"""Issue 30, class 3: deleting ``.admitdx.lock`` let a second writer in.

The single-writer lock was an ``flock`` on the file ``.admitdx.lock``; deleting that file while a
run held it let a second identical ``predict`` lock a new file of the same name and append beside
the first (64 lines for 40 instances, 24 model calls paid twice, manifest ``complete: true``). The
lock is now held on the output directory itself, so no file in it can take the lock away.

Two real processes: a holder that takes the lock as every stage does and keeps it, and a second
``admitdx predict`` started after the lock file was deleted.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from admitdx.runs import LOCK_FILE
from adversarial_runs import write_dataset

HOLD = (
    "import sys, time\nfrom admitdx.runs import exclusive\n"
    "with exclusive(sys.argv[1], sys.argv[2]):\n    print('held', flush=True)\n    time.sleep(600)"
)


def _holder(out: Path, stage: str) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(out), stage], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def _predict(dataset: Path, out: Path) -> subprocess.CompletedProcess[str]:
    cli = [sys.executable, "-c", "from admitdx.cli import main; main()"]
    args = ["predict", "--dataset", str(dataset), "--system", "frequency", "--out", str(out)]
    return subprocess.run([*cli, *args], capture_output=True, text=True, timeout=300, check=False)


def test_a_deleted_lock_file_does_not_let_a_second_writer_in(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds", {"e0", "e1", "e2", "e3"})
    out = tmp_path / "pred"
    holder = _holder(out, "predict")
    try:
        (out / LOCK_FILE).unlink()  # a careless colleague's clean-up, mid-run
        second = _predict(ds, out)
        assert second.returncode == 2, second.stderr
        assert "being written by another admitdx run" in " ".join(second.stderr.split())
        assert "Traceback" not in second.stderr
        assert not (out / "predictions.jsonl").exists()  # the second run wrote nothing
    finally:
        holder.kill()  # SIGKILL: the lock dies with its holder
        holder.wait(30)
    after = _predict(ds, out)
    assert after.returncode == 0, after.stderr
    assert (out / "predictions.jsonl").read_bytes().count(b"\n") == 4


def test_a_lock_file_replaced_by_another_file_does_not_either(tmp_path: Path) -> None:
    """Deleted and made again (an editor saving over it, a sync tool restoring it): still refused,
    and the refusal names the holder the new file claims nothing about."""
    ds = write_dataset(tmp_path / "ds", {"e0", "e1", "e2", "e3"})
    out = tmp_path / "pred"
    holder = _holder(out, "score")
    try:
        (out / LOCK_FILE).unlink()
        (out / LOCK_FILE).write_text("", encoding="utf-8")
        second = _predict(ds, out)
        assert second.returncode == 2 and "(another process)" in " ".join(second.stderr.split())
        third = _predict(ds, out)  # and again: the holder still holds
        assert third.returncode == 2
    finally:
        holder.kill()
        holder.wait(30)
    assert not (out / "predictions.jsonl").exists()


def test_the_refusal_still_names_the_holder_while_its_file_is_there(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds", {"e0", "e1"})
    out = tmp_path / "pred"
    holder = _holder(out, "match")
    try:
        second = _predict(ds, out)
        assert second.returncode == 2 and f"match, pid {holder.pid}" in " ".join(second.stderr.split())
    finally:
        holder.kill()
        holder.wait(30)
