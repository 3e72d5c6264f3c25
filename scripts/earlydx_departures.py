"""Print the EarlyDx README's departures table, its "differ" column counted from builds.

Usage:
    python scripts/earlydx_departures.py ../shared/data/mimic-iv-demo SYNTH_2000 [SYNTH_10000 …]

Each row of ``earlydx_departures.json`` is one option that ``--reproduce authors`` sets. For each
root the script builds ``--reproduce authors`` (whose text equals the authors' builder's, byte for
byte: ``bench/earlydx_authors_parity.py``), then once per row with only that option back at
admitdx's default, and counts the encounters of the first build whose input text differs (or that
the second build lacks). A row with a ``setting`` (``--timestamps storetime``, ``--window-hours
24``) is counted under it, both builds alike. The cells are joined with " / " in root order.

``tests/test_earlydx_departures_table.py`` reruns the demo column and the formatting and fails when
the README's table differs; the synthetic columns are taken from the README there (building the
2,000- and 10,000-patient roots 22 times each is a bench job, not a test).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import fields
from pathlib import Path
from typing import Any

from admitdx.contracts import load_instances
from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx
from admitdx.tasks.earlydx.params import AUTHORS

ROWS_FILE = Path(__file__).with_name("earlydx_departures.json")
HEADER = (
    "| departure (admitdx default) | example (real demo unless said) | paper sentence it follows "
    "| authors' option | differ |\n|---|---|---|---|---|"
)


def rows() -> list[dict[str, Any]]:
    """The table's rows, in order; each names the option it is about."""
    loaded: list[dict[str, Any]] = json.loads(ROWS_FILE.read_text(encoding="utf-8"))
    missing = set(AUTHORS) - {r["option"] for r in loaded}
    if missing:  # a new option --reproduce authors sets needs its row
        raise SystemExit(f"{ROWS_FILE}: no row for {', '.join(sorted(missing))}")
    return loaded


def _texts(root: Path, out: Path, params: EarlyDxParams) -> dict[int | None, str]:
    build_earlydx(root, out, params)
    return {i.stay_id: i.text for i in load_instances(out)}


def differ_counts(root: Path, table: list[dict[str, Any]]) -> dict[str, int]:
    """option → encounters whose text differs with only that option at admitdx's default."""
    defaults = {f.name: f.default for f in fields(EarlyDxParams)}
    counts: dict[str, int] = {}
    reference: dict[str, dict[int | None, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n, row in enumerate(table):
            setting = row.get("setting", {})
            key = json.dumps(setting, sort_keys=True)
            theirs = EarlyDxParams.from_cli(reproduce="authors", **setting)
            if key not in reference:
                reference[key] = _texts(root, Path(tmp) / f"authors-{len(reference)}", theirs)
            option = row["option"]
            if getattr(theirs, option) == defaults[option]:
                counts[option] = 0
                continue
            variant = theirs.with_(reproduce="none", **{option: defaults[option]})
            ours = _texts(root, Path(tmp) / f"row-{n}", variant)
            counts[option] = sum(ours.get(s) != t for s, t in reference[key].items())
    return counts


def render(table: list[dict[str, Any]], columns: list[dict[str, int]]) -> str:
    """The markdown table: prose from the rows, "differ" from ``columns`` (one per root)."""
    lines = [HEADER]
    for row in table:
        cells = [row["departure"], row["example"], row["paper"], row["flag"]]
        cells.append(" / ".join(f"{c[row['option']]:,}" for c in columns))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+", type=Path, help="the real demo first, then synthetic roots")
    a = ap.parse_args()
    table = rows()
    print(render(table, [differ_counts(root, table) for root in a.roots]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
