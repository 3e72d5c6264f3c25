"""Headless Chromium for the report tests: where it is, the flags that keep it offline, and a page
opened with a probe script that reports what it measured after layout."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

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


def probed(html: str, page: Path, window: str, probe: str) -> dict:
    """Open ``html`` with the ``probe`` script added before ``</body>`` (saved as ``page``) in a
    window of ``window`` ("1280,1400") and return what the probe wrote: the JSON text of the
    ``<pre id="probe">`` it appends to the page after layout."""
    page.write_text(html.replace("</body>", probe + "</body>"), encoding="utf-8")
    flags = [*CHROMIUM_FLAGS, f"--window-size={window}", f"--user-data-dir={page.parent / 'profile'}"]
    dom = subprocess.run(
        [chromium(), *flags, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    return json.loads(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1).replace("&quot;", '"'))
