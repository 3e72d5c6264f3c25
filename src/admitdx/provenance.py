"""Cross-stage provenance: predictions are matched and scored only against the dataset they were
made on.

``predict`` records two fingerprints of its dataset: ``instances_sha256`` (the whole file, labels
included) and ``inputs_sha256`` (what systems could see: each instance's id, split and text).
``match`` and ``score`` compare them with the dataset they are given. Different inputs are always
refused — predictions made on a 6-hour-window build must not be scored against the 0-hour build.
A change that touches labels only (the same predictions scored against two audits of one build)
is allowed with an explicit flag, and the stage records that the flag was used.

Predictions without that manifest cannot be checked at all: with it deleted, the predictions of
another build or split seed were scored with exit 0 (and only a warning that most encounters had
no prediction). So they are refused unless ``--allow-no-manifest`` says they were made outside
admitdx; the results record that. A run whose manifest says it is complete is also checked for
damage the manifest can see: a last line cut off (a full disk, an interrupted copy) or fewer
lines than it recorded. Only an unfinished run may end in a cut line (the kill that stopped it):
that line is dropped, and ``predict`` redoes it on resume.

A completed run also binds its file to its bytes (``predictions_sha256``, beside ``predictions``,
its line count): another run's file put in its place, or another dataset's lines appended to it,
would otherwise be matched and scored as this run's, and ``predict`` would bless them on a rerun.
Manifests written before the digest was recorded are checked as before.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from admitdx.contracts import INSTANCES_FILE, PREDICTIONS_FILE, Instance, load_predictions
from admitdx.errors import InputError, UsageError
from admitdx.runs import read_manifest, sha256_bytes, sha256_file, sha256_text

ALLOW_FLAG = "--allow-label-change"
NO_MANIFEST_FLAG = "--allow-no-manifest"
PREDICTIONS_DIGEST = "predictions_sha256"
BOM = "\ufeff".encode()


def inputs_sha256(instances: Sequence[Instance]) -> str:
    """What systems could read of a dataset: ids, splits and input texts, not labels or targets."""
    return sha256_text(json.dumps([[i.id, i.split, i.text] for i in instances], ensure_ascii=False))


def dataset_fingerprints(dataset_dir: Path, instances: Sequence[Instance]) -> dict[str, str]:
    return {
        "instances_sha256": sha256_file(Path(dataset_dir) / INSTANCES_FILE),
        "inputs_sha256": inputs_sha256(instances),
    }


def check_predictions_dataset(
    dataset_dir: Path,
    instances: Sequence[Instance],
    predictions_dir: Path,
    *,
    allow_label_change: bool,
    allow_no_manifest: bool = False,
) -> dict[str, Any]:
    """How the predictions relate to this dataset: ``{"dataset": "same" | "labels changed" |
    "unknown"}``; raises when they were made on other inputs, on other labels without the flag,
    have no predict manifest without ``allow_no_manifest``, or are damaged (module docstring).

    "unknown": predictions made outside admitdx, scored by request and said so in the results.
    """
    manifest = read_manifest(predictions_dir)
    recorded = ((manifest or {}).get("inputs") or {}).get("dataset") or {}
    if manifest is None or not isinstance(recorded, dict) or not recorded.get("instances_sha256"):
        return _without_manifest(dataset_dir, Path(predictions_dir), allow_no_manifest)
    check_complete_run(Path(predictions_dir), manifest)
    now = dataset_fingerprints(dataset_dir, instances)
    if recorded["instances_sha256"] == now["instances_sha256"]:
        return {"dataset": "same"}
    where = (
        f"{Path(predictions_dir) / 'manifest.json'} records dataset {recorded['instances_sha256'][:12]}…, "
        f"{Path(dataset_dir) / INSTANCES_FILE} is {now['instances_sha256'][:12]}…"
    )
    if recorded.get("inputs_sha256") != now["inputs_sha256"]:
        raise UsageError(
            f"the predictions in {predictions_dir} were made on another dataset ({where}); "
            "their inputs differ, so their scores would describe a different benchmark",
            hint="match and score them against the dataset they were predicted on, or predict again",
        )
    if not allow_label_change:
        raise UsageError(
            f"the predictions in {predictions_dir} were made on the same inputs with other labels ({where})",
            hint=f"pass {ALLOW_FLAG} to score them against these labels (e.g. another audit); it is recorded",
        )
    return {"dataset": "labels changed", "allowed_by": ALLOW_FLAG, **now}


def _without_manifest(dataset_dir: Path, predictions_dir: Path, allowed: bool) -> dict[str, Any]:
    """Refuse predictions whose dataset nothing records, unless the user says they come from outside."""
    if not allowed:
        raise UsageError(
            f"{predictions_dir} has no manifest.json of `admitdx predict`, so nothing says which dataset, "
            "split or system its predictions were made on (another build's would be scored as if they "
            "were this one's)",
            hint=f"re-create it by predicting again (`admitdx predict --dataset {dataset_dir} --system NAME "
            f"--out NEW_DIR` writes predictions with their manifest), or pass {NO_MANIFEST_FLAG} for "
            "predictions made outside admitdx (recorded in the results)",
        )
    return {
        "dataset": "unknown",
        "allowed_by": NO_MANIFEST_FLAG,
        "note": f"{predictions_dir} has no predict manifest",
    }


def check_complete_run(predictions_dir: Path, manifest: dict[str, Any]) -> None:
    """InputError, naming file and line, for a run whose manifest says complete but whose
    predictions file ends in a cut line, holds fewer lines than the manifest counted, or is not the
    file the run completed (:func:`check_bound_bytes`)."""
    outputs = manifest.get("outputs") or {}
    path = predictions_dir / PREDICTIONS_FILE
    if not isinstance(outputs, dict) or outputs.get("complete") is not True or not path.is_file():
        return
    data = path.read_bytes()
    lines = data.count(b"\n")
    restore = (
        "the file was cut or edited after the run finished (a full disk, an interrupted copy): restore it, "
        f"or rerun the same `admitdx predict` command into {predictions_dir} (it predicts what is missing)"
    )
    if data and not data.endswith(b"\n"):
        raise InputError(
            "the last line is cut off (it has no newline), but the run's manifest says it is complete",
            table=str(path),
            row=lines + 1,
            hint=restore,
        )
    recorded = outputs.get("predictions")
    if isinstance(recorded, int) and lines < recorded:
        raise InputError(
            f"{lines} lines, but the run's manifest says it completed with {recorded} predictions",
            table=str(path),
            row=lines + 1,
            hint=restore,
        )
    check_bound_bytes(predictions_dir, outputs)


def predictions_digest(path: Path) -> str:
    """The SHA-256 a completed run records of its ``predictions.jsonl``: of its bytes without a
    leading byte-order mark, which every reader accepts (an editor that adds one changes nothing)."""
    return sha256_bytes(Path(path).read_bytes().removeprefix(BOM))


def check_bound_bytes(predictions_dir: Path, outputs: Any, *, lost_lines_ok: bool = False) -> None:
    """InputError naming the file when a completed run's ``predictions.jsonl`` is not the file its
    manifest recorded (another run's file, lines appended or duplicated); silent for manifests
    without the digest (written before it was recorded) and for unfinished runs. ``predict`` passes
    ``lost_lines_ok``: a file that lost lines (a cut tail, an interrupted copy) is resumed, which
    makes the lost predictions again, as the refusal of ``match`` and ``score`` advises.

    A damaged line is named first (its row and what is wrong, as every reader names it), and an
    emptied file is left to the refusal of a run without predictions: those say more."""
    if not isinstance(outputs, dict):
        return
    recorded = outputs.get(PREDICTIONS_DIGEST)
    path = Path(predictions_dir) / PREDICTIONS_FILE
    if outputs.get("complete") is not True or not isinstance(recorded, str) or not path.is_file():
        return
    now = predictions_digest(path)
    lines = path.read_bytes().count(b"\n")
    counted = outputs.get("predictions")
    if now == recorded or lines == 0 or (lost_lines_ok and isinstance(counted, int) and lines < counted):
        return
    for _ in load_predictions(predictions_dir):  # a damaged line raises, naming its row
        pass
    raise InputError(
        f"not the file this run completed: {lines} lines, sha256 {now[:12]}…, but its manifest "
        f"recorded {counted} lines, sha256 {recorded[:12]}…",
        table=str(path),
        hint=f"restore the run's own file, or delete {predictions_dir} and predict again "
        "(another run's file or lines added to it would be taken for this run's)",
    )
