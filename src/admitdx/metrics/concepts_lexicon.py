"""The offline extractor's two phrase tables, built once per machine and cached on disk.

Building them costs 30-50 s of CPU per process: ``simple-icd-10-cm`` parses the CMS tabular list
at import and every title is expanded into phrases (:mod:`admitdx.metrics.concepts_icd`), and
``drug-named-entity-recognition`` unpickles its bz2 dictionary and indexes trigrams at import.
Scoring needs only two ``phrase → concept`` dicts, so they are written once as JSON to
``$ADMITDX_CACHE_DIR/concepts/lexicon-<key>.json`` (default ``~/.cache/admitdx``) and read back
in a fraction of a second. The key hashes both packages' versions and the source of the modules
that derive the phrases, so an upgrade or a changed rule builds a new file instead of reading a
stale one. The file is written under a temporary name and renamed, so concurrent processes never
read half of it; JSON rather than pickle, as loading it must never run code.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from functools import cache
from importlib import metadata
from pathlib import Path

from admitdx.embeddings import cache_root
from admitdx.metrics import concepts_icd
from admitdx.metrics.concepts_terms import terms_text

log = logging.getLogger(__name__)

PACKAGES = ("simple-icd-10-cm", "drug-named-entity-recognition")


def drug_lexicon() -> dict[str, str]:
    """Lower-case drug name or synonym → concept (``DRUG:<DrugBank id>``, else ``DRUG:<name>``).

    The package's own table (DrugBank, MeSH, NHS, MedlinePlus names); a variant's data overrides
    its canonical drug's, as the package's ``find_drugs`` merges them."""
    from drug_named_entity_recognition import drugs_finder as finder

    lexicon: dict[str, str] = {}
    for variant, canonicals in finder.drug_variant_to_canonical.items():
        canonical = canonicals[0]  # find_drugs reports every canonical; the first one was kept
        data = finder.drug_canonical_to_data.get(canonical, {}) | finder.drug_variant_to_variant_data.get(
            variant, {}
        )
        lexicon[variant] = f"DRUG:{data.get('drugbank_id') or data.get('name') or canonical}"
    return lexicon


def lexicon_key() -> str:
    """What the cached tables depend on: the two packages' versions and this code."""
    h = hashlib.sha256()
    for package in PACKAGES:
        h.update(f"{package}=={metadata.version(package)}\n".encode())
    for module in (concepts_icd.__file__, __file__):
        h.update(Path(str(module)).read_bytes())
    h.update(terms_text().encode())  # not cached, but a changed table is another extractor
    return h.hexdigest()[:16]


def lexicon_path() -> Path:
    return cache_root() / "concepts" / f"lexicon-{lexicon_key()}.json"


@cache
def lexicons() -> tuple[dict[str, str], dict[str, str]]:
    """(conditions, drugs): read from the cache file, or built and written there first."""
    path = lexicon_path()
    if path.is_file():
        tables = json.loads(path.read_text(encoding="utf-8"))
        return tables["conditions"], tables["drugs"]
    conditions, drugs = concepts_icd.condition_lexicon(), drug_lexicon()
    try:
        _write(path, {"conditions": conditions, "drugs": drugs})
    except OSError as e:  # scoring still works, it only rebuilds next time; say why and how to fix
        log.warning("could not cache the concept lexicons at %s (%s); set ADMITDX_CACHE_DIR", path, e)
    return conditions, drugs


def _write(path: Path, tables: dict[str, dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(tables, f, ensure_ascii=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
