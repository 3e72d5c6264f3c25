"""Reading ER-Reason's final-diagnosis answer "CODE NAME" (task 4): the code a system assigned
(``PredictionItem.code``), else the ICD code the item's text starts with — an LLM answers
"I21.4 Non-ST elevation myocardial infarction" and the code is read from the text.

A leading code is an ICD-10-CM code (letter, two digits, optionally a dot and up to four more
characters) or an ICD-9-CM code (three digits, or E/V and digits, optionally a dot and one or two
digits), followed by white space, a separator or the end. A text that starts otherwise has no code
and the answer counts as a miss. The code is kept as written, dot included: where the dot stands
tells an ICD-9-CM external-cause code (``E888.9``) from the ICD-10-CM code with the same
characters (``E88.89``); scoring reads it (:func:`admitdx.metrics.erreason.answer_system`).
"""

from __future__ import annotations

import re

from admitdx.contracts import PredictionItem

_LEADING_CODE = re.compile(
    r"^\s*([A-TV-Z][0-9][0-9AB](?:\.?[0-9A-Z]{1,4})?|[0-9]{3}(?:\.?[0-9]{1,2})?|[EV][0-9]{2,3}(?:\.?[0-9]{1,2})?)"
    r"(?=$|[\s:;,\-–—)])"
)


def answer_code(item: PredictionItem) -> str | None:
    """The item's code, else its text's leading ICD code as written (upper case, dot kept)."""
    if item.code:
        return item.code
    m = _LEADING_CODE.match(item.text.upper())
    return m.group(1) if m else None
