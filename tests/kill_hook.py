"""Kill the process at the Nth write whose path contains a word, as ``kill -9`` would land there.

``ADMITDX_TEST_KILL=WORD:N`` counts every file opened for writing (``w``, ``a``, ``x``: the file is
then created or emptied, and nothing is written to it yet) and every rename whose target contains
WORD; the Nth ends the process at once (``os._exit(137)``: no ``finally``, no flush), before a
rename is made or just after a file is opened. Run as a script, it installs the hook and runs
``admitdx`` with its arguments: ``python tests/kill_hook.py study FILE``. No clock decides where it
lands.
"""

from __future__ import annotations

import builtins
import io
import os
import sys
from typing import Any

KILLED = 137


def install(spec: str) -> None:
    word, _, n = spec.rpartition(":")
    left = [int(n)]
    real_open, real_replace, real_rename = io.open, os.replace, os.rename

    def hit(path: Any) -> None:
        if not isinstance(path, str | bytes | os.PathLike) or word not in os.fsdecode(path):
            return
        left[0] -= 1
        if left[0] == 0:
            os._exit(KILLED)

    def open_(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(file, mode, *args, **kwargs)
        if any(c in mode for c in "wax"):
            hit(file)
        return handle

    def replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        hit(dst)
        real_replace(src, dst, *args, **kwargs)

    def rename(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        hit(dst)
        real_rename(src, dst, *args, **kwargs)

    io.open = builtins.open = open_
    os.replace, os.rename = replace, rename


if __name__ == "__main__":
    if spec := os.environ.get("ADMITDX_TEST_KILL"):
        install(spec)
    from admitdx.cli import main

    sys.argv = ["admitdx", *sys.argv[1:]]
    main()
