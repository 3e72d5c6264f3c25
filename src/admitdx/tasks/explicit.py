"""Explicit vs implicit labels (§5.2): is a reference diagnosis named in the input text?

The paper: a label is *explicit* "if its full title, or every content word, occurs verbatim in the
input", *implicit* otherwise; detection is lexical, so paraphrases count as implicit and the
explicit share is a lower bound on what extraction could find.

Operationalised here:
  * tokenizer — lower-case, then runs of letters and digits (``[a-z0-9]+``); so "PNEUMONIA,ORGANISM"
    gives "pneumonia", "organism", and "T5-T6" gives "t5", "t6".
  * full title — the title's tokens occur as a contiguous run of the input's tokens (punctuation
    and spacing differences do not matter, word boundaries do: "sepsis" is not in "asepsis").
  * content words — the title's tokens minus :data:`STOP_WORDS`, which are English function words
    plus ICD's coding boilerplate (unspecified, other, nos, nec, initial encounter, …) that says
    how a code was assigned rather than what the patient has. A title with no content word left
    (rare) is explicit only through its full title.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[a-z0-9]+")

#: Words that carry no diagnostic content for the "every content word" rule.
STOP_WORDS: frozenset[str] = frozenset(
    str.split(
        # English function words
        "a an and are as at be by for from in into is it its of on or the to with without w wo "
        "due not than that this which "
        # ICD coding boilerplate (incl. MIMIC's ICD-9 and ICD-10 short-title abbreviations)
        "nos nec unspecified unspec unsp specified spec other oth elsewhere classified mention "
        "initial init subsequent subs encounter encntr episode care type site part sequela stated"
    )
)


def tokens(text: str) -> list[str]:
    """The tokenizer used for explicit tagging (lower-cased alphanumeric runs)."""
    return _TOKEN.findall(text.lower())


class InputIndex:
    """The input text prepared once for testing many labels against it."""

    def __init__(self, text: str) -> None:
        toks = tokens(text)
        self._vocabulary = set(toks)
        self._joined = " " + " ".join(toks) + " "

    def is_explicit(self, title: str) -> bool:
        """True when the full title, or every content word of it, occurs in the input."""
        title_tokens = tokens(title)
        if not title_tokens:
            return False
        if " " + " ".join(title_tokens) + " " in self._joined:
            return True
        content = [t for t in title_tokens if t not in STOP_WORDS]
        return bool(content) and all(t in self._vocabulary for t in content)
