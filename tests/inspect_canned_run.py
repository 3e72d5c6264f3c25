"""``python tests/inspect_canned_run.py TASK_FILE LOG_DIR``: an exported Inspect task run with the test
model of :mod:`harness_data` (a study's harness command template in ``test_harness_study.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

from harness_data import answers_by_messages
from test_harness_roundtrip import run_inspect

if __name__ == "__main__":
    task_file, log_dir = Path(sys.argv[1].split("@")[0]), Path(sys.argv[2])  # FILE.py@TASK
    run_inspect(task_file, answers_by_messages(task_file.parent), log_dir)
