"""The disposition lexicon of the ER-Reason disposition task and the redaction it drives.

The disposition task asks where the patient went; a system must not read it in the ED note or in
the previous notes. Issue 19 redacted a dozen word forms; a note written in another hand leaked
synonyms, abbreviations and destinations ("bed request placed", "to the OR", "LBTC", "pronounced
at 02:45"). The lexicon is a data file (``disposition_lexicon.csv``, every row with its category
and provenance) so that a reader can see, and extend, what is withheld: every release value of the
data card, their word forms, Epic's disposition vocabulary, common ED abbreviations and the
destinations a disposition names.

Every row's pattern is matched case-insensitively between word boundaries (``&`` counts as a word
character, so "L&D" is one word); a pattern written ``(?-i:OR)`` is case-sensitive, so that the
operating room is withheld and the conjunction "or" is not. The spans of all rows are merged and
each merged span becomes ``[redacted]``, in every encounter alike, so a mark does not itself tell
which disposition was written. Over-redaction ("lives at home" stays; "died" in a family history
goes) is the price of failing closed.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

REDACTED = "[redacted]"
LEXICON_FILE = "disposition_lexicon.csv"
_BOUNDED = r"(?<![\w&])(?:{})(?![\w&])"


@dataclass(frozen=True)
class Expression:
    """One lexicon row: what a reader calls it, its pattern, an example sentence, its source."""

    category: str
    expression: str
    pattern: str
    example: str
    source: str

    @property
    def regex(self) -> re.Pattern[str]:
        return re.compile(_BOUNDED.format(self.pattern), re.I)


@cache
def lexicon() -> tuple[Expression, ...]:
    """The rows of ``disposition_lexicon.csv`` (``#`` lines are its provenance note)."""
    text = resources.files(__package__).joinpath(LEXICON_FILE).read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    return tuple(Expression(**row) for row in csv.DictReader(io.StringIO("\n".join(lines))))


@cache
def _patterns() -> tuple[re.Pattern[str], tuple[re.Pattern[str], ...]]:
    """Every row's pattern in one alternation (to find where some row starts: one scan of the
    text instead of one per row) and each row's own (to find the longest match there)."""
    rows = lexicon()
    anyone = re.compile(_BOUNDED.format("|".join(f"(?:{e.pattern})" for e in rows)), re.I)
    return anyone, tuple(e.regex for e in rows)


def disposition_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of ``text`` that some lexicon row matches, in order; spans that
    overlap or lie only white space apart are merged ("discharged home with" is one). Every start
    is found, one inside an earlier match too ("sent to jail": "sent to", then "to jail")."""
    anyone, rows = _patterns()
    merged: list[tuple[int, int]] = []
    pos = 0
    while (m := anyone.search(text, pos)) is not None:
        start = m.start()
        end = max((r.end() for p in rows if (r := p.match(text, start)) is not None), default=m.end())
        if merged and (start <= merged[-1][1] or not text[merged[-1][1] : start].strip()):
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
        pos = start + 1
    return merged


def redact_disposition(text: str | None) -> str | None:
    """``text`` with every span the lexicon matches replaced by ``[redacted]``; None stays None."""
    if not text:
        return None
    out, last = [], 0
    for start, end in disposition_spans(text):
        out += [text[last:start], REDACTED]
        last = end
    return "".join([*out, text[last:]])
