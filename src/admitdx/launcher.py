"""The ``admitdx`` console script: ``admitdx --version`` answers at once; everything else goes to
the app in :mod:`admitdx.cli`.

Importing :mod:`admitdx.cli` assembles every verb (typer, rich, the task registry for the build
options): 0.6 CPU-s that a version query does not need, so the script starts here (issue 23).
"""

from __future__ import annotations

import sys

from admitdx import __version__


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        print(f"admitdx {__version__}")
        return
    from admitdx.cli import main as run

    run()


if __name__ == "__main__":
    main()
