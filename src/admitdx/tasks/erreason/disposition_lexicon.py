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


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_CASED = "(?-i:"


@dataclass(frozen=True)
class _Group:
    """Rows scanned alike: all rows in one alternation (where does some row start? one scan of
    the text instead of one per row) and each row's own pattern (the longest match there)."""

    anyone: re.Pattern[str]
    rows: tuple[re.Pattern[str], ...]


def _group(patterns: list[str], flags: int) -> _Group:
    anyone = re.compile(_BOUNDED.format("|".join(f"(?:{p})" for p in patterns)), flags)
    return _Group(anyone, tuple(re.compile(_BOUNDED.format(p), flags) for p in patterns))


@cache
def _groups() -> tuple[_Group, _Group]:
    """(the case-insensitive rows, lower-cased, to scan a lower-cased text without ``re.I`` —
    four times faster —, the rows with a case-sensitive part, to scan the text as written)."""
    rows = [e.pattern for e in lexicon()]
    for pattern in rows:
        if re.search(r"\\[A-Z]", pattern):  # \S, \W, \D … would change meaning once lower-cased
            raise ValueError(f"{LEXICON_FILE}: write {pattern!r} without an upper-case escape")
    plain = [p.lower() for p in rows if _CASED not in p]
    return _group(plain, 0), _group([p for p in rows if _CASED in p], re.I)


def _starts(group: _Group, text: str) -> list[int]:
    """Every position where some row of ``group`` matches, one inside an earlier match too."""
    starts, pos = [], 0
    while (m := group.anyone.search(text, pos)) is not None:
        starts.append(m.start())
        pos = m.start() + 1
    return starts


def disposition_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of ``text`` that some lexicon row matches, in order; spans that
    overlap or lie only white space apart are merged ("discharged home with" is one). A match
    that starts inside another counts too ("sent to jail": "sent to", then "to jail")."""
    plain, cased = _groups()
    lowered = text.translate(_ASCII_LOWER)  # the same length: offsets hold in both
    merged: list[tuple[int, int]] = []
    for start in sorted({*_starts(plain, lowered), *_starts(cased, text)}):
        ends = [m.end() for p in plain.rows if (m := p.match(lowered, start)) is not None]
        ends += [m.end() for p in cased.rows if (m := p.match(text, start)) is not None]
        end = max(ends)
        if merged and (start <= merged[-1][1] or not text[merged[-1][1] : start].strip()):
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
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
