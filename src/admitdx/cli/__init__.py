"""The ``admitdx`` command line: one thin function per verb; the work happens in the library.

This package's import is kept light: ``admitdx --version`` answers before any verb's module (and
the data, model and plotting libraries they import) is loaded. The app itself is assembled in
:mod:`admitdx.cli.root` on first use (``from admitdx.cli import app`` still works).
"""

from __future__ import annotations

import sys
from typing import Any

from admitdx import __version__


def main() -> None:
    """The console script: ``--version`` at once, everything else through the app (errors the user
    can fix end with a message and exit code 2, never a traceback)."""
    if sys.argv[1:] == ["--version"]:
        print(f"admitdx {__version__}")
        return
    from admitdx.cli.root import main as run

    run()


def __getattr__(name: str) -> Any:
    if name == "app":
        from admitdx.cli.root import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
