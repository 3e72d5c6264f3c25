"""The serialized input a system reads (§3.2, appendix I): one line per acute section in the
paper's order, absent or ablated ones written "None", then prior history as its own demarcated
block (appendix N: history is risk context, not the presentation)."""

from __future__ import annotations

from dataclasses import replace

from admitdx.contracts import Instance
from admitdx.errors import UsageError
from admitdx.tasks.earlydx.params import DROPPABLE, HISTORY, SECTION_NAMES
from admitdx.tasks.earlydx.prior_history import PARTS as HISTORY_PARTS
from admitdx.tasks.sections import BY_NAME

#: EarlyDx's acute sections from the shared library, in the paper's order.
ACUTE = tuple(BY_NAME[name] for name in SECTION_NAMES)

HEADERS = {s.name: s.header for s in ACUTE}
HISTORY_HEADER = "Prior history (background from earlier visits, not the current presentation)"


def serialize_history(parts: dict[str, str | None]) -> str | None:
    """The history field: one line per part, or None when no part has anything."""
    if all(v is None for v in parts.values()):
        return None
    return "\n".join(f"{s.header}: {parts.get(s.name) or 'None'}" for s in HISTORY_PARTS)


def serialize(sections: dict[str, str | None], history: str | None) -> str:
    lines = [f"{HEADERS[name]}: {sections.get(name) or 'None'}" for name in HEADERS]
    return "\n".join(lines) + f"\n\n{HISTORY_HEADER}:\n{history or 'None'}"


def drop_sections(instance: Instance, names: tuple[str, ...] | list[str]) -> Instance:
    """The same instance with the named sections (and/or "history") removed from its input — the
    prompt-time form of the appendix-P ablation. ``explicit`` flags keep their build-time values."""
    unknown = [n for n in names if n not in DROPPABLE]
    if unknown:
        raise UsageError(
            f"unknown section(s) to drop: {', '.join(unknown)}", hint=f"choose from {', '.join(DROPPABLE)}"
        )
    sections = {k: (None if k in names else v) for k, v in instance.sections.items()}
    history = None if HISTORY in names else instance.history
    return replace(instance, sections=sections, history=history, text=serialize(sections, history))
