"""Screenshots of the demo's report pages, one per answer kind, for the README (issue 23).

Usage:
    admitdx demo --no-llm --out admitdx-demo          # the pages (synthetic data, no model)
    python scripts/report_screenshots.py admitdx-demo # → docs/screenshots/<kind>.png

Takes the first viewport-tall screen of each page in headless Chromium at 1280 px wide: EarlyDx
(free-text diagnoses), CliniBench (ranked ICD codes) and ER-Reason acuity (a category). The demo
builds no text task (the one-liner needs MIMIC-IV-Note), so text has no screenshot here.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: Answer kind → the demo's report folder (relative to the demo's --out).
PAGES = {
    "diagnoses": "report",
    "codes": "clinibench/report",
    "category": "er-reason-acuity/report",
}
OUT = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("demo", type=Path, help="the --out folder of `admitdx demo`")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--height", type=int, default=1600, help="pixels of each page to keep")
    args = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("chromium is not installed (apt-get install -y chromium)", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        for kind, folder in PAGES.items():
            page = args.demo / folder / "report.html"
            if not page.exists():
                print(
                    f"{page} is missing: run `admitdx demo --no-llm --out {args.demo}` first", file=sys.stderr
                )
                return 2
            shot = args.out / f"{kind}.png"
            subprocess.run(
                [chromium, *FLAGS, f"--user-data-dir={profile}", f"--window-size=1280,{args.height}",
                 f"--screenshot={shot}", page.resolve().as_uri()],
                check=True, capture_output=True, timeout=120,
            )  # fmt: skip
            print(f"{kind}: {shot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
