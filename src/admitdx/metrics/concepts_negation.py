"""NegEx on spaCy's rule-based tokenizer, shared by every concept extractor (offline and QuickUMLS),
so that "no chest pain" does not count as chest pain for either."""

from __future__ import annotations

from functools import cache
from typing import Any

#: NegEx's en_clinical triggers that name what is being considered, not what is absent: in ER-Reason's
#: rule-out differential ("Rule out ACS, PE") they would negate every concept the physician listed.
#: "ruled out" and "rules out" (a finished work-up) still negate.
CONSIDERING = frozenset(
    (
        "rule out",
        "rule him out",
        "rule her out",
        "rule patient out",
        "rule the patient out",
        "r/o",
        "evaluate for",
    )
)


@cache
def pipeline() -> Any:
    """spaCy's rule-based English tokenizer, a sentencizer and NegEx (negated entities marked)."""
    import spacy
    from negspacy.negation import Negex  # noqa: F401  (registers the "negex" factory)
    from negspacy.termsets import termset

    patterns = termset("en_clinical").get_patterns()
    patterns["preceding_negations"] = [p for p in patterns["preceding_negations"] if p not in CONSIDERING]
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("negex", config={"neg_termset": patterns})
    return nlp
