"""Containment, for the guarded matcher: whether one spelled-out diagnosis text
(:mod:`admitdx.matching.guard_text`) names the other with only more detail ("anemia" ↔ "acute
posthemorrhagic anemia"), so that a parent and its child across ICD categories can be credited
(:mod:`admitdx.matching.guarded`'s ``contained`` case). The contrasts that refuse a pair outright are
:mod:`admitdx.matching.guard_compare`'s.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from admitdx.matching.guard_axes import EXCLUSIVE
from admitdx.matching.guard_text import GENERIC, content_words, guard_expand


def _plain(text: str) -> frozenset[str]:
    """Content words compared for containment: a "without …" clause dropped (calculus of gallbladder
    without cholecystitis does not name cholecystitis), "other" and "closed" (a fracture's default)
    dropped, plurals made singular."""
    kept = re.sub(r"\bwithout (?:(?!with\b)\w+ ?)+", "", guard_expand(text))
    words = content_words(kept)
    return frozenset(_noun(_singular(w)) for w in words if w not in ("other", "closed"))


def _singular(word: str) -> str:
    """A plural's singular ("metastases" and "itis"/"osis" words stay)."""
    plural = word.endswith("s") and not word.endswith(("is", "us", "ss", "es")) and len(word) > 4
    return word[:-1] if plural else word


def _noun(word: str) -> str:
    """A condition's adjective as its noun: "thrombocytopenic" names thrombocytopenia, "anemic" anemia
    (immune thrombocytopenic purpura D69.3 is a thrombocytopenia, D69.6's child in all but code)."""
    return word[:-1] + "a" if word.endswith(("penic", "emic")) and len(word) > 6 else word


#: an added word with one of these endings names a second condition, not detail (cholelithiasis ↔
#: gallstone pancreatitis, hypertension ↔ hypertensive nephropathy)
_CONDITION_ENDINGS = ("itis", "osis", "iasis", "emia", "oma", "pathy", "algia", "ectomy")


def contained(general: str, specific: str, specific_titles: Sequence[str] = ()) -> bool:
    """Whether ``specific`` names ``general`` with only more detail: every content word of the general
    text is in the specific one (or in the specific side's code titles: "alcoholic cirrhosis" is
    K70.3 "Alcoholic cirrhosis of liver"), the general text is no catch-all (:data:`GENERIC`), and
    what the specific text adds is detail, not a second condition: no word ending like a condition
    (:data:`_CONDITION_ENDINGS`), no second value on a contrast axis the general text already sets
    (systolic heart failure ↔ combined systolic and diastolic heart failure). "Anemia" ↔ "acute
    posthemorrhagic anemia", "pneumonia" ↔ "right lower lobe pneumonia". The words alone would
    also credit "hypertension" ↔ "pulmonary hypertension": the caller guards the rule by the codes
    (:func:`admitdx.matching.guard_codes.is_open`, one chapter)."""
    g = _plain(general)
    if not g or g <= GENERIC - {"failure", "insufficiency"}:
        return False
    own = _plain(specific)
    # a title's "with" clause (to its comma) names a second condition, not the text's own (J85.1
    # "Abscess of lung with pneumonia" does not make a lung abscess a pneumonia)
    titles = (re.sub(r"\bwith\b[^,]*", " ", t) for t in specific_titles)
    if own == g or not g <= own.union(*(_plain(t) for t in titles)):
        return False
    added = own - g
    axes = frozenset().union(*(axis for axis in EXCLUSIVE if axis & g))
    return not any(w.endswith(_CONDITION_ENDINGS) for w in added) and not added & axes
