"""Each system's colour (and, past the palette's size, its pattern), from its position in a run.

A hash of the name put two of five systems in one colour in 62 % of reports (issue 23), so the
colours are assigned in the order the systems appear in a run or study, from one qualitative
palette: no two systems share a colour up to the palette's size; after that the colours repeat
with a pattern (bar hatching, line dashes). The scoring stage records the assignment in
``results.json`` so every page and figure of a run agrees; a study assigns over its own order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Okabe & Ito's colour-blind-safe qualitative palette ("Color Universal Design", 2008), ordered
#: so the first colours stay far apart in greyscale print too.
PALETTE = (
    "#0072b2",  # blue
    "#d55e00",  # vermillion
    "#009e73",  # bluish green
    "#cc79a7",  # reddish purple
    "#e69f00",  # orange
    "#56b4e9",  # sky blue
    "#f0e442",  # yellow
    "#000000",  # black
)
#: Matplotlib hatches for the second, third, … round through the palette (the first has none).
PATTERNS = (None, "//", "..", "xx", "\\\\", "oo")


@dataclass(frozen=True)
class Style:
    """How one system is drawn: its colour and, past the palette's size, its pattern."""

    colour: str
    pattern: str | None = None


def assign(names: Sequence[str]) -> dict[str, Style]:
    """The style of each name, by its position among ``names`` (the first occurrence counts)."""
    order = list(dict.fromkeys(names))
    return {name: style_at(i) for i, name in enumerate(order)}


def style_at(position: int) -> Style:
    """The style of the system at ``position`` (0-based) in its run."""
    round_, index = divmod(position, len(PALETTE))
    return Style(PALETTE[index], PATTERNS[round_ % len(PATTERNS)])


#: CSS for the hatches of :data:`PATTERNS` on a page's colour key (the figures draw them with matplotlib)
_CSS_HATCHES = {
    "//": "repeating-linear-gradient(45deg, {c} 0 2px, #fff 2px 4px)",
    "\\\\": "repeating-linear-gradient(-45deg, {c} 0 2px, #fff 2px 4px)",
    "xx": "repeating-linear-gradient(45deg, {c} 0 1.5px, transparent 1.5px 4px), "
    "repeating-linear-gradient(-45deg, {c} 0 1.5px, #fff 1.5px 4px)",
    "..": "radial-gradient(circle, {c} 1.2px, #fff 1.5px) 0 0 / 4px 4px",
    "oo": "radial-gradient(circle, #fff 1px, {c} 1.3px, {c} 2px, #fff 2.3px) 0 0 / 5px 5px",
}


def css_background(colour: str, pattern: str | None) -> str:
    """The CSS ``background`` of a system's colour key on a page: its colour, hatched as its figures
    are past the palette's eighth system."""
    return f"background:{_CSS_HATCHES[pattern].format(c=colour) if pattern in _CSS_HATCHES else colour}"
