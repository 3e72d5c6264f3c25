"""The serialized input a system reads (§3.2, appendix I), in one of two layouts.

``paper`` (default) is appendix I: one line per field in the authors' order — demographics, chief
complaint, triage, ED serial vitals, home meds, baseline OMR, baseline labs, the three prior-history
lines, ECG, echocardiogram, radiology, and the in-window labs last — every field present, with
"None" (or appendix I's "BP None, Wt None, Ht None, BMI None" placeholders) when nothing qualifies.

``demarcated`` writes the acute sections in §3.2's order and prior history after them as its own
headed block, as appendix N recommends ("prior history should be demarcated as a distinct field …
consumed as risk context rather than as candidate diagnoses").

``Instance.sections`` (None when nothing was recorded) and ``Instance.history`` (its three lines)
carry the same evidence under both layouts; only the text differs. :func:`layout_of` tells the two
apart from the text alone, so a prompt-time ablation re-serializes in the layout it was built in.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from admitdx.contracts import Instance
from admitdx.errors import UsageError
from admitdx.tasks.earlydx.paper_layout import paper_field
from admitdx.tasks.earlydx.params import DROPPABLE, HISTORY, SECTION_NAMES
from admitdx.tasks.earlydx.prior_history import PARTS as HISTORY_PARTS
from admitdx.tasks.sections import BY_NAME

Layout = Literal["paper", "demarcated"]
LAYOUTS: tuple[Layout, ...] = ("paper", "demarcated")

#: EarlyDx's acute sections from the shared library, in §3.2's order.
ACUTE = tuple(BY_NAME[name] for name in SECTION_NAMES)

HEADERS = {s.name: s.header for s in ACUTE}
HISTORY_HEADER = "Prior history (background from earlier visits, not the current presentation)"
#: Appendix I's order: history between the baseline labs and the ECG, the in-window labs last.
_UP_TO_BASELINE = SECTION_NAMES[: SECTION_NAMES.index("baseline_labs") + 1]
PAPER_ORDER: tuple[str, ...] = (
    *_UP_TO_BASELINE,
    HISTORY,
    *(n for n in SECTION_NAMES[len(_UP_TO_BASELINE) :] if n != "labs"),
    "labs",
)


def serialize_history(parts: dict[str, str | None]) -> str | None:
    """The history field: one line per part, or None when no part has anything."""
    if all(v is None for v in parts.values()):
        return None
    return "\n".join(f"{s.header}: {parts.get(s.name) or 'None'}" for s in HISTORY_PARTS)


#: "(N)" opening a lab or radiology section's text, which the authors print in the header.
_COUNT = re.compile(r"\((\d+)\)[ \n]?")
_COUNTED = ("labs", "radiology")
FieldFormat = Literal["admitdx", "pandas"]


def _pandas_line(name: str, value: str | None) -> str:
    """A section as the EarlyDx authors' builder prints it (``field_format`` "pandas"): the text as
    rendered, placeholders where nothing was recorded, counts in the lab and radiology headers
    ("Initial labs (35): …", "Radiology (0): None")."""
    if name not in _COUNTED:
        return f"{HEADERS[name]}: {value if value else paper_field(name, value)}"
    m = _COUNT.match(value or "")
    if m is None or value is None:
        return f"{HEADERS[name]} (0): {paper_field(name, value)}"
    return f"{HEADERS[name]} ({m.group(1)}): {value[m.end() :]}"


def serialize(
    sections: dict[str, str | None],
    history: str | None,
    layout: Layout = "paper",
    field_format: FieldFormat = "admitdx",
) -> str:
    """The input text of one encounter in ``layout``."""
    if layout == "demarcated":
        lines = [f"{HEADERS[name]}: {sections.get(name) or 'None'}" for name in HEADERS]
        return "\n".join(lines) + f"\n\n{HISTORY_HEADER}:\n{history or 'None'}"
    if layout != "paper":
        raise UsageError(f"layout must be paper or demarcated, got {layout!r}")
    out: list[str] = []
    for name in PAPER_ORDER:
        if name == HISTORY:
            out += history.split("\n") if history else [f"{s.header}: None" for s in HISTORY_PARTS]
        elif field_format == "pandas":
            out.append(_pandas_line(name, sections.get(name)))
        else:
            out.append(f"{HEADERS[name]}: {paper_field(name, sections.get(name))}")
    return "\n".join(out)


def layout_of(text: str) -> Layout:
    """The layout an input text was serialized in (only ``demarcated`` has the history header)."""
    return "demarcated" if f"\n\n{HISTORY_HEADER}:\n" in text else "paper"


def field_format_of(text: str) -> FieldFormat:
    """The field format an input text was serialized in: only "pandas" counts the radiology reports
    in the header, on every encounter ("Radiology (0): None")."""
    return "pandas" if re.search(rf"^{HEADERS['radiology']} \(\d+\):", text, re.M) else "admitdx"


def relayout(instance: Instance, layout: Layout) -> Instance:
    """The same instance serialized in ``layout``: exactly the text a build with ``--layout``
    ``layout`` writes, since the text is a function of the sections and the history alone."""
    text = serialize(instance.sections, instance.history, layout, field_format_of(instance.text))
    return replace(instance, text=text)


def drop_sections(instance: Instance, names: tuple[str, ...] | list[str]) -> Instance:
    """The same instance with the named sections (and/or "history") removed from its input — the
    prompt-time form of the appendix-P ablation, in the instance's own layout. ``explicit`` flags
    keep their build-time values."""
    unknown = [n for n in names if n not in DROPPABLE]
    if unknown:
        raise UsageError(
            f"unknown section(s) to drop: {', '.join(unknown)}", hint=f"choose from {', '.join(DROPPABLE)}"
        )
    sections = {k: (None if k in names else v) for k, v in instance.sections.items()}
    history = None if HISTORY in names else instance.history
    text = serialize(sections, history, layout_of(instance.text), field_format_of(instance.text))
    return replace(instance, sections=sections, history=history, text=text)
