"""Headless Chromium for the report tests: where it is and the flags that keep it offline."""

from __future__ import annotations

import shutil

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")
