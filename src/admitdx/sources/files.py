"""Finding MIMIC-IV module folders and table files under a root, however PhysioNet nested them.

A root as downloaded holds module folders (``hosp/``, ``ed/``, ``note/``, ``icu/``), often nested
under versioned release names (``mimic-iv-3.1/hosp``, ``physionet.org/files/mimic-iv/3.1/hosp``,
``mimic-iv-ed-2.2/ed``, ``mimic-iv-note-deidentified-free-text-clinical-notes-2.2/note``). The ECG
and ECHO releases put their CSVs at the top of the release folder
(``mimic-iv-ecg-…-1.0/record_list.csv``), so a folder whose name starts with ``mimic-iv-ecg`` /
``mimic-iv-echo`` is that module's folder. Table files are ``.parquet``, ``.csv.gz`` or ``.csv``;
when one table exists in several forms Parquet wins (it is what ``admitdx data convert`` writes and
it reads fastest).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from admitdx.errors import InputError
from admitdx.sources.schema import MODULES, TableSchema, schema_for

SUFFIXES = (".parquet", ".csv.gz", ".csv")  # preference order when a table exists in several forms

# Release folders whose tables sit at the top rather than in a module folder (ECG, ECHO).
_RELEASE_PREFIXES = {"ecg": "mimic-iv-ecg", "echo": "mimic-iv-echo"}
# Deep enough for wget's layout: physionet.org/files/mimic-iv/3.1/hosp.
MAX_DEPTH = 4


@dataclass(frozen=True)
class TableFile:
    """One table's file: ``module.table`` and where it lives.

    ``path`` is resolved (symlinks followed): it is what is read, checked and fingerprinted.
    ``relative`` is where it was found under the root, as the user laid it out (a symlinked module
    folder may point anywhere), so manifests name files the same way whatever the links.
    """

    module: str
    table: str
    path: Path
    relative: str = field(default="", compare=False)

    @property
    def qualified(self) -> str:
        return f"{self.module}.{self.table}"

    @property
    def format(self) -> str:
        return "parquet" if self.path.name.endswith(".parquet") else "csv"

    @property
    def gzipped(self) -> bool:
        return self.path.name.endswith(".gz")

    @property
    def schema(self) -> TableSchema | None:
        return schema_for(self.module, self.table)


def table_name(path: Path) -> str | None:
    """``hosp/labevents.csv.gz`` → ``labevents``; ``echo-record-list.csv`` → ``echo_record_list``."""
    name = path.name
    for suffix in SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)].lower().replace("-", "_")
    return None


def _suffix_rank(path: Path) -> int:
    return next(i for i, s in enumerate(SUFFIXES) if path.name.endswith(s))


def _module_of(folder: Path) -> str | None:
    name = folder.name.lower()
    if name in MODULES:
        return name
    return next((m for m, prefix in _RELEASE_PREFIXES.items() if name.startswith(prefix)), None)


def list_folder(folder: Path) -> list[Path]:
    """The entries of ``folder``, sorted; InputError when it cannot be listed (permission)."""
    try:
        return sorted(folder.iterdir())
    except PermissionError as e:
        raise InputError(
            f"cannot list {folder}: permission denied",
            hint=f"make it readable for this user (chmod a+rx {folder})",
        ) from e


def _has_tables(folder: Path) -> bool:
    return any(p.is_file() and table_name(p) for p in list_folder(folder))


def module_dirs(root: Path, max_depth: int = MAX_DEPTH) -> dict[str, Path]:
    """Each module's folder under ``root``, searching breadth-first so the shallowest one wins.

    A module folder that cannot be listed is an error (InputError). Any other folder this user
    cannot list is passed over: a root on a disk of its own has a root-only ``lost+found``, which
    must not make the root unusable.
    """
    found: dict[str, Path] = {}
    frontier = [root]
    for depth in range(max_depth):
        deeper: list[Path] = []
        for folder in frontier:
            try:
                entries = list_folder(folder)
            except InputError:
                if depth == 0:
                    raise
                continue  # not a module folder (those are listed by _has_tables, which raises)
            for child in entries:
                if not child.is_dir() or child.name.startswith((".", "_")):
                    continue
                module = _module_of(child)
                if module and module not in found and _has_tables(child):
                    found[module] = child
                elif not module:  # never walk into a module's own WFDB / DICOM tree (files/p1000/...)
                    deeper.append(child)
        frontier = deeper
    return found


def discover_tables(root: Path) -> dict[str, TableFile]:
    """Map ``module.table`` to its file, choosing Parquet over gzip CSV over CSV.

    Raises InputError when ``root`` is not a directory or holds no MIMIC-IV module folder at all.
    """
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root} is not a directory", hint="pass the folder that holds hosp/ and ed/")
    tables: dict[str, TableFile] = {}
    for module, folder in module_dirs(root).items():
        for path in list_folder(folder):
            name = table_name(path)
            if not name or not path.is_file():
                continue
            key = f"{module}.{name}"
            if key in tables and _suffix_rank(tables[key].path) <= _suffix_rank(path):
                continue
            tables[key] = TableFile(module, name, path.resolve(), str(path.relative_to(root)))
    if not tables:
        raise InputError(
            f"{root} is not a MIMIC-IV root: no hosp/, ed/, note/, icu/, ecg/ or echo/ folder with "
            f".csv.gz, .csv or .parquet tables was found within {MAX_DEPTH} levels",
            hint="pass the folder you downloaded from PhysioNet (the one holding hosp/ and ed/, or "
            "their versioned release folders), or create one with `admitdx data synth`",
        )
    return tables
