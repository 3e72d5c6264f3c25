"""The EarlyDx README's departures table is what ``scripts/earlydx_departures.py`` prints.

The test recounts the demo column from builds of the real demo and takes the synthetic columns from
the README (recounting them builds the 2,000- and 10,000-patient roots 22 times each; run the script
on them to refresh the README), so it checks the demo counts, every row's prose and the formatting.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "src" / "admitdx" / "tasks" / "earlydx" / "README.md"


def _script() -> ModuleType:
    path = REPO / "scripts" / "earlydx_departures.py"
    spec = importlib.util.spec_from_file_location("earlydx_departures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _readme_table(header: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(header)
    end = text.index("\n\n", start)
    return text[start:end]


@pytest.mark.slow
def test_the_readme_table_is_the_scripts_with_the_demo_column_recounted(demo_dir: Path) -> None:
    script = _script()
    table = script.rows()
    readme = _readme_table(script.HEADER)
    cells = [line.rsplit(" | ", 1)[1].removesuffix(" |") for line in readme.splitlines()[2:]]
    assert len(cells) == len(table)
    synthetic = [[int(x.replace(",", "")) for x in c.split(" / ")[1:]] for c in cells]
    columns = [script.differ_counts(demo_dir, table)]
    for i in range(len(synthetic[0])):
        columns.append({row["option"]: s[i] for row, s in zip(table, synthetic, strict=True)})
    assert script.render(table, columns) == readme
    # the counts are of something: the flag's own formats touch every demo encounter
    assert columns[0]["field_format"] == columns[0]["age_format"] == 146
