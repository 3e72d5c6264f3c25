"""``admitdx import inspect|lm-eval LOG``: a harness log as an ordinary prediction run, through
``predict``'s own runner with the replay system kinds (:mod:`admitdx.harness.replay`).

The run predicts the scope the export recorded (split, training split, benchmark set), so the
predictions directory's manifest is a predict manifest like any other — the dataset's
fingerprints, the system (kind ``inspect`` or ``lm-eval``, the log's path), the log's hash, the
harness's model and generation settings, the token usage — and ``match``, ``score``, ``report``
and ``study`` take it without ``--allow-no-manifest``.
"""

from __future__ import annotations

from pathlib import Path

from admitdx.harness.logs import read_log
from admitdx.systems.config import SystemChoice
from admitdx.systems.runner import TRAIN_LABELS_OPTION, RunSummary, run_predictions


def import_log(harness: str, log: Path, dataset: Path, out: Path, name: str | None = None) -> RunSummary:
    head = read_log(harness, log).header
    scope = head["scope"]
    options: dict[str, object] = {"log": str(Path(log).resolve())}
    train_labels = head["system"]["options"].get(TRAIN_LABELS_OPTION)
    if train_labels is not None:  # the runner's training view: the one the export's retriever used
        options[TRAIN_LABELS_OPTION] = train_labels
    return run_predictions(
        dataset,
        SystemChoice(name or harness, harness, options),
        out,
        split=scope["split"],
        train_split=scope["train_split"],
        keep_unsupported_only=scope["keep_unsupported_only"],
    )
