"""What a system must answer, per answer kind: JSON schemas for guided decoding, and reading a
model's answer back into a ranked diagnosis list, one category, or a text.

These belong to tasks, not to the LLM layer, which only transports a schema to the server.

CliniBench (section 4.2) constrains generation to a JSON list of diagnosis strings of 3–70
characters, and for chain-of-thought adds a ``reasoning`` field *before* the list so the model
reasons first. Property order matters: llama.cpp and vLLM generate properties in schema order.
CliniBench forces exactly 20 items for its top-20 ranking; EarlyDx rewards a sparse list, so here
``min_items`` (default 1) and ``max_items`` (default 20) are separate parameters.

Long free-text fields (reasoning, quotes) carry no ``maxLength`` by default: llama.cpp expands a
length bound into one grammar rule per character, and sampling under that grammar was measured at
25–130 s per call for a 300-character bound on 2 cores, against about 2 s without it. Their length
is bounded by ``max_tokens`` instead; pass a number to constrain them anyway (vLLM handles it well).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from admitdx.contracts import PredictionItem

STATUSES = ("confirmed", "suspected")


@dataclass(frozen=True)
class ListShape:
    """How long the diagnosis list and each item may be (CliniBench: 3–70 characters)."""

    min_items: int = 1
    max_items: int = 20
    min_chars: int = 3
    max_chars: int = 70
    reasoning_max_chars: int | None = None


def free_text(max_chars: int | None) -> dict[str, Any]:
    """A string field, length-bounded only when asked (see the module docstring for why)."""
    return {"type": "string"} if max_chars is None else {"type": "string", "maxLength": max_chars}


def diagnosis_schema(shape: ListShape, *, reasoning: bool = False, graded: bool = False) -> dict[str, Any]:
    """The predictor's answer: ``{reasoning?, diagnoses: [str | {diagnosis, status, confidence}]}``."""
    text = {"type": "string", "minLength": shape.min_chars, "maxLength": shape.max_chars}
    item: dict[str, Any] = text
    if graded:
        item = {
            "type": "object",
            "properties": {
                "diagnosis": text,
                "status": {"type": "string", "enum": list(STATUSES)},
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            },
            "required": ["diagnosis", "status", "confidence"],
            "additionalProperties": False,
        }
    answer = {"type": "array", "items": item, "minItems": shape.min_items, "maxItems": shape.max_items}
    return _answer_object("diagnoses", answer, reasoning, shape.reasoning_max_chars)


@dataclass(frozen=True)
class ReadItems:
    items: list[PredictionItem]
    reasoning: str | None
    error: str | None


def _item(entry: Any) -> PredictionItem | None:
    """One list entry: a string, or an object with diagnosis/status/confidence (others ignored)."""
    if isinstance(entry, str):
        return PredictionItem(entry.strip()) if entry.strip() else None
    if not isinstance(entry, dict):
        return None
    text = next((entry[k] for k in ("diagnosis", "name", "text") if isinstance(entry.get(k), str)), "")
    if not text.strip():
        return None
    status = entry.get("status") if entry.get("status") in STATUSES else None
    conf = entry.get("confidence")
    # A confidence outside [0, 1] (or not a number) is dropped, not clipped: clipping would invent one.
    valid = isinstance(conf, int | float) and not isinstance(conf, bool) and 0 <= conf <= 1
    return PredictionItem(text.strip(), status=status, confidence=float(conf) if valid else None)


def read_diagnoses(value: Any, max_items: int) -> ReadItems:
    """Diagnosis items from a parsed answer (object with ``diagnoses``, or a bare list).

    Case-insensitive duplicates are dropped (the prediction is a set Ŷ; a repeat would inflate
    |Ŷ|), and the list is cut at ``max_items`` when a server ignored the schema's ``maxItems``.
    """
    reasoning = None
    entries = value
    if isinstance(value, dict):
        reasoning = value.get("reasoning") if isinstance(value.get("reasoning"), str) else None
        entries = value.get("diagnoses")
    if not isinstance(entries, list):
        return ReadItems([], reasoning, "the answer has no list of diagnoses")
    items: list[PredictionItem] = []
    seen: set[str] = set()
    for entry in entries:
        item = _item(entry)
        if item is not None and item.text.casefold() not in seen:
            seen.add(item.text.casefold())
            items.append(item)
    return ReadItems(items[:max_items], reasoning, None)


def _answer_object(
    name: str, answer: dict[str, Any], reasoning: bool, reasoning_max_chars: int | None = None
) -> dict[str, Any]:
    """``{reasoning?, <name>: answer}``: reasoning first, so a server generates it before the answer."""
    return _object({name: answer}, reasoning, reasoning_max_chars)


