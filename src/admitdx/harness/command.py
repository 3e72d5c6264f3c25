"""A harness run that a study starts itself: ``{kind: inspect, command: "…", system: {kind: llm, …}}``.

The study exports the system's prompts from the dataset it predicts on into
``<predictions>/harness-export/``, then runs the user's command template once, with
``{task_file}`` (Inspect: ``FILE.py@TASK``, the form in which Inspect takes an absolute path; lm-eval:
the YAML), ``{task_dir}``, ``{task_name}`` and
``{log_dir}`` (``<predictions>/harness-logs/``) filled in; the newest log there is imported. The
command is split like a shell line but run without a shell. A rerun finds the log and does not run
the harness again; delete ``harness-logs/`` to run it anew. For example::

    systems:
      qwen-inspect:
        kind: inspect
        command: inspect eval {task_file} --model vllm/Qwen/Qwen3-8B --log-dir {log_dir}
        system: {kind: llm, prompt: few-shot, k: 5}
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import Any

from admitdx.errors import UsageError
from admitdx.harness.export import export_calls
from admitdx.harness.study_logs import INSPECT
from admitdx.harness.task_files import task_name, write_inspect, write_lmeval
from admitdx.systems.config import SystemChoice

EXPORT_DIR, LOG_DIR = "harness-export", "harness-logs"
_LOG_GLOB = {INSPECT: "*.eval"}
_TAIL = 2000


def newest_log(harness: str, log_dir: Path) -> Path | None:
    found = sorted(log_dir.rglob(_LOG_GLOB.get(harness, "samples_*.jsonl")), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def run_command(
    harness: str, template: str, system: dict[str, Any], dataset_dir: Path, run_dir: Path
) -> Path:
    """The log of the harness run ``template`` makes on this dataset's export (module docstring)."""
    log_dir = run_dir / LOG_DIR
    done = newest_log(harness, log_dir)
    if done is not None:
        return done
    options = dict(system)
    kind = str(options.pop("kind", "llm"))
    choice = SystemChoice(str(options.pop("name", kind)), kind, options)
    folder = run_dir / EXPORT_DIR
    header, calls = export_calls(dataset_dir, choice, folder, harness)
    task_file = write_inspect(folder, header) if harness == INSPECT else write_lmeval(folder, header, calls)
    name = task_name(header)
    # Inspect finds a task file by an absolute path only in its FILE@TASK form
    target = f"{task_file}@{name}" if harness == INSPECT else task_file
    values = {"task_file": target, "task_dir": folder, "task_name": name, "log_dir": log_dir}
    try:
        args = [part.format(**{k: str(v) for k, v in values.items()}) for part in shlex.split(template)]
    except (KeyError, ValueError) as e:
        raise UsageError(
            f"command {template!r}: {e}", hint="placeholders: {task_file}, {task_dir}, {task_name}, {log_dir}"
        ) from e
    log_dir.mkdir(parents=True, exist_ok=True)
    try:
        finished = subprocess.run(args, capture_output=True, text=True, check=False)
    except OSError as e:
        raise UsageError(f"command {args[0]!r} could not start: {e}") from e
    log = newest_log(harness, log_dir)
    if finished.returncode != 0 or log is None:
        raise UsageError(
            f"the {harness} command exited {finished.returncode} and left "
            f"{'no log' if log is None else log} in {log_dir}: {finished.stderr[-_TAIL:]}",
            hint="the command must write its log under {log_dir} (Inspect: --log-dir {log_dir}; lm-eval: "
            "--log_samples --output_path {log_dir})",
        )
    return log
