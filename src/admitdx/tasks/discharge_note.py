"""A section splitter for MIMIC-IV discharge summaries by a fixed list of header spellings.

A MIMIC-IV-Note discharge summary is a sequence of sections, each opened by a header line such as
``Chief Complaint:`` or ``History of Present Illness:`` (schema doc §4.4). Following van Aken et
al. (2021), a section runs from its header to the next *known* header; anything else that looks
like a header ("ADMISSION PHYSICAL EXAM:", "Past Surgical History:") is part of the section it
sits in. Which headers are known, and how they may be spelled, is the caller's
:class:`HeaderSet`; the mechanics are here, once:

* a header counts where a line starts, after optional blank lines and indentation
  (``\\n\\s*<header>:``), so "no past medical history: ..." inside a sentence does not open a
  section;
* ``flexible`` header sets accept any case and any run of spaces between the words and before
  the colon ("PAST  MEDICAL HISTORY :"); strict ones match their spellings literally (case aside);
* ``extra_end`` is one more regular expression that ends a section (EarlyDx: a blank line
  followed by any capitalised "Words:" line, the authors' rule).

:meth:`NoteSplitter.section` finds one section's body (EarlyDx's prior-history part, whose
output is pinned), returned as written. CliniBench recognises headings by a normalised key instead
(:mod:`admitdx.tasks.clinibench.headings`) and shares only :class:`NoteSection`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class NoteSection:
    """One section of a note: its canonical name, the header as written, and its body."""

    name: str
    header: str
    body: str
    start: int  # offset of the header in the note


@dataclass(frozen=True)
class HeaderSet:
    """Known headers: canonical name → accepted spellings (lower case, single spaces)."""

    spellings: Mapping[str, Sequence[str]]
    flexible: bool = True

    def fragment(self, spelling: str) -> str:
        words = [re.escape(w) for w in spelling.split(" ")]
        return r"[^\S\n]+".join(words) + r"[^\S\n]*" if self.flexible else re.escape(spelling)

    def name_of(self, header: str) -> str:
        """The canonical name of a header as written (whitespace and case normalised)."""
        key = " ".join(header.lower().split())
        for name, spellings in self.spellings.items():
            if key in spellings:
                return name
        raise KeyError(header)


class NoteSplitter:
    """Cuts discharge-note text at the known headers of ``headers`` (see the module docstring)."""

    def __init__(self, headers: HeaderSet, *, extra_end: str | None = None) -> None:
        self.headers = headers
        self.extra_end = re.compile(extra_end, re.S | re.I) if extra_end else None

    @cached_property
    def _boundary(self) -> re.Pattern[str]:
        """A known header at a line start: ``\\n``, optional blank lines and indentation, header, colon."""
        alternatives = sorted(
            (self.headers.fragment(s) for spellings in self.headers.spellings.values() for s in spellings),
            key=len,
            reverse=True,  # the longest spelling first: "discharge diagnosis" before "discharge"
        )
        return re.compile(r"\n\s*(?P<header>" + "|".join(alternatives) + r"):", re.I)

    def _end(self, text: str, pos: int) -> int:
        """Where a section whose body starts at ``pos`` ends: the next boundary, else the text's end."""
        ends = [m.start() for m in (self._boundary.search(text, pos), self._extra(text, pos)) if m]
        return min(ends, default=len(text))

    def _extra(self, text: str, pos: int) -> re.Match[str] | None:
        return self.extra_end.search(text, pos) if self.extra_end else None

    def section(self, text: str, header: str, *, anywhere: bool = False) -> str | None:
        """The body of the first ``header:`` section (None when absent), up to the next known header.

        ``anywhere`` also accepts the header in the middle of a line (EarlyDx's reader, kept as the
        authors wrote it). The body starts after the colon and any whitespace, so an empty
        section's body runs on into the next one only when the header ends no line — exactly the
        regular expression EarlyDx has always used (``tests/test_refactor_pins.py``).
        """
        prefix = "" if anywhere else r"(?:\A|\n)[^\S\n]*"
        m = re.compile(prefix + self.headers.fragment(header) + r":\s*", re.I).search(text)
        if m is None:
            return None
        return text[m.end() : self._end(text, m.end())]