def _object(
    answers: dict[str, dict[str, Any]], reasoning: bool, reasoning_max_chars: int | None = None
) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    if reasoning:
        properties["reasoning"] = free_text(reasoning_max_chars)
    properties.update(answers)
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def category_schema(categories: tuple[str, ...], *, reasoning: bool = False) -> dict[str, Any]:
    """``{reasoning?, answer: one of categories}``: the server can only emit an allowed value."""
    return _answer_object("answer", {"type": "string", "enum": list(categories)}, reasoning)


def text_schema(
    *, reasoning: bool = False, max_chars: int | None = None, parts: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``{reasoning?, answer: text}``, or for a multi-part target ``{reasoning?, <part>: text, …}``
    with the parts in the target's order (ER-Reason planning: rule_out, decision_factors,
    treatment_plan — the order the paper asks them in)."""
    if not parts:
        return _answer_object("answer", free_text(max_chars), reasoning)
    return _object({p: free_text(max_chars) for p in parts}, reasoning)


def text_parts(schema: pa.Schema) -> tuple[str, ...]:
    """The part names of a multi-part text target: the fields of the instances' ``target`` struct
    (the dataset schema is where a task declares its target's shape); () for a single text."""
    i = schema.get_field_index("target")
    kind = schema.field(i).type if i >= 0 else None
    if kind is None or not pa.types.is_struct(kind):
        return ()
    return tuple(kind.field(j).name for j in range(kind.num_fields))


def text_answer(target: str | dict[str, str]) -> dict[str, Any]:
    """A gold text target written as the answer object a model must produce (few-shot exemplars)."""
    return dict(target) if isinstance(target, dict) else {"answer": target}


@dataclass(frozen=True)
class ReadAnswer:
    answer: str | dict[str, str] | None
    reasoning: str | None
    error: str | None


def _answer_field(value: Any) -> tuple[Any, str | None]:
    if isinstance(value, dict):
        reasoning = value.get("reasoning") if isinstance(value.get("reasoning"), str) else None
        return value.get("answer"), reasoning
    return value, None


def read_category(value: Any, categories: tuple[str, ...]) -> ReadAnswer:
    """One allowed category, matched exactly after case and whitespace folding.

    Exact, not by substring: ER-Reason's authors search the answer for each level name, so
    "Less Urgent" is read as "Urgent" (whichever name is tried first wins). Here an answer that is
    not exactly one category is a parse error, kept and counted.
    """
    answer, reasoning = _answer_field(value)
    if not isinstance(answer, str | int) or isinstance(answer, bool):
        return ReadAnswer(None, reasoning, "the answer has no category")
    folded = " ".join(str(answer).split()).casefold()
    hits = [c for c in categories if c.casefold() == folded]
    if not hits:
        return ReadAnswer(None, reasoning, f"{str(answer)[:80]!r} is not one of {', '.join(categories)}")
    return ReadAnswer(hits[0], reasoning, None)


def read_text(value: Any, parts: tuple[str, ...] = ()) -> ReadAnswer:
    """A non-empty text answer (surrounding whitespace removed), or with ``parts`` a ``{part: text}``.

    Parts are read tolerantly when a server ignored the schema: a key matches a part whatever its
    case and separators ("Rule_Out", "rule out", "rule-out" are ``rule_out``), and a list of
    strings is joined with "; ". An answer lacking a part (absent, empty, not text) is a parse
    error naming the missing parts, with no answer, as the Prediction contract has it: it is
    counted as unparseable and scores 0 on every part, not credited for the parts it has.
    """
    if parts:
        return _read_parts(value, parts)
    answer, reasoning = _answer_field(value)
    if not isinstance(answer, str) or not answer.strip():
        return ReadAnswer(None, reasoning, "the answer has no text")
    return ReadAnswer(answer.strip(), reasoning, None)


def _key(name: str) -> str:
    return "".join(ch for ch in name.casefold() if ch.isalnum())


def _part_text(value: Any) -> str | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = "; ".join(v.strip() for v in value if v.strip())
    return value.strip() if isinstance(value, str) and value.strip() else None


def _read_parts(value: Any, parts: tuple[str, ...]) -> ReadAnswer:
    if not isinstance(value, dict):
        return ReadAnswer(None, None, f"the answer is not an object with {', '.join(parts)}")
    reasoning = value.get("reasoning") if isinstance(value.get("reasoning"), str) else None
    by_key = {_key(str(k)): v for k, v in value.items()}
    read = {p: text for p in parts if (text := _part_text(by_key.get(_key(p)))) is not None}
    missing = [p for p in parts if p not in read]
    if missing:
        return ReadAnswer(None, reasoning, f"the answer lacks {', '.join(missing)}")
    return ReadAnswer(read, reasoning, None)
