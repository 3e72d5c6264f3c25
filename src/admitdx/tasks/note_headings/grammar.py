"""The heading grammar: where a clinical note's headings are, and the normalised key of each.

A heading is a line start; optional decoration and enumeration (any Unicode space, ``*``, ``#``,
``_``, ``=``, ``-``, bullets, ``1.``, ``3)``, ``IV.``, ``A.``); a short phrase; then a colon, a
spaced dash, or the end of the line (trailing decoration allowed: ``**ED Course**``, ``=== DISCHARGE
EXAM ===``). A phrase on a line of its own is a heading when a task's lexicon knows its key, or
when it is written in capitals, decorated, enumerated or underlined (the next line is a rule of
``-``, ``=``, ``_``, ``~`` or ``*``): a body line that happens to be short is not. A sentence is
never a heading: a phrase of more than :data:`MAX_WORDS` words, or one holding a sentence end
(". "), is not one.

What the key normalises (:func:`heading_key`), so that a lexicon holds meanings, not spellings:
case, punctuation, decoration, ``(s)``; a trailing "as of <date>"; clinical abbreviations
(discharge: D/C, DC, d/c; diagnosis: Dx; history: Hx; physical exam: PE; follow-up: F/U, f/u,
"follow up"; assessment and plan: A/P, A&P; disposition: Dispo; medications: meds; hospital
course: HC; the history abbreviations CC, HPI, PMH, PSH, ROS, SH, FH); word forms (examination,
diagnoses, impressions); and a timing phrase ("on / at / upon / prior to / day of / at the time of
discharge or admission", "pre-admission", "PTA") moved to the front: ``PE on discharge`` →
``discharge physical exam``, ``Prior to Admission Medications`` → ``admission medications``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

#: Longest phrase that can be a heading (words, after the key's normalisation); more is a sentence.
MAX_WORDS = 7
#: Longest phrase on a line of its own (no colon) that can be a heading.
MAX_BARE_WORDS = 6

_SP = r"[^\S\r\n]"  # any Unicode space but a line break (tab, NBSP, em space …)
#: Bullets are any of Unicode's bullet, arrow, geometric-shape, dingbat and check-mark blocks (●, ◦,
#: ➤, ✓ …), not a list of the ones seen: an Epic template may bullet with any of them.
_BULLETS = r"\u2022-\u2027\u2043\u2190-\u21ff\u2219\u25a0-\u25ff\u2600-\u27bf"
_DECOR = rf"[*#_=~·{_BULLETS}>|\u2013\u2014\[\]-]"
#: Trailing decoration: no underscore, which would take the "___" of "Physical ___:".
_TAIL = rf"[*#=~·{_BULLETS}>|\u2013\u2014\[\]-]"
#: Not where MIMIC's de-identification mark (exactly three underscores) starts: "___ Complaint:"
#: is a heading whose first word was removed, not a decorated "Complaint:".
_NOT_PHI = r"(?!___(?!_))"
_ENUM = r"(?:\d{1,2}|[IVXivx]{1,4}|[A-Za-z])[.)]"
#: One candidate heading per line start: lead (spaces, decoration, enumeration), the phrase (a
#: letter or the de-identified ``___`` first), trailing decoration, then a colon, a spaced dash or
#: the line's end. Lazy phrase: the first colon ends it. One decoration character per repeat, so a
#: rule line ("=====") fails in linear time, not by exponential backtracking.
_LINE = re.compile(
    rf"^(?P<lead>{_SP}*(?:{_NOT_PHI}{_DECOR}{_SP}*)*(?:(?P<enum>{_ENUM}){_SP}+(?:{_NOT_PHI}{_DECOR}{_SP}*)*)?)"
    rf"(?P<phrase>(?:___|[^\W\d_])[^\n:]{{0,79}}?)(?P<tail>(?:{_SP}*{_TAIL})*{_SP}*)"
    rf"(?P<end>:|{_SP}+[\u2013\u2014-]{_SP}+|$)",
    re.M,
)
#: An underline: a rule of one character; underscores need four, as "___" is MIMIC's de-identified word.
_RULE = re.compile(rf"{_SP}*(?:[-=~*]{{3,}}|_{{4,}}){_SP}*\r?$")
#: A heading run on at the end of a sentence: "Abdomen soft. MDM: …" (the phrase, then a colon).
_RUN_ON = re.compile(rf"(?<=[.;!?]){_SP}+(?P<phrase>[^\W\d_][\w/&()' -]{{0,39}}?){_SP}*:")


#: Whether a task's lexicon knows a key (a bare line with a known key is a heading in any case).
Known = Callable[[str], bool] | None


@dataclass(frozen=True)
class HeadingLine:
    """One heading candidate: the phrase as written, its key, and where it sits in the text."""

    phrase: str
    key: str
    start: int  # where the heading starts (its line start; the phrase for a run-on heading)
    end: int  # after its colon or dash, its underline, or its line's end
    bare: bool  # nothing else on its line (no colon, no dash, no text after it)
    marked: bool  # capitals, decoration, enumeration or an underline: a heading even if unknown


_ABBREVIATIONS = (
    (r"\bd\s*/\s*c\b", "discharge"),
    (r"\bf\s*/\s*u\b", "followup"),
    (r"\ba\s*(?:/|&|and)\s*p\b", "assessment and plan"),
    (r"\bi\s*(?:/|&|and)\s*p\b", "impression and plan"),
    (r"\bre[\s-]*(?:eval(?:uation)?|exam(?:ination)?|assess(?:ment)?|check)s?\b", "reevaluation"),
    (r"\bfollow[\s-]*ups?\b", "followup"),
    (r"\bpre[\s-]*admission\b", "on admission"),
    (r"\bprior to admission\b|\bpta\b", "on admission"),
    (r"\bdecision[\s-]*making\b", "decision making"),
)
_WORDS = {
    "dc": "discharge",
    "dx": "diagnosis",
    "dxs": "diagnosis",
    "diagnoses": "diagnosis",
    "ddx": "differential diagnosis",
    "hx": "history",
    "pe": "physical exam",
    "examination": "exam",
    "examinations": "exam",
    "exams": "exam",
    "fu": "followup",
    "dispo": "disposition",
    "disp": "disposition",
    "discharged": "discharge",
    "dischg": "discharge",
    "med": "medications",
    "meds": "medications",
    "medication": "medications",
    "hc": "hospital course",
    "imp": "impression",
    "impressions": "impression",
    "instruction": "instructions",
    "allergy": "allergies",
    "procedures": "procedure",
    "lab": "labs",
    "vital": "vitals",
    "cc": "chief complaint",
    "hpi": "history of present illness",
    "pmh": "past medical history",
    "pmhx": "past medical history",
    "psh": "past surgical history",
    "pshx": "past surgical history",
    "ros": "review of systems",
    "sh": "social history",
    "shx": "social history",
    "fh": "family history",
    "fhx": "family history",
    "mdm": "medical decision making",
}
_TIMING = re.compile(
    r"\b(?:on|at|upon|prior to|before|day of|at time of|on day of|on the day of|at the time of)"
    r" (discharge|admission)\b"
)
_AS_OF = re.compile(r"\bas of\b.*$")


@lru_cache(maxsize=65536)
def heading_key(phrase: str) -> str:
    """The normalised key of a heading phrase as written (see the module docstring)."""
    text = phrase.lower().replace("(s)", "s").replace("___", " phi ")
    for pattern, word in _ABBREVIATIONS:
        text = re.sub(pattern, word, text)
    text = _AS_OF.sub("", text.replace("&", " and "))
    words = [w for w in re.sub(r"[^a-z]+", " ", text).split() if w != "the"]
    joined = " ".join(_WORDS.get(w, w) for w in words)
    m = _TIMING.search(joined)
    if m:
        rest = (joined[: m.start()] + joined[m.end() :]).split()
        joined = " ".join([m.group(1), *rest])
    return joined


def _is_phrase(phrase: str, key: str) -> bool:
    """A short phrase, not a sentence."""
    return (
        bool(key)
        and len(key.split()) <= MAX_WORDS + 2
        and len(phrase.split()) <= MAX_WORDS
        and ". " not in phrase
    )


def heading_at(text: str, m: re.Match[str], known: Known = None) -> HeadingLine | None:
    """The heading a :data:`_LINE` match is, if any (``known``: whether a key is one a bare line may
    have in any case)."""
    phrase = m.group("phrase").strip()
    key = heading_key(phrase)
    if not _is_phrase(phrase, key):
        return None
    end = m.end()
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    nxt = text.find("\n", line_end + 1) if line_end < len(text) else -1
    next_line = text[line_end + 1 : nxt if nxt >= 0 else len(text)] if line_end < len(text) else ""
    underlined = bool(next_line) and bool(_RULE.fullmatch(next_line))
    if underlined and not text[end:line_end].strip():
        end = nxt if nxt >= 0 else len(text)
    bare = m.group("end") == "" and not text[m.end() : line_end].strip()
    if m.group("end") == "" and not bare:
        return None  # the phrase runs into more text without a colon: a sentence
    decorated = bool(m.group("lead").strip()) or bool(m.group("tail").strip())
    upper = phrase.isupper()
    marked = upper or decorated or underlined
    if bare:
        if len(phrase.split()) > MAX_BARE_WORDS or any(c.isdigit() for c in phrase) or phrase[-1] in ",;.":
            return None
        if not (marked or (known is not None and known(key))):
            return None
    return HeadingLine(phrase, key, m.start(), end, bare, marked)


def heading_lines(text: str, known: Known = None) -> list[HeadingLine]:
    """Every heading of ``text`` at a line start, in order (see the module docstring)."""
    out = []
    for m in _LINE.finditer(text):
        h = heading_at(text, m, known)
        if h is not None:
            out.append(h)
    return out


def run_on_headings(text: str) -> list[HeadingLine]:
    """Every phrase with a colon that follows a sentence end inside a line ("Abdomen soft. MDM:"),
    as a candidate heading starting at the phrase; a task decides which keys it stops at."""
    out = []
    for m in _RUN_ON.finditer(text):
        phrase = m.group("phrase").strip()
        key = heading_key(phrase)
        if key and len(phrase.split()) <= 4:
            out.append(HeadingLine(phrase, key, m.start("phrase"), m.end(), False, False))
    return out
