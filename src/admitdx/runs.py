"""Stage outputs and their manifests.

Every stage writes ``manifest.json`` into its output directory: what went in (content fingerprints
of input files, parameters, prompt-template hashes, package version) and what came out (counts).
A rerun compares the new inputs with the stored ones: equal means the stage can be skipped or
resumed; different means the old output is stale and must not be appended to.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import platform
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from admitdx import __version__
from admitdx.errors import InputError, UsageError, output_errors, writable_dir

MANIFEST_FILE = "manifest.json"
LOCK_FILE = ".admitdx.lock"


@contextmanager
def exclusive(out_dir: Path, stage: str) -> Iterator[None]:
    """Hold the output directory's single-writer lock while a stage writes into it.

    Two runs appending to one directory would write every record twice (and pay for every model
    call twice); the second one is refused at once instead. The lock is an ``flock`` on the
    directory itself, which the operating system releases when the holder exits — also after a
    ``kill -9`` — so a crashed run never leaves a stale lock behind. It was an ``flock`` on the file
    ``.admitdx.lock``, and deleting that file mid-run let a second run lock a new one and append
    beside the first (64 lines for 40 instances); no file inside the directory can take the lock
    away now. ``.admitdx.lock`` only names the holder, for the refusal's message.
    """
    out_dir = Path(out_dir)
    writable_dir(out_dir)  # an unwritable or full --out is a UsageError naming it, not a traceback
    with output_errors(out_dir):
        fd = os.open(out_dir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise UsageError(
            f"{out_dir} is being written by another admitdx run ({_holder(out_dir)})",
            hint="wait for it to finish, or choose another --out",
        ) from None
    try:
        with output_errors(out_dir):  # the holder's name is for people; a full disk must not crash here
            (out_dir / LOCK_FILE).write_text(
                f"{stage}, pid {os.getpid()}, since {datetime.now(UTC).isoformat(timespec='seconds')}\n",
                encoding="utf-8",
            )
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _holder(out_dir: Path) -> str:
    """The line the lock's holder wrote, for the refusal's message."""
    try:
        return (out_dir / LOCK_FILE).read_text(encoding="utf-8").strip() or "another process"
    except (OSError, UnicodeDecodeError):
        return "another process"


@contextmanager
def staged_dir(out_dir: Path) -> Iterator[Path]:
    """A folder whose files are committed together: the caller writes into the yielded sibling
    folder, which replaces ``out_dir`` by a rename only when the block ends without an error. A
    kill at any moment leaves the old ``out_dir`` (or none) and a hidden ``.NAME.*`` folder, never
    a file without its manifest: a subset's instances without the manifest that marks them a
    trial were taken by a rerun for the whole split."""
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_dir.with_name(f".{out_dir.name}.{os.getpid()}.tmp")
    old = out_dir.with_name(f".{out_dir.name}.{os.getpid()}.old")
    for leftover in out_dir.parent.glob(f".{out_dir.name}.*.*"):  # a killed run's, or this pid's
        if leftover.suffix in (".tmp", ".old") and not _alive(leftover.stem.rpartition(".")[2]):
            shutil.rmtree(leftover, ignore_errors=True)
    tmp.mkdir()
    try:
        yield tmp
        if out_dir.exists():
            out_dir.rename(old)  # a kill before the next rename leaves no out_dir: the rerun redoes it
        tmp.rename(out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)


def _alive(pid: str) -> bool:
    """Whether another process ``pid`` (from a leftover's name) still runs: its staging folder is
    in use. This process's own leftovers are from an earlier call that failed."""
    if not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fingerprint_files(paths: list[Path], root: Path | None = None) -> dict[str, dict[str, Any]]:
    """Size and modification-independent identity of input files.

    Files under ~1 GiB are hashed in full; larger ones (a full MIMIC ``labevents``) by size plus the
    SHA-256 of their first and last 16 MiB, which is what makes fingerprinting a 15 GB table cost
    seconds rather than minutes. The method is recorded next to each digest.
    """
    out: dict[str, dict[str, Any]] = {}
    for p in sorted(Path(x) for x in paths):
        size = p.stat().st_size
        key = str(p.resolve().relative_to(Path(root).resolve())) if root else str(p)
        if size <= 1 << 30:
            out[key] = {"size": size, "sha256": sha256_file(p), "method": "full"}
        else:
            h = hashlib.sha256()
            with p.open("rb") as f:
                h.update(f.read(1 << 24))
                f.seek(size - (1 << 24))
                h.update(f.read(1 << 24))
            out[key] = {"size": size, "sha256": h.hexdigest(), "method": "head+tail 16MiB"}
    return out


def write_manifest(out_dir: Path, *, stage: str, inputs: dict[str, Any], outputs: dict[str, Any]) -> Path:
    """Write ``manifest.json``. ``inputs`` decides staleness; ``outputs`` is what was produced."""
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest = {
        "stage": stage,
        "admitdx_version": __version__,
        "python": platform.python_version(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "inputs": inputs,
        "outputs": outputs,
    }
    path = out_dir / MANIFEST_FILE
    # written aside and renamed: a kill or a full disk mid-write leaves the old manifest, never half of one
    return write_aside(path, json.dumps(manifest, indent=2, ensure_ascii=False, default=str) + "\n")


def write_aside(path: Path, text: str | bytes) -> Path:
    """Write ``path`` beside itself (``.NAME.PID.tmp``) and rename it into place: a kill or a full
    disk mid-write leaves the old file or none, never half of one a rerun would trip on (an empty
    match summary was "not JSON" to every rerun of a study killed while writing it)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        if isinstance(text, bytes):
            tmp.write_bytes(text)
        else:
            tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def read_manifest(out_dir: Path) -> dict[str, Any] | None:
    """The manifest in ``out_dir``, None if there is none; InputError naming it if it is not a
    JSON object (edited, or damaged on disk): a stage cannot tell what it vouches for."""
    path = Path(out_dir) / MANIFEST_FILE
    if not path.exists():
        return None
    fix = f"restore it, or delete {out_dir} and rerun the stage that wrote it"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise InputError(f"not a manifest: not JSON ({e})", table=str(path), hint=fix) from None
    if not isinstance(manifest, dict):
        raise InputError("not a manifest: not a JSON object", table=str(path), hint=fix)
    return manifest


def check_resumable(out_dir: Path, inputs: dict[str, Any]) -> bool:
    """True if ``out_dir`` holds output of the same inputs (resume it); False if it is new.

    Raises if it holds output of different inputs: appending to it would mix two experiments.
    """
    previous = read_manifest(out_dir)
    if previous is None:
        return False
    old = json.loads(json.dumps(previous.get("inputs", {}), default=str))
    new = json.loads(json.dumps(inputs, default=str))
    if old != new:
        changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        raise UsageError(
            f"{out_dir} holds output made from different inputs (changed: {', '.join(changed)})",
            hint="choose a new --out directory, or delete the old one to start over",
        )
    return True


def finished_outputs(out_dir: Path, stage: str, inputs: dict[str, Any]) -> dict[str, Any] | None:
    """The outputs of an earlier complete ``stage`` of exactly these inputs in ``out_dir``, if any:
    its manifest names the same stage and inputs, and every file it lists is there. A builder then
    keeps the directory instead of rebuilding it."""
    manifest = read_manifest(out_dir)
    if manifest is None or manifest.get("stage") != stage:
        return None
    same = json.loads(json.dumps(manifest.get("inputs"), default=str)) == json.loads(
        json.dumps(inputs, default=str)
    )
    files = manifest.get("outputs", {}).get("files", [])
    return manifest["outputs"] if same and all((Path(out_dir) / f).exists() for f in files) else None
