"""Does a piece of text *name* a diagnosis title? The generator's record of verbatim evidence.

EarlyDx §5.2 calls a label explicit when its full title, or every content word of it, occurs in the
input. The generator applies the same idea to each piece of evidence it places, so ``_truth``
says which placements name their diagnosis. Tokens are lower-case runs of letters and digits;
content words are tokens of two or more characters that are not in ``STOP_WORDS`` — function words
plus the coding qualifiers that never appear in clinical prose ("unspecified", "NOS", "initial
encounter", …). The EarlyDx builder keeps its own tokenizer; this one is the generator's intent.
"""

from __future__ import annotations

import re
from functools import lru_cache

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "of",
        "on",
        "or",
        "the",
        "to",
        "with",
        "without",
        "w",
        "wo",
        "due",
        "other",
        "than",
        "unspecified",
        "unsp",
        "nos",
        "nec",
        "not",
        "elsewhere",
        "classified",
        "specified",
        "site",
        "organism",
        "type",
        "initial",
        "encounter",
        "init",
        "episode",
        "care",
        "part",
        "mention",
    ]
)
_TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> set[str]:
    return set(_TOKEN.findall(text.lower()))


@lru_cache(maxsize=4096)
def content_words(title: str) -> frozenset[str]:
    return frozenset(t for t in _TOKEN.findall(title.lower()) if len(t) > 1 and t not in STOP_WORDS)


def names(text: str, title: str) -> bool:
    """True when every content word of ``title`` occurs in ``text`` (a title without any: never)."""
    words = content_words(title)
    return bool(words) and words <= tokens(text)
